"""The Game of Alice in Wonderland engine benchmark: python bench/bench_wonderland.py

Measures (one core, this process): the median cost of one ``apply`` + one ``view`` on a hand in
progress (target < 0.2 ms), and smart-bot four-player hands per second (target >= 1,000; best and
median of 5 runs, with the load average before and after), then the smart bot's margin over the
random bot. Figures go into docs/rules.md ("The Game of Alice in Wonderland", "Bots").
"""

from __future__ import annotations

import os
import random
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from games.wonderland.bots import bot_action  # noqa: E402
from games.wonderland.hand import WonderlandHand  # noqa: E402
from games.wonderland.simulate import report_lines, simulate  # noqa: E402


def apply_view_samples(players: int, hands: int, seed: int) -> list[float]:
    """Seconds for each (apply one bot play + view for that seat) over whole smart/random hands."""
    rng = random.Random(seed)
    samples: list[float] = []
    clock = time.perf_counter
    for i in range(hands):
        h = WonderlandHand.new(players, rng, dealer=i % players)
        while not h.finished:
            seat = h.turn
            a = bot_action(h, seat, rng, "smart" if seat % 2 else "random")
            t = clock()
            h.apply(seat, a)
            h.view(seat)
            samples.append(clock() - t)
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
    for players in (4, 6):
        s = apply_view_samples(players, 300, 1)
        q = statistics.quantiles(s, n=100)
        print(f"apply+view, {players} players: median {statistics.median(s) * 1e3:.4f} ms, "
              f"p95 {q[94] * 1e3:.4f} ms, p99 {q[98] * 1e3:.4f} ms ({len(s)} plays)")
    for players, hands in ((4, 5000), (2, 2000), (6, 5000)):
        rates, cpu_rates = [], []
        for rep in range(RUNS):
            cpu = time.process_time()
            r = simulate(players, hands, rep, ["smart"] * players)
            cpu_rates.append(hands / (time.process_time() - cpu))
            rates.append(r.hands_per_second)
        # wall clock, as simulate reports it; and per second of this process's CPU time, which a
        # shared machine's other work does not slow down
        print(f"smart hands/s, {players} players: best {max(rates):,.0f}, median {statistics.median(rates):,.0f} "
              f"({RUNS} runs of {hands}: {' / '.join(f'{x:,.0f}' for x in rates)}); per CPU second: "
              f"median {statistics.median(cpu_rates):,.0f}")
    r = simulate(4, 1000, 1, ["smart", "random", "random", "random"])
    print("\n".join(report_lines(r)))
    print(f"smart over random, 4 players, 1000 hands (1 smart, 3 random, rotating): "
          f"{r.margin('smart', 'random'):+.2f} points per seat per hand")
    print(f"load average {load_average()}")


if __name__ == "__main__":
    main()
