"""Movement between hands of a drive: who goes up, who goes down, and where they sit.

Pure functions, no Django. The rule (design doc, "A game, and a drive"; docs/drive-rules.md):

- Tables are numbered from 1, the top table; ``tables[0]`` is Table 1.
- Each table lists its players in seat order; the player after seat ``i`` is on seat ``i``'s left,
  and the first seat is on the last seat's left (left is clockwise).
- After every hand, at every table, the mover (the hand's winner) moves up one table and the
  player on the mover's left moves down one. The mover at Table 1 stays; the left-hand player at
  the last table stays. With a single table nobody moves. At a table of two the left-hand player
  is simply the other player.
- A table whose hand ended with nobody having won still moves: the game names its mover
  (``games.base.Game.mover_without_winner``; by default the top scorer).

Where the arrivals sit (the project's choice): everybody who stays keeps their seat; each
arrival takes a seat that a leaver vacated.

- The player coming UP (the mover from the table below) takes the seat of the player who went
  up (this table's mover); the player coming DOWN (the left-hand player from the table above)
  takes the seat of the player who went down (this table's left-hand player).
- At Table 1 the mover stays, so only the left-hand player's seat is free: the arrival from
  below takes it. At the last table the left-hand player stays, so only the mover's seat is
  free: the arrival from above takes it.

So at every table exactly as many players arrive as leave, and table sizes never change.
"""

from __future__ import annotations

from collections.abc import Sequence

UP = "up"
DOWN = "down"
STAY = "stay"


def move(tables: list[list[str]], movers: list[str]) -> list[list[str]]:
    """Return the seating for the next hand of a drive.

    ``tables[t]`` is the seat order at Table ``t + 1``; ``movers[t]`` is the player at that
    table who moves up (the hand's winner, or whom the game names when nobody won).

    Returns new lists (the inputs are not changed) with the same table sizes.

    Refused with ``ValueError``: no tables; a table that is not a list of players or has fewer
    than two; a player name that is not a non-empty string; a player listed twice anywhere; a
    mover missing (wrong count, ``None`` or empty) or not seated at that table.
    """
    _check_tables(tables)
    _check_movers(tables, movers)

    last = len(tables) - 1
    result = [list(table) for table in tables]
    if last == 0:
        return result

    # Seats vacated at each table, and by whom: the mover's seat and the left-hand seat.
    mover_seat = [table.index(movers[t]) for t, table in enumerate(tables)]
    left_seat = [(seat + 1) % len(tables[t]) for t, seat in enumerate(mover_seat)]
    left_player = [tables[t][seat] for t, seat in enumerate(left_seat)]

    for t in range(len(tables)):
        if t == 0:
            # The mover stays; the one free seat (left-hand) goes to the arrival from below.
            result[t][left_seat[t]] = movers[t + 1]
        elif t == last:
            # The left-hand player stays; the mover's seat goes to the arrival from above.
            result[t][mover_seat[t]] = left_player[t - 1]
        else:
            result[t][mover_seat[t]] = movers[t + 1]
            result[t][left_seat[t]] = left_player[t - 1]
    return result


def told(tables: Sequence[Sequence[str]], movers: Sequence[str]) -> set[str]:
    """The players a close gives a move of their own: at each table the mover and the player on
    the mover's left, whether they move or stay (the mover at Table 1, the left-hand player at
    the last table). None with a single table (nobody moves). A seating re-formed between hands
    moves them only when nobody else can go (``seating.rebalance``'s ``keep``): their phones
    already say where they sit."""
    _check_tables(tables)
    _check_movers(tables, movers)
    if len(tables) == 1:
        return set()
    out = set()
    for table, mover in zip(tables, movers):
        out.add(mover)
        out.add(table[(list(table).index(mover) + 1) % len(table)])
    return out


def instructions(
    before: list[list[str]], after: list[list[str]]
) -> dict[str, tuple[str, int, int]]:
    """Map each player to ``(direction, from_table, to_table)`` for the phones and the board.

    ``direction`` is ``"up"`` (to a lower-numbered table), ``"down"`` or ``"stay"``; table
    numbers are 1-based (Table 1 is the top table). Works for any two seatings of the same
    players, e.g. ``after = move(before, movers)``.

    Refused with ``ValueError``: either seating malformed, or the two seatings not holding the
    same players.
    """
    _check_tables(before)
    _check_tables(after)
    was = _table_of(before)
    now = _table_of(after)
    if set(was) != set(now):
        missing = sorted(set(was) - set(now))
        extra = sorted(set(now) - set(was))
        raise ValueError(
            "the two seatings do not hold the same players"
            + (f"; missing after: {', '.join(missing)}" if missing else "")
            + (f"; new after: {', '.join(extra)}" if extra else "")
        )
    result: dict[str, tuple[str, int, int]] = {}
    for player, source in was.items():
        target = now[player]
        direction = UP if target < source else DOWN if target > source else STAY
        result[player] = (direction, source, target)
    return result


def table_moves(number: int, tables: int, *, done: bool = False) -> tuple[str, str]:
    """What the mover of Table ``number`` (of ``tables``) and the player on their left do, in
    words, as the rule above says: ("moves up", "moves down"), "stays at the top table" for the
    mover at Table 1, "stays at the last table" for the left-hand player at the last; ``done``:
    said as made ("moved up", "stayed at the top table"). (A lone table moves nobody: the
    caller's to say.)"""
    up, down, stays = ("moved up", "moved down", "stayed") if done else ("moves up", "moves down", "stays")
    return (f"{stays} at the top table" if number == 1 else up,
            f"{stays} at the last table" if number == tables else down)


def describe(instruction: tuple[str, int, int]) -> str:
    """The words a phone shows: "Move UP to Table 2", "Move DOWN to Table 4", "Stay at Table 1"."""
    direction, _source, target = instruction
    if direction == STAY:
        return f"Stay at Table {target}"
    return f"Move {direction.upper()} to Table {target}"


def _check_tables(tables: Sequence[Sequence[str]]) -> None:
    if not isinstance(tables, (list, tuple)) or not tables:
        raise ValueError("a drive needs at least one table")
    seen: dict[str, int] = {}
    for t, table in enumerate(tables, start=1):
        if not isinstance(table, (list, tuple)):
            raise ValueError(f"Table {t} must be a list of players, got {table!r}")
        if len(table) < 2:
            raise ValueError(f"Table {t} has {len(table)} player(s); a table needs at least two")
        for player in table:
            if not isinstance(player, str) or not player:
                raise ValueError(
                    f"Table {t}: a player must be a non-empty name, got {player!r}"
                )
            if player in seen:
                where = (
                    f"twice at Table {t}" if seen[player] == t
                    else f"at Table {seen[player]} and Table {t}"
                )
                raise ValueError(f"{player} is seated {where}")
            seen[player] = t


def _check_movers(tables: Sequence[Sequence[str]], movers: Sequence[str]) -> None:
    if not isinstance(movers, (list, tuple)):
        raise ValueError(f"movers must be a list, one per table, got {movers!r}")
    if len(movers) != len(tables):
        raise ValueError(
            f"need one mover per table: {len(tables)} tables but {len(movers)} movers"
        )
    for t, (table, mover) in enumerate(zip(tables, movers), start=1):
        if mover is None or mover == "":
            raise ValueError(f"Table {t} has no mover")
        if mover not in table:
            raise ValueError(f"Table {t}: mover {mover!r} is not seated at that table")


def _table_of(tables: Sequence[Sequence[str]]) -> dict[str, int]:
    return {player: t for t, table in enumerate(tables, start=1) for player in table}
