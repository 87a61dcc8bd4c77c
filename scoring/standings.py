"""Standings and prizes of a drive: pure ranking, no Django. The one ranking of the project:
every page and live update takes its ranks from here.

Order (docs/drive-rules.md, "Tie-breaks"):

1. highest total points;
2. then the game's standings facts in the game's order (``games.base.Game.facts``), each
   higher first;
3. players still level share the rank ("=3"): competition ranking, so after two players at
   =3 the next is 5th.

Places are counted among those who have played a hand; those who have not follow them, by
name, with no place shown. Within a shared rank the display order is by name (ignoring case and accents: "Élodie" among
the E's, not after the Z's), then by player id, so
the board never reshuffles between refreshes. Hands played, and whether the player has left
the drive, are carried for display: neither breaks ties nor changes a rank.

Prizes (``prizes``) go to the people still in the drive: one who left is not there to collect
one (and, having played fewer hands, would take the booby nearly every time), and a bot (a seat
filler the organiser added) is no one to give a prize to. Both keep their rank in the standings;
the prizes, and their ties, are counted among the others. Among them: winners (everybody at the
best rank), runner-up (the group ranked next after the winners), booby (everybody on the lowest
total, provided that total is below the winners' and the runner-up's, so nobody takes two of
these three, and nobody level on points with a winner or a runner-up gets the booby), and each
of the game's own prizes (``games.base.Prize``: everybody with the highest total of a fact, if
it is above zero; it may go to a winner, a runner-up or the booby too).
"""

from __future__ import annotations

import functools
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Row:
    """One player's totals over the drive so far. ``facts`` are the totals of the game's
    standings facts, in the game's order (whole numbers, not negative)."""

    name: str
    total: int
    facts: tuple[int, ...] = ()
    hands_played: int = 0
    player_id: int | str | None = None
    # Left the drive (withdrawn): still ranked by the points scored, shown marked; wins no
    # prize (``prizes``, docs/drive-rules.md).
    left: bool = False
    # A bot (``tables.models.BotPlayer``): ranked like anyone, shown; wins no prize (``prizes``).
    bot: bool = False

    def __post_init__(self) -> None:
        for field, value in (("total", self.total), ("hands_played", self.hands_played),
                             *((f"fact {i + 1}", v) for i, v in enumerate(self.facts))):
            if isinstance(value, bool) or not isinstance(value, int):
                raise ValueError(f"{self.name}: {field} must be a whole number, got {value!r}")
            if field != "total" and value < 0:
                raise ValueError(f"{self.name}: {field} cannot be negative")


@dataclass(frozen=True)
class Ranked:
    """A row with its place: ``rank`` 1 is the top; ``tied`` when others share that rank (for a
    player who has played a hand, others who have)."""

    row: Row
    rank: int
    tied: bool

    @property
    def label(self) -> str:
        """The rank as the board shows it: "1", or "=3" when shared; "–" for a player who has
        played no hand yet (before the first hand everyone would be "=1", which says nothing)."""
        if not self.row.hands_played:
            return "–"
        return f"={self.rank}" if self.tied else str(self.rank)

    @property
    def name(self) -> str:
        return self.row.name

    @property
    def total(self) -> int:
        return self.row.total

    @property
    def facts(self) -> tuple[int, ...]:
        return self.row.facts


def tie_key(row: Row) -> tuple[int, ...]:
    """Players with equal keys share a rank; a larger key ranks higher."""
    return (row.total, *row.facts)


@functools.lru_cache(maxsize=4096)  # every live update sorts a drive's players by it
def name_order(name: str) -> str:
    """A name as a list orders it: without case or accents ("Élodie" as "elodie")."""
    return "".join(c for c in unicodedata.normalize("NFKD", name) if not unicodedata.combining(c)).casefold()


def by_name(players: Iterable[Any]) -> list[Any]:
    """Players (anything with ``name`` and ``pk``) in the order every list of names has: by
    ``name_order`` ("Élodie" among the E's), then as typed, then first added."""
    return sorted(players, key=lambda p: (name_order(p.name), p.name, p.pk))


def rank(rows: Iterable[Row]) -> list[Ranked]:
    """Rank ``rows`` best first (see the module docstring for the order and tie-breaks). Places
    are counted among those who have played a hand; those who have not follow them, by name, with
    no place shown ("–"; else a player on -5 would be "17th of 9", counted below eight who had
    not played)."""
    def order(r: Row) -> tuple:
        return (tuple(-v for v in tie_key(r)), name_order(r.name), r.name, str(r.player_id))

    rows = list(rows)
    played = sorted((r for r in rows if r.hands_played), key=order)
    waiting = sorted((r for r in rows if not r.hands_played), key=lambda r: order(r)[1:])
    ranked: list[Ranked] = []
    start = 0
    while start < len(played):
        end = start
        while end < len(played) and tie_key(played[end]) == tie_key(played[start]):
            end += 1
        ranked.extend(Ranked(row, start + 1, end - start > 1) for row in played[start:end])
        start = end
    ranked.extend(Ranked(row, len(played) + 1, len(waiting) > 1) for row in waiting)
    return ranked


def wins_prizes(r: Ranked) -> bool:
    """Whether a ranked player may win a prize: a person (no bot) who played a hand and has not
    left the drive."""
    return bool(r.row.hands_played) and not r.row.left and not r.row.bot


def prizes(ranked: Sequence[Ranked], game_prizes: Sequence[tuple[str, int]] = ()) -> dict[str, list[Ranked]]:
    """The prize lists, each in standings order, each possibly empty (with no players, say),
    among the people who played a hand and have not left the drive (bots win none).

    Keys: ``"winners"``, ``"runner_up"``, ``"booby"``, then each of ``game_prizes``: pairs of a
    prize's key and the index of its fact in ``Row.facts``. ``ranked`` is the output of ``rank``.
    """
    result: dict[str, list[Ranked]] = {"winners": [], "runner_up": [], "booby": []}
    result.update({key: [] for key, _index in game_prizes})
    ranked = [r for r in ranked if wins_prizes(r)]
    if not ranked:
        return result
    best = ranked[0].rank
    result["winners"] = [r for r in ranked if r.rank == best]
    later = [r.rank for r in ranked if r.rank > best]
    if later:
        second = min(later)
        result["runner_up"] = [r for r in ranked if r.rank == second]
    # The booby's total must be below every winner's and runner-up's: then nobody takes two of
    # these prizes (two players: the second is runner-up, and there is no booby), and nobody
    # level on points with a winner or a runner-up, only behind on a tie-break, is the booby.
    placed = min(r.total for r in (*result["winners"], *result["runner_up"]))
    lowest = min(r.total for r in ranked)
    if lowest < placed:
        result["booby"] = [r for r in ranked if r.total == lowest]
    for key, index in game_prizes:
        most = max(r.facts[index] for r in ranked)
        if most > 0:
            result[key] = [r for r in ranked if r.facts[index] == most]
    return result
