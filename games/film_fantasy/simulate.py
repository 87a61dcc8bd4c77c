"""Bot-played hands for balance checks and benchmarks (docs/rules.md, "Bots"; ``manage.py simulate``).

Pure functions: no Django, no printing. ``simulate`` returns a ``SimulationReport``.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass, field
from typing import Callable, Sequence

from ..base import GameError
from .bots import BOTS, bot_action
from .cards import check_players
from .hand import DECLARED_AUCTION, DECLARED_PASSING, FINISHED, FilmFantasyHand

AUCTION_CAP = 200
CAPPED = "auction_cap"


def play_hand(
    players: int, bots: Sequence[str], rng: random.Random, *, auction_cap: int = AUCTION_CAP
) -> tuple[FilmFantasyHand, str]:
    """Play one hand with one bot per seat; returns the finished hand and how it ended
    (``declared_passing``, ``declared_auction`` or ``auction_cap``: stopped after ``auction_cap``
    auction actions, or when no bot had anything left to do)."""
    hand = FilmFantasyHand.new(players, rng)
    order = hand._from_dealers_left()
    policies = [BOTS[b] for b in bots]
    while True:
        acted = False
        for seat in order:
            action = policies[seat](hand, seat, rng)
            if action is not None:
                hand.apply(seat, action)
                acted = True
                if hand.phase == FINISHED:
                    return hand, hand.ended_by or ""
        if not acted or hand.auction_actions >= auction_cap:
            hand.stop()
            return hand, CAPPED


@dataclass
class SimulationReport:
    players: int
    hands: int
    bots: list[str]
    ended: dict[str, int] = field(default_factory=lambda: {DECLARED_PASSING: 0, DECLARED_AUCTION: 0, CAPPED: 0})
    total_points: list[int] = field(default_factory=list)
    declarations: int = 0
    nine_card: int = 0
    seconds: float = 0.0
    points_by_bot: dict[str, list[int]] = field(default_factory=dict)

    @property
    def mean_points(self) -> list[float]:
        return [p / self.hands for p in self.total_points] if self.hands else []

    @property
    def nine_card_share(self) -> float:
        return self.nine_card / self.declarations if self.declarations else 0.0

    @property
    def hands_per_second(self) -> float:
        return self.hands / self.seconds if self.seconds else 0.0

    def mean_by_bot(self) -> dict[str, float]:
        return {b: sum(v) / len(v) for b, v in self.points_by_bot.items() if v}


def parse_bots(spec: str | Sequence[str], players: int) -> list[str]:
    """``"greedy,random"`` -> one bot name per seat; refuses unknown names or a wrong count."""
    names = [b.strip() for b in spec.split(",")] if isinstance(spec, str) else list(spec)
    unknown = [b for b in names if b not in BOTS]
    if unknown:
        raise GameError(f"Unknown bot(s) {unknown}; choose from {sorted(BOTS)}.")
    if len(names) != players:
        raise GameError(f"Give one bot per seat: {players} players but {len(names)} bots ({','.join(names)}).")
    return names


def simulate(
    players: int,
    hands: int,
    seed: int,
    bots: str | Sequence[str],
    *,
    rotate: bool = False,
    auction_cap: int = AUCTION_CAP,
    progress: Callable[[int, int], None] | None = None,
) -> SimulationReport:
    """Play ``hands`` hands at one table of ``players`` bots, deterministically from ``seed``.

    With ``rotate`` the bots move one seat to the left each hand, so that no bot keeps a seat's
    luck; ``points_by_bot`` collects points per bot kind either way.
    """
    check_players(players)
    names = parse_bots(bots, players)
    if not isinstance(hands, int) or hands < 0:
        raise GameError(f"Hands must be a whole number of at least 0, not {hands!r}.")
    rng = random.Random(seed)
    report = SimulationReport(players, hands, names, total_points=[0] * players,
                              points_by_bot={b: [] for b in names})
    start = time.perf_counter()
    for i in range(hands):
        seating = names[-(i % players):] + names[: -(i % players)] if rotate and i % players else names
        hand, ended = play_hand(players, seating, rng, auction_cap=auction_cap)
        report.ended[ended] += 1
        points = hand.points or []
        for s, p in enumerate(points):
            report.total_points[s] += p
            report.points_by_bot[seating[s]].append(p)
        if hand.declarer is not None:
            report.declarations += 1
            report.nine_card += hand.nine_card
        if progress is not None:
            progress(i + 1, hands)
    report.seconds = time.perf_counter() - start
    return report
