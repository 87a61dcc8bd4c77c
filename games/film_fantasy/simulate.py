"""Film Fantasy's part of the shared simulation runner (``games.simulate``; docs/rules.md, "Bots";
``manage.py simulate --game film-fantasy``): its bots by name, the seats asked in turn (from the
dealer's left), the auction cap, how hands end, the share of nine-card declarations, and a
greedy bot that plays from one seat's view only (``bench/digital.py``).

``simulate`` and ``play_hand`` keep their Film Fantasy signatures for the tests and benches.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from types import SimpleNamespace
from typing import Any

from .. import simulate as runner
from ..simulate import CAPPED, Simulation, SimulationReport
from .bots import BOTS, greedy_action
from .hand import DECLARED_AUCTION, DECLARED_PASSING, FilmFantasyHand

AUCTION_CAP = 200


def _lines(report: SimulationReport) -> list[str]:
    declarations = report.fact_total("declarations")
    nine = report.fact_total("nine_card_declarations")
    share = 100 * nine / declarations if declarations else 0.0
    return [f"25-point declarations: {share:.1f}% of {declarations} declarations"]


def seat_state(view: dict[str, Any]) -> SimpleNamespace:
    """What the greedy bot reads, built from one seat's view only (others' cards unknown)."""
    seat, n = view["seat"], view["players"]
    hands: list[list[str]] = [[] for _ in range(n)]
    hands[seat] = list(view["hand"])
    passes: list[Any] = [None] * n
    passes[seat] = view.get("my_pass")
    offers = {o["id"]: {"id": o["id"], "from": o["from"], "to": o["to"],
                        "cards": o.get("my_cards") or ["?"] * o["count"]} for o in view.get("offers", [])}
    left = view.get("offers_left", 0)
    return SimpleNamespace(hands=hands, phase=view["phase"], passes=passes, offers=offers, players=n,
                           log=list(view["log"]), finished=view["phase"] == "finished",
                           offers_left=lambda _seat: left)


def view_bot(view: dict[str, Any], rng: random.Random) -> dict[str, Any] | None:
    return greedy_action(seat_state(view), view["seat"], rng)


SIMULATION = Simulation(
    bots=BOTS,
    to_act=FilmFantasyHand._from_dealers_left,
    turns=lambda hand: hand.auction_actions,
    turn_cap=AUCTION_CAP,
    cap_words="the auction cap ({cap} auction actions)",
    endings={DECLARED_PASSING: "declared while passing", DECLARED_AUCTION: "declared in the auction"},
    lines=_lines,
    view_bot=view_bot,
)


def _game():
    from . import FILM_FANTASY

    return FILM_FANTASY


def parse_bots(spec: str | Sequence[str], players: int) -> list[str]:
    """``"greedy,random"`` -> one bot name per seat; refuses unknown names or a wrong count."""
    return runner.parse_bots(_game(), spec, players)


def play_hand(players: int, bots: Sequence[str], rng: random.Random, *,
              auction_cap: int = AUCTION_CAP) -> tuple[FilmFantasyHand, str]:
    """One hand with one bot per seat: the finished hand and how it ended (``declared_passing``,
    ``declared_auction`` or ``CAPPED``)."""
    return runner.play_hand(_game(), players, bots, rng, turn_cap=auction_cap)


def simulate(players: int, hands: int, seed: int, bots: str | Sequence[str], *, rotate: bool = False,
             auction_cap: int = AUCTION_CAP, progress: Callable[[int, int], None] | None = None) -> SimulationReport:
    """``games.simulate.simulate`` for Film Fantasy (with the house rules' defaults)."""
    return runner.simulate(_game(), players, hands, seed, bots, rotate=rotate, turn_cap=auction_cap, progress=progress)


__all__ = ["AUCTION_CAP", "CAPPED", "SIMULATION", "SimulationReport", "parse_bots", "play_hand", "seat_state",
           "simulate", "view_bot"]
