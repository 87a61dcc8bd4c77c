"""Alice's part of the shared simulation runner (``games.simulate``; docs/rules.md, "Alice",
"Bots"; ``manage.py simulate --game alice``): its bots by name, the seat asked (the one
answering, else the one on turn), how a hand ends, and a bot that plays from one seat's view
only (``bench/digital.py``: the random bot, as the smart one remembers the whole hand).

``simulate``, ``play_hand``, ``parse_bots`` and ``report_lines`` keep their Alice signatures for
the tests and benches. The turn cap counts actions (a take, an ask, an answer).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from types import SimpleNamespace
from typing import Any

from .. import simulate as runner
from ..simulate import CAPPED, Simulation, SimulationReport, report_lines
from .bots import BOTS, random_action
from .hand import ALL_LAID, AliceHand

TURN_CAP = 600  # actions a hand may last before it is stopped (random bots can go round for long;
# about 1.5 actions a turn: some 400 turns)


def _to_act(hand: AliceHand) -> tuple[int, ...]:
    seat = hand.answering if hand.answering is not None else hand.turn
    return () if seat is None else (seat,)


def view_bot(view: dict[str, Any], rng: random.Random) -> dict[str, Any] | None:
    """The random bot's move from one seat's view (its own cards, the row, the pending ask)."""
    seat = view["seat"]
    if view.get("finished") or not view.get("may"):
        return None
    hands: list[list[str]] = [[] for _ in range(view["players"])]
    hands[seat] = list(view["hand"])
    state = SimpleNamespace(pending=view["pending"], answering=view["answering"], turn=view["turn"],
                            hands=hands, row=list(view["row"]), players=view["players"])
    return random_action(state, seat, rng)  # type: ignore[arg-type]


SIMULATION = Simulation(
    bots=BOTS,
    to_act=_to_act,
    turn_cap=TURN_CAP,
    endings={ALL_LAID: "all sets laid"},
    view_bot=view_bot,
)


def _game():
    from . import ALICE

    return ALICE


def parse_bots(spec: str | Sequence[str], players: int) -> list[str]:
    """``"smart,random"`` -> one bot name per seat; refuses unknown names or a wrong count."""
    return runner.parse_bots(_game(), spec, players)


def play_hand(players: int, bots: Sequence[str], rng: random.Random, *,
              turn_cap: int = TURN_CAP) -> tuple[AliceHand, str]:
    """One hand with one bot per seat: the finished hand and how it ended (``all_laid`` or ``CAPPED``)."""
    return runner.play_hand(_game(), players, bots, rng, turn_cap=turn_cap)


def simulate(players: int, hands: int, seed: int, bots: str | Sequence[str], *, rotate: bool = False,
             progress: Callable[[int, int], None] | None = None, turn_cap: int = TURN_CAP) -> SimulationReport:
    """``games.simulate.simulate`` for Alice."""
    return runner.simulate(_game(), players, hands, seed, bots, rotate=rotate, turn_cap=turn_cap, progress=progress)


__all__ = ["CAPPED", "SIMULATION", "TURN_CAP", "SimulationReport", "parse_bots", "play_hand", "report_lines",
           "simulate", "view_bot"]
