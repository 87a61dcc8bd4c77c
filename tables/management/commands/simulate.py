"""``manage.py simulate``: bot-played Film Fantasy hands at one table (docs/rules.md, "Bots").

Thin wrapper over ``games.film_fantasy.simulate.simulate``; all rules live there.
"""

from __future__ import annotations

import sys

from django.core.management.base import BaseCommand, CommandError

from games.base import GameError
from games.film_fantasy.simulate import AUCTION_CAP, CAPPED, parse_bots, simulate
from games.film_fantasy.hand import DECLARED_AUCTION, DECLARED_PASSING

PROGRESS_MIN_HANDS = 2000


class Command(BaseCommand):
    help = "Play Film Fantasy hands with bots at one table and print how they ended and the points."

    def add_arguments(self, parser):
        parser.add_argument("--players", type=int, required=True, help="table size, 2-10")
        parser.add_argument("--hands", type=int, default=1000, help="hands to play (default 1000)")
        parser.add_argument("--seed", type=int, default=1, help="random seed (default 1)")
        parser.add_argument("--bots", required=True, help="one bot per seat, comma separated: greedy,random,...")
        parser.add_argument("--auction-cap", type=int, default=AUCTION_CAP,
                            help=f"stop a hand after this many auction actions (default {AUCTION_CAP})")
        parser.add_argument("--rotate", action="store_true", help="bots move one seat left each hand")

    def handle(self, *args, players, hands, seed, bots, auction_cap, rotate, **options):
        if not 2 <= players <= 10:
            raise CommandError(f"--players must be from 2 to 10, not {players}.")
        if hands < 1:
            raise CommandError(f"--hands must be at least 1, not {hands}.")
        if auction_cap < 1:
            raise CommandError(f"--auction-cap must be at least 1, not {auction_cap}.")
        try:
            names = parse_bots(bots, players)
        except GameError as exc:
            raise CommandError(str(exc)) from None

        stream = sys.stderr
        show = hands >= PROGRESS_MIN_HANDS or stream.isatty()

        def progress(done: int, total: int) -> None:
            if done % max(1, total // 50) == 0 or done == total:
                bar = "#" * (40 * done // total)
                stream.write(f"\r[{bar:<40}] {done}/{total}")
                if done == total:
                    stream.write("\n")
                stream.flush()

        report = simulate(players, hands, seed, names, rotate=rotate, auction_cap=auction_cap,
                          progress=progress if show else None)
        out = self.stdout
        out.write(f"{hands} hands, {players} players, bots {','.join(names)}, seed {seed}")
        out.write("How hands ended:")
        for key, label in [(DECLARED_PASSING, "declared while passing"), (DECLARED_AUCTION, "declared in the auction"),
                           (CAPPED, f"stopped by the auction cap ({auction_cap} actions)")]:
            k = report.ended[key]
            out.write(f"  {label:<45} {k:>7}  {100 * k / hands:5.1f}%")
        out.write("Mean points per seat:")
        for seat, mean in enumerate(report.mean_points):
            out.write(f"  seat {seat} ({names[seat]}){'' if not rotate else ' at start'}: {mean:6.2f}")
        for bot, mean in sorted(report.mean_by_bot().items()):
            out.write(f"  all {bot} seats: {mean:6.2f}")
        out.write(f"25-point declarations: {100 * report.nine_card_share:.1f}% of {report.declarations} declarations")
        out.write(f"Hands per second: {report.hands_per_second:,.0f}")
