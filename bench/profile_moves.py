"""CPU per move of digital play, in one process (no server, no sockets, no network).

    python bench/profile_moves.py [--game SLUG]              # CPU ms per move, at the median and p95
    python bench/profile_moves.py --profile 30 [--sort tottime]   # and cProfile's 30 costliest functions
    python bench/profile_moves.py --compare-json         # orjson's JSON columns against the standard library's

A drive of ``--tables`` digital tables of four is built on a throwaway SQLite database; then
every table plays its hand to the end, each move chosen by the game's bot from a seat's view
(as bench/digital.py's phones choose) and applied by ``tables.digital.apply_action`` as a phone's
socket applies it: the locked read, the engine's move, the save, the commit and the table's
message (sent on an event loop in a thread of its own, as a server's). Per move the process's
CPU time (``time.process_time``, every thread); the moves that end a hand (their result and
scores recorded) apart. ``--compare-json``: the JSON columns' codec (``common.jsoncodec``) and
the standard library's take turns, one move each, and each gets its own median: the machine's
speed, which drifts, is then the same for both. What it leaves out: the socket's work and the thread hop (bench/digital.py
measures those, through a real server).
"""

from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import random
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from bench.common import ThrowawayDatabase, percentile, serving_loop  # noqa: E402
from bench.drive_setup import setup_django  # noqa: E402


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--game", default=None, help="a registered game with a view bot (default: the default game)")
    p.add_argument("--tables", type=int, default=25, help="digital tables of four (1-100)")
    p.add_argument("--profile", type=int, default=0, metavar="N", help="print cProfile's N costliest functions")
    p.add_argument("--sort", default="cumulative", choices=("cumulative", "tottime"), help="cProfile's order")
    p.add_argument("--compare-json", action="store_true",
                   help="alternate moves between orjson (common.jsoncodec) and the standard library for JSON columns")
    args = p.parse_args(argv)
    if not 1 <= args.tables <= 100:
        p.error("--tables 1..100")
    from games import all_games, default_slug, get_game
    from games.simulate import hook_for

    playable = [g.slug for g in all_games() if hook_for(g).view_bot is not None]
    game = args.game or default_slug()
    if game not in playable:
        p.error(f"--game: {game!r} has no bot that plays from a view; one of {', '.join(playable)}")
    db = ThrowawayDatabase(None, prefix="profile_moves")
    try:
        setup_django(None, db.tmp)
        from django.conf import settings
        from django.contrib.auth import get_user_model

        from drive import services
        from common.jsoncodec import Decoder, Encoder, JSONField
        from drive.models import Drive
        from tables import digital
        from tables.models import TableHand

        bot = hook_for(get_game(game)).view_bot
        settings.LIVE_RENDER_PROCESS = False  # the drive's full updates are built in this process
        serving_loop()
        user = get_user_model().objects.create_user(username="bench", password="bench-password-1")
        drive = Drive.objects.create(organiser=user, name="Bench", game=game, play_mode="digital",
                                     preferred_table_size=4, target="hands", target_hands=50)
        services.add_players(drive, [f"P{i:03d}" for i in range(1, 4 * args.tables + 1)])
        services.draw_seating(drive, random.Random(1))
        services.start_hand(drive)
        hand = drive.hands.get(number=1)
        tables = [(t.pk, [s.player_id for s in t.seats.order_by("position")]) for t in hand.tables.order_by("number")]
        rng = random.Random(3)
        moves: list[float] = []
        ends: list[float] = []
        codecs = {"orjson": [], "the standard library": []}  # --compare-json: CPU ms a move, by codec
        json_fields = [f for f in TableHand._meta.get_fields() if isinstance(f, JSONField)]
        profiler = cProfile.Profile() if args.profile else None
        for table_id, players in tables:
            for _ in range(2000):  # a hand ends long before (the engines end every hand)
                table = TableHand.objects.get(pk=table_id)
                state = digital.load_state(table)
                if state.finished:
                    break
                chosen = None
                for seat in rng.sample(range(len(players)), len(players)):
                    action = bot(digital.view_with_basis(state, seat), rng)
                    if action is not None:
                        chosen = seat, action
                        break
                if chosen is None:
                    break
                seat, action = chosen
                message = {**action, "version": table.version, "key": f"k{rng.getrandbits(64):x}"}
                codec = "orjson" if len(moves) % 2 == 0 or not args.compare_json else "the standard library"
                for field in json_fields:  # the field's public options; None: Django's default (json)
                    field.encoder, field.decoder = (Encoder, Decoder) if codec == "orjson" else (None, None)
                started = time.process_time()
                if profiler:
                    profiler.enable()
                applied = digital.apply_action(table_id, seat, message, player_id=players[seat])
                if profiler:
                    profiler.disable()
                (ends if applied.finished else moves).append((time.process_time() - started) * 1000)
                if not applied.finished:
                    codecs[codec].append(moves[-1])
        print(f"{game}: {len(moves)} moves, CPU ms a move: median {statistics.median(moves):.2f}, "
              f"p95 {percentile(moves, 95):.2f}; {len(ends)} moves that end a hand: median "
              f"{statistics.median(ends) if ends else 0:.2f}")
        if args.compare_json:
            print("JSON columns by " + "; by ".join(f"{name}: median {statistics.median(ms):.2f} ms a move ({len(ms)} moves)"
                                                   for name, ms in codecs.items() if ms))
        if profiler:
            pstats.Stats(profiler).sort_stats(args.sort).print_stats(args.profile)
        from drive import live

        live.wait_idle(60)  # the drive's updates the results asked for, built before the database goes
    finally:
        from django.db import connections

        connections.close_all()
        db.drop()


if __name__ == "__main__":
    main()
