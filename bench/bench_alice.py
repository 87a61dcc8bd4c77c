"""Alice engine benchmark: python bench/bench_alice.py

Measures (one core, this process): the median cost of one ``apply`` + one ``view`` on a hand in
progress (target < 0.2 ms), and smart-bot hands per second at 4 players (target >= 1,000; best
and median of 5 runs, wall clock and this process's CPU time, with the load average before and
after), and the smart bot's margin over the random bot. Figures go into docs/rules.md, "Alice".
"""

from __future__ import annotations

import os
import random
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from games.alice.bots import bot_action
from games.alice.hand import AliceHand
from games.alice.simulate import simulate

RUNS = 5  # the machine is shared: report the best and the median of several runs, and the load


def apply_view_samples(players: int, hands: int, seed: int) -> list[float]:
    """Seconds for each (apply one bot action + view for that seat) over whole smart/random hands."""
    rng = random.Random(seed)
    samples: list[float] = []
    clock = time.perf_counter
    for k in range(hands):
        h = AliceHand.new(players, rng, k % players)
        steps = 0
        while not h.finished and steps < 400:
            seat = h.waiting_for()
            seat = h.turn if seat is None else seat
            a = bot_action(h, seat, rng, "smart" if seat % 2 else "random")
            t = clock()
            h.apply(seat, a)
            h.view(seat)
            samples.append(clock() - t)
            steps += 1
        if not h.finished:
            h.stop()
    return samples


def load_average() -> str:
    try:
        with open("/proc/loadavg") as f:
            return " ".join(f.read().split()[:3])
    except OSError:
        return "unknown"


def main() -> None:
    print(f"load average {load_average()}")
    for players in (4, 6):
        s = apply_view_samples(players, 300, 1)
        q = statistics.quantiles(s, n=100)
        print(f"apply+view, {players} players: median {statistics.median(s) * 1e3:.4f} ms, "
              f"p95 {q[94] * 1e3:.4f} ms, p99 {q[98] * 1e3:.4f} ms ({len(s)} actions)")
    hands = 2000
    wall, cpu = [], []
    for rep in range(RUNS):
        c = time.process_time()
        r = simulate(4, hands, rep, ["smart"] * 4)
        cpu.append(hands / (time.process_time() - c))
        wall.append(r.hands_per_second)
    print(f"smart hands/s, 4 players: best {max(wall):,.0f}, median {statistics.median(wall):,.0f} "
          f"({RUNS} runs of {hands}: {' / '.join(f'{x:,.0f}' for x in wall)}; ended {r.ended}); "
          f"by CPU time best {max(cpu):,.0f}, median {statistics.median(cpu):,.0f}")
    r = simulate(4, 1000, 7, ["smart", "random", "smart", "random"], rotate=True)
    m = r.mean_by_bot()
    print(f"smart vs random, 4 players, 1000 hands (2 of each, rotating): smart {m['smart']:.2f}, "
          f"random {m['random']:.2f} points per seat per hand; hands won smart {r.won_by_bot['smart']}, "
          f"random {r.won_by_bot['random']}; ended {r.ended}")
    print(f"load average {load_average()}")


if __name__ == "__main__":
    main()
