"""``manage.py simulate --game <slug>``: bot-played hands of any registered game at one table
(docs/rules.md, "Bots").

Thin wrapper over the shared runner ``games.simulate``: the game's bots by name, the same
statistics lines and progress bar for every game. It imports no game package.
"""

from __future__ import annotations

import sys

from django.core.management.base import BaseCommand, CommandError

from games import GameError, game_named
from games.simulate import parse_bots, progress_bar, report_lines, simulate

PROGRESS_MIN_HANDS = 2000
MAX_HANDS = 1_000_000  # minutes for any game's bots: more would run for hours, unasked
DEFAULT_PLAYERS = 4


class Command(BaseCommand):
    help = "Play hands of a registered game with bots at one table and print how they ended and the points."

    def add_arguments(self, parser):
        parser.add_argument("--game", default=None, help="the game's slug (default: the default game)")
        parser.add_argument("--players", type=int, default=None,
                            help=f"table size, within the game's range (default {DEFAULT_PLAYERS}, or the nearest allowed)")
        parser.add_argument("--hands", type=int, default=1000, help=f"hands to play, 1 to {MAX_HANDS:,} (default 1000)")
        parser.add_argument("--seed", type=int, default=1, help="random seed (default 1)")
        parser.add_argument("--bots", default=None,
                            help="one bot per seat, comma separated (default: the game's first bot at every seat)")
        parser.add_argument("--turn-cap", type=int, default=None,
                            help="stop a hand at this many turns, as the game counts them (default: the game's own)")
        parser.add_argument("--rotate", action="store_true", help="bots move one seat left each hand")

    def handle(self, *args, game, players, hands, seed, bots, turn_cap, rotate, **options):
        try:
            chosen = game_named(game)
        except GameError as refused:
            raise CommandError(str(refused)) from None
        low, high = chosen.min_players, chosen.max_players
        if players is None:
            players = min(max(DEFAULT_PLAYERS, low), high)
        if not low <= players <= high:
            raise CommandError(f"--players must be from {low} to {high} for {chosen.name}, not {players}.")
        if not 1 <= hands <= MAX_HANDS:
            raise CommandError(f"--hands must be from 1 to {MAX_HANDS:,}, not {hands}.")
        if turn_cap is not None and turn_cap < 1:
            raise CommandError(f"--turn-cap must be at least 1, not {turn_cap}.")
        try:
            names = parse_bots(chosen, bots, players)
        except GameError as exc:
            raise CommandError(f"{chosen.name}: {exc}") from None

        stream = sys.stderr
        show = hands >= PROGRESS_MIN_HANDS or stream.isatty()
        report = simulate(chosen, players, hands, seed, names, rotate=rotate, turn_cap=turn_cap,
                          progress=progress_bar(stream) if show else None)
        for line in report_lines(report):
            self.stdout.write(line)
