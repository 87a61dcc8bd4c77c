"""Bot-played hands of any game at one table, for balance checks and benchmarks
(``manage.py simulate --game <slug>``, ``bench/bench_engine.py --game <slug>``).

One runner for every game: ``simulate(game, players, hands, seed, bots)`` plays ``hands`` hands
with one named bot strategy per seat, deterministically from ``seed``, and returns a
``SimulationReport``; ``report_lines`` gives the same statistics lines for every game and
``progress_bar`` the same progress bar. Pure Python: no Django, no printing.

The hook. A game says what is its own in ``games/<package>/simulate.py``, as a module-level
``SIMULATION = Simulation(...)`` (all but ``bots`` optional):

- ``bots``: its bot strategies by name, ``policy(state, seat, rng) -> action | None`` (None:
  nothing to do now); the first is the default at every seat.
- ``to_act(state)``: the seats to ask for a move, in order (default: every seat from 0; a game
  whose strategies would answer for a seat not on turn must give it).
- ``turns(state)`` and ``turn_cap``: the count a hand is stopped at (default: actions applied, cap
  1,000); ``cap_words`` says what it counts. A stopped hand is counted under ``CAPPED``.
- ``endings``: words for the ways a hand ends (the hand's ``ended_by``).
- ``tally(extra, outcome, seating)`` and ``lines(report)``: the game's own figures, gathered
  into ``report.extra`` after each hand and printed after the shared lines.
- ``view_bot(view, rng)``: a move chosen from one seat's view only, as a phone would
  (``bench/digital.py``).

A game without that module is played by its ``bot_action`` (one strategy, ``"default"``).
"""

from __future__ import annotations

import importlib
import random
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TextIO

from . import get_game
from .base import Game, GameError, Outcome

CAPPED = "turn_cap"  # the ``ended`` key of a hand stopped at the turn cap
TURN_CAP = 1000
DEFAULT_BOT = "default"

Policy = Callable[[Any, int, random.Random], "dict[str, Any] | None"]


@dataclass(frozen=True)
class Simulation:
    """What a game adds to the shared runner (see the module's docstring)."""

    bots: Mapping[str, Policy]
    to_act: Callable[[Any], Sequence[int]] | None = None
    turns: Callable[[Any], int] | None = None
    turn_cap: int = TURN_CAP
    cap_words: str = "the turn cap ({cap} actions)"
    endings: Mapping[str, str] = field(default_factory=dict)
    tally: Callable[[dict[str, Any], Outcome, Sequence[str]], None] | None = None
    lines: Callable[["SimulationReport"], list[str]] | None = None
    view_bot: Callable[[dict[str, Any], random.Random], "dict[str, Any] | None"] | None = None

    @property
    def default_bot(self) -> str:
        return next(iter(self.bots))


def hook_for(game: Game) -> Simulation:
    """The game's ``SIMULATION`` (from ``games/<package>/simulate.py``), or the default: the
    game's own ``bot_action`` as the one strategy."""
    module = type(game).__module__
    parts = module.split(".")
    if len(parts) >= 2 and parts[0] == "games":
        name = f"games.{parts[1]}.simulate"
        try:
            found = importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name != name:
                raise
        else:
            hook = getattr(found, "SIMULATION", None)
            if isinstance(hook, Simulation):
                return hook
    return Simulation(bots={DEFAULT_BOT: game.bot_action})


def resolve(game: Game | str) -> Game:
    return get_game(game) if isinstance(game, str) else game


def parse_bots(game: Game | str, spec: str | Sequence[str] | None, players: int) -> list[str]:
    """``"greedy,random"`` -> one bot name per seat (None or "": the game's default bot at every
    seat); refuses unknown names or a wrong count."""
    hook = hook_for(resolve(game))
    if spec is None or spec == "":
        return [hook.default_bot] * players
    names = [b.strip() for b in spec.split(",")] if isinstance(spec, str) else list(spec)
    unknown = [b for b in names if b not in hook.bots]
    if unknown:
        raise GameError(f"Unknown bot(s) {unknown}; choose from {sorted(hook.bots)}.")
    if len(names) != players:
        raise GameError(f"Give one bot per seat: {players} players but {len(names)} bots ({','.join(names)}).")
    return names


def check_players(game: Game, players: Any) -> int:
    if type(players) is not int or not game.min_players <= players <= game.max_players:
        raise GameError(f"{game.name} is played by {game.min_players} to {game.max_players} players "
                        f"at a table, not {players!r}.")
    return players


def play_hand(
    game: Game | str, players: int, bots: Sequence[str], rng: random.Random, *, turn_cap: int | None = None
) -> tuple[Any, str]:
    """Play one hand with one bot per seat (names of the game's strategies); returns the finished
    hand and how it ended: its ``ended_by``, or ``CAPPED`` when it was stopped at ``turn_cap``
    (the game's count of turns) or when no bot had anything left to do."""
    game = resolve(game)
    hook = hook_for(game)
    return _play(game, hook, players, [hook.bots[b] for b in bots], rng,
                 hook.turn_cap if turn_cap is None else turn_cap)


def _play(game: Game, hook: Simulation, players: int, policies: list[Policy], rng: random.Random,
          turn_cap: int) -> tuple[Any, str]:
    state = game.new_hand(players, rng)
    to_act = hook.to_act
    turns = hook.turns
    everyone = range(players)
    actions = 0
    while True:
        acted = False
        for seat in (everyone if to_act is None else to_act(state)):
            action = policies[seat](state, seat, rng)
            if action is None:
                continue
            state.apply(seat, action)
            actions += 1
            acted = True
            if state.finished:
                return state, getattr(state, "ended_by", None) or "finished"
            if (actions if turns is None else turns(state)) >= turn_cap:
                acted = False
                break
        if not acted:
            state.stop()
            return state, CAPPED


@dataclass
class SimulationReport:
    game: str
    players: int
    hands: int
    bots: list[str]
    seed: int = 0
    rotate: bool = False
    turn_cap: int = TURN_CAP
    cap_words: str = ""
    endings: dict[str, str] = field(default_factory=dict)
    ended: dict[str, int] = field(default_factory=dict)
    total_points: list[int] = field(default_factory=list)  # per seat
    points_by_bot: dict[str, list[int]] = field(default_factory=dict)  # every seat-hand's points
    won_by_seat: list[int] = field(default_factory=list)  # hands in which the seat was the mover
    won_by_bot: dict[str, int] = field(default_factory=dict)  # ... in which a seat of that bot was
    facts: dict[str, dict[str, int]] = field(default_factory=dict)  # fact key -> bot -> total
    fact_labels: dict[str, str] = field(default_factory=dict)
    extra: dict[str, Any] = field(default_factory=dict)  # the game's own figures (its hook's tally)
    seconds: float = 0.0
    hook: Simulation | None = field(default=None, repr=False, compare=False)

    @property
    def mean_points(self) -> list[float]:
        return [p / self.hands for p in self.total_points] if self.hands else []

    @property
    def hands_per_second(self) -> float:
        return self.hands / self.seconds if self.seconds else 0.0

    def mean_by_bot(self) -> dict[str, float]:
        """Mean points per seat per hand, for each bot kind."""
        return {b: sum(v) / len(v) for b, v in self.points_by_bot.items() if v}

    def margin(self, better: str, worse: str) -> float:
        """Mean points per seat per hand of ``better`` less those of ``worse``."""
        m = self.mean_by_bot()
        return m[better] - m[worse]

    def fact_total(self, key: str) -> int:
        return sum(self.facts.get(key, {}).values())


def simulate(
    game: Game | str,
    players: int,
    hands: int,
    seed: int,
    bots: str | Sequence[str] | None = None,
    *,
    rotate: bool = False,
    turn_cap: int | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> SimulationReport:
    """Play ``hands`` hands of ``game`` at one table of ``players`` bots, deterministically from
    ``seed``. Each hand is dealt by ``game.new_hand``. With ``rotate`` the bots move one seat to
    the left each hand, so that no bot keeps a seat's luck; the per-bot figures follow the bots
    either way."""
    game = resolve(game)
    hook = hook_for(game)
    check_players(game, players)
    names = parse_bots(game, bots, players)
    if type(hands) is not int or hands < 0:
        raise GameError(f"Hands must be a whole number of at least 0, not {hands!r}.")
    cap = hook.turn_cap if turn_cap is None else turn_cap
    if type(cap) is not int or cap < 1:
        raise GameError(f"The turn cap must be a whole number of at least 1, not {cap!r}.")
    rng = random.Random(seed)
    kinds = list(dict.fromkeys(names))
    facts = [f.key for f in getattr(game, "facts", ())]
    report = SimulationReport(
        game.name, players, hands, names, seed=seed, rotate=rotate, turn_cap=cap,
        cap_words=hook.cap_words.format(cap=cap), endings=dict(hook.endings),
        ended={**{k: 0 for k in hook.endings}, CAPPED: 0}, total_points=[0] * players,
        points_by_bot={b: [] for b in kinds}, won_by_seat=[0] * players, won_by_bot={b: 0 for b in kinds},
        facts={k: {b: 0 for b in kinds} for k in facts},
        fact_labels={f.key: f.label for f in getattr(game, "facts", ())}, hook=hook,
    )
    tally = hook.tally
    start = time.perf_counter()
    for i in range(hands):
        k = i % players if rotate else 0
        seating = names[-k:] + names[:-k] if k else names
        state, ended = _play(game, hook, players, [hook.bots[b] for b in seating], rng, cap)
        report.ended[ended] = report.ended.get(ended, 0) + 1
        outcome = state.outcome()
        for s, p in enumerate(outcome.points):
            report.total_points[s] += p
            report.points_by_bot[seating[s]].append(p)
        report.won_by_seat[outcome.mover] += 1
        report.won_by_bot[seating[outcome.mover]] += 1
        for s, seat_facts in enumerate(outcome.facts):
            for key, value in seat_facts.items():
                if key in report.facts:
                    report.facts[key][seating[s]] += value
        if tally is not None:
            tally(report.extra, outcome, seating)
        if progress is not None:
            progress(i + 1, hands)
    report.seconds = time.perf_counter() - start
    return report


def _pct(part: float, whole: float) -> str:
    return f"{100 * part / whole:5.1f}%" if whole else "    -"


def report_lines(report: SimulationReport) -> list[str]:
    """The report's statistics as printable lines, the same for every game (then the game's own)."""
    r = report
    n = r.hands
    lines = [f"{r.game}: {n} hands, {r.players} players, bots {','.join(r.bots)}, seed {r.seed}"
             + (", bots moving one seat left each hand" if r.rotate else "")]
    lines.append("How hands ended:")
    keys = [*r.endings, *(k for k in r.ended if k not in r.endings and k != CAPPED), CAPPED]
    for key in keys:
        if key == CAPPED:
            label = f"stopped at {r.cap_words}"
        else:
            label = r.endings.get(key, key.replace("_", " "))
        count = r.ended.get(key, 0)
        lines.append(f"  {label:<50} {count:>7}  {_pct(count, n)}")
    at_start = " at start" if r.rotate else ""
    lines.append("Mean points per seat:")
    lines += [f"  seat {s} ({r.bots[s]}){at_start}: {m:6.2f}" for s, m in enumerate(r.mean_points)]
    lines += [f"  all {b} seats: {m:6.2f}" for b, m in r.mean_by_bot().items()]
    lines.append("Hands won (the seat that moves up):")
    lines += [f"  seat {s} ({r.bots[s]}){at_start}: {w:>7}  {_pct(w, n)}" for s, w in enumerate(r.won_by_seat)]
    for b, w in r.won_by_bot.items():
        seats = r.bots.count(b)
        lines.append(f"  all {b} seats ({seats}): {w:>7}  {_pct(w, n)}")
    for key, by_bot in r.facts.items():
        label = r.fact_labels.get(key, key)
        lines.append(f"{label}: " + ", ".join(f"{b} {t}" for b, t in by_bot.items())
                     + f" (total {sum(by_bot.values())})")
    if r.hook is not None and r.hook.lines is not None:
        lines += r.hook.lines(r)
    lines.append(f"Hands per second: {r.hands_per_second:,.0f} ({r.seconds:.2f} s)")
    return lines


def progress_bar(stream: TextIO, width: int = 40) -> Callable[[int, int], None]:
    """A ``progress`` callback drawing ``[####    ] done/total`` on ``stream`` (about 50 steps)."""

    def progress(done: int, total: int) -> None:
        if done % max(1, total // 50) == 0 or done == total:
            bar = "#" * (width * done // total)
            stream.write(f"\r[{bar:<{width}}] {done}/{total}")
            if done == total:
                stream.write("\n")
            stream.flush()

    return progress
