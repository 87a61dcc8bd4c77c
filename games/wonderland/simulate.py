"""The Game of Alice in Wonderland's part of the shared simulation runner (``games.simulate``;
docs/rules.md, "The Game of Alice in Wonderland", "Bots"; ``manage.py simulate --game
wonderland``): its bots by name, the seat on turn, how a hand ends, the pairs and the Pool of
Tears card per bot, and a bot that plays from one seat's view only (``bench/digital.py``: a
random legal card).

``simulate``, ``play_hand``, ``parse_bots`` and ``report_lines`` keep their signatures for the
tests and benches (``simulate`` rotates the bots by default).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any

from ..base import Outcome
from .. import simulate as runner
from ..simulate import CAPPED, Simulation, SimulationReport, report_lines
from .bots import BOTS
from .hand import PLAYED_OUT, WonderlandHand


def _to_act(hand: WonderlandHand) -> tuple[int, ...]:
    return () if hand.turn is None else (hand.turn,)


def _tally(extra: dict[str, Any], outcome: Outcome, seating: Sequence[str]) -> None:
    pairs_by_bot = extra.setdefault("pairs_by_bot", {b: 0 for b in dict.fromkeys(seating)})
    tears = extra.setdefault("pool_of_tears_by_bot", {b: 0 for b in dict.fromkeys(seating)})
    per_seat = extra.setdefault("total_pairs", [0] * len(seating))
    for s, pairs in enumerate(outcome.details["pairs"]):
        per_seat[s] += pairs
        pairs_by_bot[seating[s]] += pairs
    holder = outcome.details["pool_of_tears"]
    if holder is not None:
        tears[seating[holder]] += 1


def _lines(report: SimulationReport) -> list[str]:
    extra = report.extra
    if not report.hands:
        return []
    lines = ["Pairs taken per seat: " + ", ".join(f"seat {s} {p}" for s, p in enumerate(extra["total_pairs"]))]
    for b, pairs in extra["pairs_by_bot"].items():
        seat_hands = len(report.points_by_bot[b])
        lines.append(f"  all {b} seats: pairs {pairs} ({pairs / seat_hands if seat_hands else 0:.2f} per seat per "
                     f"hand), Pool of Tears {extra['pool_of_tears_by_bot'][b]}")
    return lines


def view_bot(view: dict[str, Any], rng: random.Random) -> dict[str, Any] | None:
    """A random legal card, from one seat's view (``legal`` is empty off turn)."""
    legal = view.get("legal") or []
    return {"type": "play", "card": rng.choice(legal)} if legal else None


SIMULATION = Simulation(
    bots=BOTS,
    to_act=_to_act,
    endings={PLAYED_OUT: "played out"},
    tally=_tally,
    lines=_lines,
    view_bot=view_bot,
)


def _game():
    from . import WONDERLAND

    return WONDERLAND


def parse_bots(spec: str | Sequence[str], players: int) -> list[str]:
    """``"smart,random"`` -> one bot name per seat; refuses unknown names or a wrong count."""
    return runner.parse_bots(_game(), spec, players)


def play_hand(players: int, bots: Sequence[str], rng: random.Random) -> WonderlandHand:
    """One whole hand with one bot per seat."""
    return runner.play_hand(_game(), players, bots, rng)[0]


def simulate(players: int, hands: int, seed: int, bots: str | Sequence[str], *, rotate: bool = True,
             progress: Callable[[int, int], None] | None = None) -> SimulationReport:
    """``games.simulate.simulate`` for The Game of Alice in Wonderland; the bots rotate by default."""
    return runner.simulate(_game(), players, hands, seed, bots, rotate=rotate, progress=progress)


__all__ = ["CAPPED", "SIMULATION", "SimulationReport", "parse_bots", "play_hand", "report_lines", "simulate",
           "view_bot"]
