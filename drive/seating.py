"""Seating for a drive: how many tables, the opening draw, late arrivals and early leavers.

Pure functions, no Django. A seating is ``list[list[str]]``: ``tables[0]`` is Table 1 (the top
table) and each table lists its players in seat order, as in ``drive.movement``.
Every table holds as many players as the game allows (``sizes``: the game's smallest and largest
table, 2 to 10 unless given; docs/drive-rules.md).

Table sizes (``table_sizes``): the number of tables is ``n / preferred`` rounded to the nearest
whole number (halves round up), at least 1, then pushed into the range that keeps every table
within ``sizes``; the players are shared out as evenly as possible (sizes differ by at most one),
the larger tables at the top.

Rebalancing (``rebalance``) moves as few seated players as possible; the steps are in its
docstring and in docs/drive-rules.md.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Iterable, Sequence

from games.base import and_list

MIN_TABLE = 2
MAX_TABLE = 10


def table_sizes(n_players: int, preferred: int, sizes: tuple[int, int] = (MIN_TABLE, MAX_TABLE)) -> list[int]:
    """Sizes of the tables for ``n_players``, top table first, each within ``sizes``.

    Refused with ``ValueError``: fewer players than the smallest table, or a preferred size
    outside ``sizes``.
    """
    smallest, largest = sizes
    _check_count(n_players, "number of players")
    _check_preferred(preferred, sizes)
    if n_players < smallest:
        raise ValueError(f"a drive needs at least {_count(smallest)} players, got {n_players}")
    count = (2 * n_players + preferred) // (2 * preferred)  # round half up
    fewest = -(-n_players // largest)  # no table above the largest
    most = n_players // smallest  # no table below the smallest
    count = min(max(count, fewest, 1), most)
    base, extra = divmod(n_players, count)
    return [base + 1] * extra + [base] * (count - extra)


def draw(players: Sequence[str], preferred: int, rng: random.Random,
         sizes: tuple[int, int] = (MIN_TABLE, MAX_TABLE)) -> list[list[str]]:
    """Seat ``players`` at random into ``table_sizes(len(players), preferred, sizes)``.

    ``rng`` makes the draw repeatable (seed it and record the seed). The input is not changed.
    Refused with ``ValueError``: a name that is not a non-empty string, a player listed twice,
    and whatever ``table_sizes`` refuses.
    """
    order = list(players)
    _check_names(order, "players")
    rng.shuffle(order)
    tables: list[list[str]] = []
    start = 0
    for size in table_sizes(len(order), preferred, sizes):
        tables.append(order[start : start + size])
        start += size
    return tables


def rebalance(
    tables: Sequence[Sequence[str]],
    add: Iterable[str] = (),
    remove: Iterable[str] = (),
    preferred: int = 4,
    sizes: tuple[int, int] = (MIN_TABLE, MAX_TABLE),
    keep: Iterable[str] = (),
) -> list[list[str]]:
    """Seating after late arrivals (``add``) and early leavers (``remove``), between hands.

    Moves as few seated players as possible, and ``keep`` (those at another table than in the
    last hand: the close's movers, whose phones already say where they go, and anyone moved
    since) only when a table holds nobody else to give:

    1. Leavers leave; everybody else keeps their table and seat order.
    2. The number of tables stays as it is if the new head-count fits it with every table
       within ``preferred`` +-1 (and ``sizes``). Otherwise it becomes ``len(table_sizes(n,
       preferred, sizes))``: new tables are added at the bottom, surplus tables are closed from the
       bottom and their players join the arrivals.
    3. Size limits: ``preferred`` +-1 (within ``sizes``) if the tables can all fit that, else
       ``sizes``.
       A table above the limit sends its last-seated players to the arrivals (``_give``).
    4. The arrivals (players from closed or overfull tables first, in table and seat order, then
       the newcomers in the order given) each go to the smallest table, the bottom-most on a
       tie, and take the last seat there.
    5. If a table is still below the limit, it takes the last-seated player of the largest
       table (the bottom-most on a tie; ``_give``), until none is.

    Returns new lists; the inputs are not changed. Refused with ``ValueError``: removing someone
    who is not seated, adding someone already seated (or twice), a malformed seating, a
    preferred size outside ``sizes``, and ending with fewer players than the smallest table.
    """
    smallest, largest = sizes
    _check_preferred(preferred, sizes)
    seating = [list(table) for table in tables]
    for t, table in enumerate(seating, start=1):
        _check_names(table, f"Table {t}")
    _check_names([p for table in seating for p in table], "the seating")
    add = list(add)
    remove = list(remove)
    _check_names(add, "the arrivals")
    _check_names(remove, "the leavers")
    seated = {p for table in seating for p in table}
    unknown = [p for p in remove if p not in seated]
    if unknown:
        raise ValueError(f"cannot remove {', '.join(unknown)}: not seated")
    already = [p for p in add if p in seated]
    if already:
        raise ValueError(f"cannot add {', '.join(already)}: already seated")

    leaving = set(remove)
    seating = [[p for p in table if p not in leaving] for table in seating]
    total = len(seated) - len(leaving) + len(add)
    if total < smallest:
        raise ValueError(f"a drive needs at least {_count(smallest)} players; {total} would be left")

    low = max(smallest, preferred - 1)
    high = min(largest, preferred + 1)
    count = len(seating)
    if not count * low <= total <= count * high:
        count = len(table_sizes(total, preferred, sizes))
    if not count * low <= total <= count * high:
        low, high = smallest, largest

    waiting: list[str] = []
    for closed in seating[count:]:
        waiting.extend(closed)
    seating = seating[:count] + [[] for _ in range(count - len(seating))]
    keep = set(keep)
    for table in seating:
        while len(table) > high:
            waiting.append(_give(table, keep))
    waiting.extend(add)

    for player in waiting:
        _smallest(seating).append(player)
    while True:
        smallest = _smallest(seating)
        if len(smallest) >= low:
            break
        smallest.append(_give(_largest(seating), keep))
    return seating


def _give(table: list[str], keep: set[str]) -> str:
    """The player a table gives up, taken from it: its last-seated player not in ``keep``, else
    its last-seated (so a late arrival's new table does not take the hand's winner, just moved
    up, and send them down instead)."""
    for i in range(len(table) - 1, -1, -1):
        if table[i] not in keep:
            return table.pop(i)
    return table.pop()


def stamp(tables: Sequence[Sequence[str]]) -> str:
    """A short fingerprint of a seating (who sits where): a form that acts on the seating it
    showed carries it, and a seating changed since (another tab's swap, a late arrival) is told
    apart from the one shown."""
    return hashlib.blake2s("|".join(",".join(table) for table in tables).encode(), digest_size=8).hexdigest()


def swap(tables: Sequence[Sequence[str]], a: str, b: str) -> list[list[str]]:
    """Seating with players ``a`` and ``b`` in each other's seats (the organiser's override).

    Refused with ``ValueError``: ``a`` and ``b`` the same, or either not seated.
    """
    if a == b:
        raise ValueError(f"cannot swap {a!r} with themselves")
    seating = [list(table) for table in tables]
    where = {p: (t, s) for t, table in enumerate(seating) for s, p in enumerate(table)}
    unknown = [repr(p) for p in (a, b) if p not in where]
    if unknown:
        raise ValueError(f"cannot swap {' and '.join(unknown)}: not seated")
    (ta, sa), (tb, sb) = where[a], where[b]
    seating[ta][sa], seating[tb][sb] = b, a
    return seating


def _smallest(seating: list[list[str]]) -> list[str]:
    # Bottom-most on a tie: the top tables are disturbed least.
    return min(reversed(seating), key=len)


def _largest(seating: list[list[str]]) -> list[str]:
    return max(reversed(seating), key=len)


def _check_count(value: int, what: str) -> None:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"{what} must be a whole number, got {value!r}")


def _check_preferred(preferred: int, sizes: tuple[int, int]) -> None:
    _check_count(preferred, "preferred table size")
    if not sizes[0] <= preferred <= sizes[1]:
        raise ValueError(f"preferred table size must be {sizes[0]} to {sizes[1]}, got {preferred}")


def _check_names(players: list[str], where: str) -> None:
    seen: set[str] = set()
    for player in players:
        if not isinstance(player, str) or not player:
            raise ValueError(f"{where}: a player must be a non-empty name, got {player!r}")
        if player in seen:
            raise ValueError(f"{where}: {player} is listed twice")
        seen.add(player)


def _count(n: int) -> str:
    return {2: "two", 3: "three", 4: "four"}.get(n, str(n))


def table_words(numbers: list[int]) -> str:
    """"Table 2", "Tables 2 and 3", "Tables 1, 2 and 4" ("" for none)."""
    if not numbers:
        return ""
    return f"Table{'s' if len(numbers) > 1 else ''} {and_list([str(n) for n in numbers])}"
