"""Bot-played hands for balance checks and benchmarks (docs/rules.md, "The Game of Alice in
Wonderland", "Bots").

Pure functions: no Django, no printing. ``simulate`` returns a ``SimulationReport``;
``report_lines`` turns it into printable lines.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass, field
from typing import Callable, Sequence

from ..base import GameError
from .bots import BOTS
from .cards import check_players, choose_mover, pairs_in
from .hand import WonderlandHand


def play_hand(players: int, bots: Sequence[str], rng: random.Random, dealer: int = 0) -> WonderlandHand:
    """One whole hand with one bot per seat, dealt from a pack shuffled by ``rng``."""
    hand = WonderlandHand.new(players, rng, dealer)
    policies = [BOTS[b] for b in bots]
    while hand.turn is not None:
        seat = hand.turn
        hand.apply(seat, policies[seat](hand, seat, rng))  # type: ignore[arg-type]
    return hand


@dataclass
class SimulationReport:
    players: int
    hands: int
    bots: list[str]
    total_points: list[int] = field(default_factory=list)  # per seat
    points_by_bot: dict[str, list[int]] = field(default_factory=dict)  # every seat-hand's points
    hands_won_by_bot: dict[str, int] = field(default_factory=dict)  # the mover's bot
    pairs_by_bot: dict[str, int] = field(default_factory=dict)
    pool_of_tears_by_bot: dict[str, int] = field(default_factory=dict)
    total_pairs: list[int] = field(default_factory=list)  # per seat
    seconds: float = 0.0

    @property
    def mean_points(self) -> list[float]:
        return [p / self.hands for p in self.total_points] if self.hands else []

    @property
    def hands_per_second(self) -> float:
        return self.hands / self.seconds if self.seconds else 0.0

    def mean_by_bot(self) -> dict[str, float]:
        """Mean points per seat per hand for each bot kind."""
        return {b: sum(v) / len(v) for b, v in self.points_by_bot.items() if v}

    def margin(self, better: str, worse: str) -> float:
        """Mean points per seat per hand of ``better`` less those of ``worse``."""
        m = self.mean_by_bot()
        return m[better] - m[worse]


def parse_bots(spec: str | Sequence[str], players: int) -> list[str]:
    """``"smart,random"`` -> one bot name per seat; refuses unknown names or a wrong count."""
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
    rotate: bool = True,
    progress: Callable[[int, int], None] | None = None,
) -> SimulationReport:
    """Play ``hands`` hands at one table of ``players`` bots, deterministically from ``seed``.

    The deal passes left each hand. With ``rotate`` (default) the bots also move one seat to the
    left each hand, so no bot keeps a seat's luck; the per-bot figures follow the bots either way.
    """
    check_players(players)
    names = parse_bots(bots, players)
    if not isinstance(hands, int) or isinstance(hands, bool) or hands < 0:
        raise GameError(f"Hands must be a whole number of at least 0, not {hands!r}.")
    rng = random.Random(seed)
    kinds = sorted(set(names))
    report = SimulationReport(players, hands, names, total_points=[0] * players, total_pairs=[0] * players,
                              points_by_bot={b: [] for b in kinds}, hands_won_by_bot={b: 0 for b in kinds},
                              pairs_by_bot={b: 0 for b in kinds}, pool_of_tears_by_bot={b: 0 for b in kinds})
    start = time.perf_counter()
    for i in range(hands):
        k = i % players if rotate else 0
        seating = names[-k:] + names[:-k] if k else names
        hand = play_hand(players, seating, rng, dealer=i % players)
        points = hand.points or []
        for s, p in enumerate(points):
            pairs = pairs_in(hand.taken[s])
            report.total_points[s] += p
            report.total_pairs[s] += pairs
            report.points_by_bot[seating[s]].append(p)
            report.pairs_by_bot[seating[s]] += pairs
        holder = hand.pool_of_tears_seat()
        if holder is not None:
            report.pool_of_tears_by_bot[seating[holder]] += 1
        mover = choose_mover(points, [len(t) for t in hand.taken], hand.dealer)
        report.hands_won_by_bot[seating[mover]] += 1
        if progress is not None:
            progress(i + 1, hands)
    report.seconds = time.perf_counter() - start
    return report


def report_lines(report: SimulationReport) -> list[str]:
    """The report as printable lines: per seat, per bot kind, and the speed."""
    r = report
    lines = [f"The Game of Alice in Wonderland: {r.hands} hands, {r.players} players, bots {','.join(r.bots)}"]
    if r.hands:
        lines.append("mean points per seat: " + ", ".join(f"seat {s} {p:.2f}" for s, p in enumerate(r.mean_points)))
        lines.append("pairs per seat: " + ", ".join(f"seat {s} {p}" for s, p in enumerate(r.total_pairs)))
        means = r.mean_by_bot()
        for b in sorted(r.points_by_bot):
            seat_hands = len(r.points_by_bot[b])
            lines.append(
                f"{b}: {means.get(b, 0.0):.2f} points per seat per hand, hands won (mover) {r.hands_won_by_bot[b]} "
                f"({r.hands_won_by_bot[b] / r.hands:.1%}), pairs {r.pairs_by_bot[b]} "
                f"({r.pairs_by_bot[b] / seat_hands if seat_hands else 0:.2f} per seat per hand), "
                f"Pool of Tears {r.pool_of_tears_by_bot[b]}"
            )
    lines.append(f"{r.seconds:.2f} s, {r.hands_per_second:,.0f} hands/s")
    return lines
