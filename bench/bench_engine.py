"""Film Fantasy engine benchmark: python bench/bench_engine.py

Measures (one core, this process): the median cost of one ``apply`` + one ``view`` on a hand in
progress (target < 0.2 ms), and greedy-bot hands per second at 4 and 10 players (target >= 2,000
four-player hands/s; best and median of 5 runs, with the load average before and after). Figures
go into docs/benchmarks-engine.md.
"""

from __future__ import annotations

import os
import random
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from games.film_fantasy.bots import bot_action  # noqa: E402
from games.film_fantasy.hand import FilmFantasyHand  # noqa: E402
from games.film_fantasy.simulate import simulate  # noqa: E402


def apply_view_samples(players: int, hands: int, seed: int) -> list[float]:
    """Seconds for each (apply one bot action + view for that seat) over whole greedy/random hands."""
    rng = random.Random(seed)
    samples: list[float] = []
    clock = time.perf_counter
    for _ in range(hands):
        h = FilmFantasyHand.new(players, rng)
        while not h.finished:
            acted = False
            for seat in range(players):
                a = bot_action(h, seat, rng, "greedy" if seat % 2 else "random")
                if a is None:
                    continue
                t = clock()
                h.apply(seat, a)
                h.view(seat)
                samples.append(clock() - t)
                acted = True
                if h.finished:
                    break
            if not h.finished and (not acted or h.auction_actions > 200):
                h.stop()
    return samples


RUNS = 5  # the machine is shared: report the best and the median of several runs, and the load


def load_average() -> str:
    try:
        with open("/proc/loadavg") as f:
            return " ".join(f.read().split()[:3])
    except OSError:
        return "unknown"


def main() -> None:
    print(f"load average {load_average()}")
    for players in (4, 10):
        s = apply_view_samples(players, 300, 1)
        q = statistics.quantiles(s, n=100)
        print(f"apply+view, {players} players: median {statistics.median(s) * 1e3:.4f} ms, "
              f"p95 {q[94] * 1e3:.4f} ms, p99 {q[98] * 1e3:.4f} ms ({len(s)} actions)")
    for players, hands in ((4, 5000), (10, 1000)):
        rates = []
        for rep in range(RUNS):
            r = simulate(players, hands, rep, ["greedy"] * players)
            rates.append(r.hands_per_second)
        print(f"greedy hands/s, {players} players: best {max(rates):,.0f}, median {statistics.median(rates):,.0f} "
              f"({RUNS} runs of {hands}: {' / '.join(f'{x:,.0f}' for x in rates)}; ended {r.ended})")
    r = simulate(4, 2000, 7, ["greedy", "random", "greedy", "random"], rotate=True)
    m = r.mean_by_bot()
    print(f"greedy vs random, 4 players, 2000 hands (2 of each, rotating): greedy {m['greedy']:.2f}, "
          f"random {m['random']:.2f} points per seat per hand; {r.hands_per_second:,.0f} hands/s")
    print(f"load average {load_average()}")


if __name__ == "__main__":
    main()
