"""Bot-played Alice hands for balance checks and benchmarks (docs/rules.md, "Alice", "Bots").

Pure functions: no Django, no printing. ``simulate`` returns a ``SimulationReport``;
``report_lines`` gives its printable statistics.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from ..base import GameError
from .bots import BOTS
from .cards import check_players
from .hand import ALL_LAID, AliceHand

TURN_CAP = 400  # turns a hand may last before it is stopped (random bots can go round for long)
CAPPED = "turn_cap"


def play_hand(
    players: int, bots: Sequence[str], rng: random.Random, *, dealer: int = 0, turn_cap: int = TURN_CAP
) -> tuple[AliceHand, str]:
    """Play one hand with one bot per seat; returns the finished hand and how it ended
    (``all_laid``, or ``turn_cap``: stopped after ``turn_cap`` turns)."""
    hand = AliceHand.new(players, rng, dealer)
    policies = [BOTS[b] for b in bots]
    log = hand.log
    turns = 0
    while hand.ended_by is None:
        seat = hand.answering if hand.answering is not None else hand.turn
        before = hand.turn
        action = policies[seat](hand, seat, rng)  # type: ignore[index]
        hand.apply(seat, action)  # type: ignore[arg-type]
        if hand.turn != before or log[-1]["type"] == "turn":
            turns += 1
            if turns >= turn_cap and hand.ended_by is None:
                hand.stop()
                return hand, CAPPED
    return hand, hand.ended_by or ""


@dataclass
class SimulationReport:
    players: int
    hands: int
    bots: list[str]
    ended: dict[str, int] = field(default_factory=lambda: {ALL_LAID: 0, CAPPED: 0})
    total_points: list[int] = field(default_factory=list)
    points_by_bot: dict[str, list[int]] = field(default_factory=dict)
    won_by_bot: dict[str, int] = field(default_factory=dict)  # hands in which a seat of that bot was the mover
    won_by_seat: list[int] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def mean_points(self) -> list[float]:
        return [p / self.hands for p in self.total_points] if self.hands else []

    @property
    def hands_per_second(self) -> float:
        return self.hands / self.seconds if self.seconds else 0.0

    def mean_by_bot(self) -> dict[str, float]:
        """Mean points per seat per hand, for each bot kind."""
        return {b: sum(v) / len(v) for b, v in self.points_by_bot.items() if v}


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
    rotate: bool = False,
    progress: Callable[[int, int], None] | None = None,
    turn_cap: int = TURN_CAP,
) -> SimulationReport:
    """Play ``hands`` hands at one table of ``players`` bots, deterministically from ``seed``.

    The deal passes to the left each hand. With ``rotate`` the bots move one seat to the left
    each hand so that no bot keeps a seat's luck; ``points_by_bot`` collects points per bot kind
    either way.
    """
    check_players(players)
    names = parse_bots(bots, players)
    if type(hands) is not int or hands < 0:
        raise GameError(f"Hands must be a whole number of at least 0, not {hands!r}.")
    rng = random.Random(seed)
    report = SimulationReport(players, hands, names, total_points=[0] * players,
                              points_by_bot={b: [] for b in names}, won_by_bot={b: 0 for b in names},
                              won_by_seat=[0] * players)
    start = time.perf_counter()
    for i in range(hands):
        k = i % players
        seating = names[-k:] + names[:-k] if rotate and k else names
        hand, ended = play_hand(players, seating, rng, dealer=k, turn_cap=turn_cap)
        report.ended[ended] = report.ended.get(ended, 0) + 1
        for s, p in enumerate(hand.points or []):
            report.total_points[s] += p
            report.points_by_bot[seating[s]].append(p)
        mover = hand.mover()
        report.won_by_seat[mover] += 1
        report.won_by_bot[seating[mover]] += 1
        if progress is not None:
            progress(i + 1, hands)
    report.seconds = time.perf_counter() - start
    return report


def report_lines(report: SimulationReport) -> list[str]:
    """The report's statistics as printable lines."""
    n = report.hands or 1
    lines = [
        f"Alice, {report.players} players, {report.hands} hands, bots {','.join(report.bots)}",
        (f"ended: all sets laid {report.ended.get(ALL_LAID, 0)} ({100 * report.ended.get(ALL_LAID, 0) / n:.1f}%), "
         f"stopped at the turn cap {report.ended.get(CAPPED, 0)} ({100 * report.ended.get(CAPPED, 0) / n:.1f}%)"),
        "total points per seat: " + ", ".join(f"seat {s} {p}" for s, p in enumerate(report.total_points)),
        "mean points per seat: " + ", ".join(f"seat {s} {p:.2f}" for s, p in enumerate(report.mean_points)),
        "hands won (moved up) per seat: " + ", ".join(f"seat {s} {w}" for s, w in enumerate(report.won_by_seat)),
    ]
    for b, mean in report.mean_by_bot().items():
        seats = report.bots.count(b)
        lines.append(f"bot {b}: {mean:.2f} points per seat per hand, hands won {report.won_by_bot[b]} "
                     f"({seats} seat{'s' if seats > 1 else ''})")
    lines.append(f"{report.seconds:.2f} s, {report.hands_per_second:,.0f} hands/s")
    return lines
