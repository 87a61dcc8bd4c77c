"""Game engine benchmark, for any registered game: python bench/bench_engine.py [--game SLUG]

Measures (one core, this process), through ``games.get_game`` and the shared simulation runner
(``games.simulate``, with the game's bots by name):

- the median (p95, p99) cost of one ``apply`` + one ``view`` for the acting seat on hands in
  progress, played by the game's first bot on odd seats and its second on even ones (target
  < 0.2 ms);
- hands per second with the first bot at every seat, at each table size of ``--sizes``
  (default 4 and the game's largest): best and median of ``--runs`` runs, by the wall clock
  (as ``simulate`` reports it) and by this process's CPU time (which a shared machine's other
  work does not slow down), and how the hands ended;
- the first bot against the second, two of each, rotating: the runner's statistics lines;
- the load average before and after (the machine is shared).

Figures go into docs/benchmarks-engine.md (and a summary in docs/benchmarks.md).
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from games import GameError, all_games, default_slug, get_game  # noqa: E402
from games.simulate import hook_for, report_lines, simulate  # noqa: E402

RUNS = 5  # the machine is shared: report the best and the median of several runs, and the load


def apply_view_samples(game, players: int, hands: int, seed: int, bots: tuple[str, str]) -> list[float]:
    """Seconds for each (apply one bot action + view for that seat) over whole hands; a hand is
    stopped at the game's turn cap, as the runner stops it."""
    hook = hook_for(game)
    policies = [hook.bots[bots[0] if seat % 2 else bots[1]] for seat in range(players)]
    rng = random.Random(seed)
    samples: list[float] = []
    clock = time.perf_counter
    for _ in range(hands):
        h = game.new_hand(players, rng)
        actions = 0
        while not h.finished:
            acted = False
            for seat in (range(players) if hook.to_act is None else hook.to_act(h)):
                a = policies[seat](h, seat, rng)
                if a is None:
                    continue
                t = clock()
                h.apply(seat, a)
                h.view(seat)
                samples.append(clock() - t)
                actions += 1
                acted = True
                if h.finished:
                    break
            turns = actions if hook.turns is None else hook.turns(h)
            if not h.finished and (not acted or turns >= hook.turn_cap):
                h.stop()
    return samples


def load_average() -> str:
    try:
        with open("/proc/loadavg") as f:
            return " ".join(f.read().split()[:3])
    except OSError:
        return "unknown"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default=None, help="the game's slug (default: the default game)")
    parser.add_argument("--sizes", default=None, help="table sizes, comma separated (default: 4 and the game's largest)")
    parser.add_argument("--hands", type=int, default=2000,
                        help="hands per run at a table of four (default 2000; fewer at bigger tables)")
    parser.add_argument("--runs", type=int, default=RUNS, help=f"runs per table size (default {RUNS})")
    parser.add_argument("--samples", type=int, default=300, help="hands of apply+view samples per size (default 300)")
    args = parser.parse_args(argv)
    slug = args.game or default_slug()
    try:
        game = get_game(slug)
    except GameError:
        parser.error(f"unknown game {slug!r}; the registered games are: {', '.join(g.slug for g in all_games())}")
    low, high = game.min_players, game.max_players
    sizes = ([int(x) for x in args.sizes.split(",")] if args.sizes
             else sorted({min(max(4, low), high), high}))
    if any(not low <= n <= high for n in sizes) or args.hands < 1 or args.runs < 1 or args.samples < 1:
        parser.error(f"--sizes from {low} to {high} for {game.name}; --hands, --runs and --samples at least 1")
    names = list(hook_for(game).bots)
    first, second = names[0], names[1] if len(names) > 1 else names[0]

    print(f"{game.name}: bots {', '.join(names)}; load average {load_average()}")
    for players in sizes:
        s = apply_view_samples(game, players, args.samples, 1, (first, second))
        q = statistics.quantiles(s, n=100)
        print(f"apply+view, {players} players: median {statistics.median(s) * 1e3:.4f} ms, "
              f"p95 {q[94] * 1e3:.4f} ms, p99 {q[98] * 1e3:.4f} ms ({len(s)} actions)")
    for players in sizes:
        hands = max(100, args.hands * 4 // players)
        wall, cpu = [], []
        for rep in range(args.runs):
            c = time.process_time()
            r = simulate(game, players, hands, rep, [first] * players)
            cpu.append(hands / max(1e-9, time.process_time() - c))
            wall.append(r.hands_per_second)
        print(f"{first} hands/s, {players} players: best {max(wall):,.0f}, median {statistics.median(wall):,.0f} "
              f"({args.runs} runs of {hands}: {' / '.join(f'{x:,.0f}' for x in wall)}; ended {r.ended}); "
              f"per CPU second: best {max(cpu):,.0f}, median {statistics.median(cpu):,.0f}")
    four = min(max(4, low), high)
    seating = ([first, second] * four)[:four]
    r = simulate(game, four, 1000, 7, seating, rotate=True)
    print("\n".join(report_lines(r)))
    if first != second:
        print(f"{first} over {second}: {r.margin(first, second):+.2f} points per seat per hand")
    print(f"load average {load_average()}")


if __name__ == "__main__":
    main()
