"""The ``digital`` scenario: 25 digital tables of four playing at once through real daphnes.

    .venv/bin/python bench/digital.py [--game SLUG]        # in-memory layer, SQLite, one daphne
    REDIS_URL=redis://127.0.0.1:6379/5 DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres \
        .venv/bin/python bench/digital.py                  # Redis, a fresh PostgreSQL database, two daphnes

With two processes each table's seats alternate between them (as a proxy spreads phones), so
half of every table's phones hear of an action through Redis; the floor's listeners likewise.

Measures the time from an action being sent by a phone to all four phones at that table holding
the new state (a ``state`` frame at the new version), for every action of every table's hand.
Beside it, in the same run and through the same server and layer, the floor: a bare Channels
group_send to four listeners (the bench-only /ws/bench/echo-group/ route, bench/routes.py) of
frames as long as the views the phones received on average, half of its rounds before the play
and half after it. Play starts when every table's phones are connected and hold the deal.
The tables play ``--game`` (default: the default game; any registered game whose simulation hook
has a ``view_bot``, games/simulate.py). Each phone chooses its moves with that bot from its own
view only. A table plays its hand to the end, or for ``--play-seconds`` (45) at most: a long
hand is cut off there and counted as unfinished, so that ``make bench`` stays under ten minutes.
Appends a JSON entry to bench/results/digital.json. Only talks to 127.0.0.1.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import secrets
import signal
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request
import uuid
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.common import free_port, percentile  # noqa: E402
from games import GameError, all_games, default_slug, get_game  # noqa: E402
from games.simulate import hook_for  # noqa: E402

RESULTS = ROOT / "bench" / "results" / "digital.json"
MAX_ACTIONS = 400  # per table: a hand that has not ended by then is left (counted, not an error)
PLAY_SECONDS = 45.0  # and a table still playing then stops (a long hand must not stretch `make bench`)
FRAME_GUESS = 1850  # characters: a view's length, before the play has measured it (1,790-1,900 seen)

SETUP = """
import json, random
from django.core.management import call_command
call_command("migrate", verbosity=0, interactive=False)  # here: one start of Django fewer than its own command
from django.contrib.auth import get_user_model
from drive import services
from drive.models import Drive
user = get_user_model().objects.create_user(username="bench", password="bench-password-1")
drive = Drive.objects.create(organiser=user, name="Bench", game={game!r}, play_mode="digital",
                             preferred_table_size=4, target="hands", target_hands=50)
services.add_players(drive, ["P%03d" % i for i in range(1, {players} + 1)])
services.draw_seating(drive, random.Random(1))
from django.utils import timezone
drive.players.update(phone_joined_at=timezone.now())  # every player has joined on a phone
services.start_hand(drive)
hand = drive.hands.get(number=1)
tables = [[s.player.token for s in t.seats.select_related("player").order_by("position")]
          for t in hand.tables.order_by("number")]
print("BENCH" + json.dumps({{"code": drive.join_code, "tables": tables}}))
"""


# --- server ----------------------------------------------------------------------------------------


class Server:
    """A fresh database (SQLite in a temp dir, or a new PostgreSQL database), migrated, with one
    drive of ``tables`` digital tables of four, and ``processes`` daphne processes."""

    def __init__(self, tables: int, redis_url: str | None, pg_admin_url: str | None, processes: int = 1,
                 game: str = "") -> None:
        self.tmp = tempfile.mkdtemp(prefix="bench_digital_")
        self.pg_admin, self.pg_name = pg_admin_url, None
        env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL", "DJANGO_SETTINGS_MODULE")}
        env.update({"DATA_DIR": self.tmp, "DEBUG": "0", "SECRET_KEY": secrets.token_urlsafe(40),
                    "ALLOWED_HOSTS": "127.0.0.1,localhost", "DJANGO_SETTINGS_MODULE": "bench.settings",
                    "LOG_LEVEL": "WARNING"})
        if pg_admin_url:
            import psycopg

            self.pg_name = f"bench_digital_{secrets.token_hex(4)}"
            with psycopg.connect(pg_admin_url, autocommit=True, connect_timeout=10) as conn:
                conn.execute(f'CREATE DATABASE "{self.pg_name}"')
            parts = urlsplit(pg_admin_url)
            env["DATABASE_URL"] = urlunsplit((parts.scheme, parts.netloc, "/" + self.pg_name, parts.query, ""))
        if redis_url:
            env["REDIS_URL"] = redis_url
            env["CHANNEL_PREFIX"] = f"benchdigital{secrets.token_hex(3)}"
        self.env = env
        manage = [sys.executable, str(ROOT / "manage.py")]
        out = subprocess.run([*manage, "shell", "-c", SETUP.format(players=4 * tables, game=game or default_slug())], env=env, cwd=ROOT,
                             check=True, timeout=300, capture_output=True, text=True).stdout
        self.drive = json.loads(next(line for line in out.splitlines() if line.startswith("BENCH"))[5:])
        self.ports = [free_port() for _ in range(processes)]
        self.log = open(os.path.join(self.tmp, "daphne.log"), "w")
        self.procs = [
            subprocess.Popen(
                [sys.executable, "-m", "config.server", "-b", "127.0.0.1", "-p", str(port), "bench.asgi:application"],
                env=env, cwd=ROOT, stdout=self.log, stderr=subprocess.STDOUT,
            )
            for port in self.ports
        ]
        for port in self.ports:
            for _ in range(150):
                try:
                    urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=1)
                    break
                except OSError:
                    time.sleep(0.2)
            else:
                self.stop()
                raise SystemExit("daphne did not start")

    @property
    def bases(self) -> list[str]:
        return [f"ws://127.0.0.1:{port}" for port in self.ports]

    def stop(self) -> None:
        for proc in self.procs:
            proc.terminate()
        for proc in self.procs:
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()
        self.log.close()
        if self.pg_name:
            import psycopg

            with psycopg.connect(self.pg_admin, autocommit=True, connect_timeout=10) as conn:
                conn.execute(f'DROP DATABASE IF EXISTS "{self.pg_name}" WITH (FORCE)')
        if os.environ.get("KEEP_LOGS"):  # the servers' logs, to read after the run
            print(f"server logs kept in {self.tmp}", file=sys.stderr)
        else:
            shutil.rmtree(self.tmp, ignore_errors=True)


# --- clients ---------------------------------------------------------------------------------------


class Phone:
    """One websocket; remembers its latest view and wakes whoever waits for a version."""

    def __init__(self, ws, sizes: list[int] | None = None) -> None:
        self.ws, self.view, self.errors, self.sizes = ws, None, 0, sizes
        self.log: list = []
        self.changed = asyncio.Event()

    async def read(self) -> None:
        async for raw in self.ws:
            frame = json.loads(raw)
            if frame.get("type") == "state" and (self.view is None or frame["view"]["version"] >= self.view["version"]):
                view = frame["view"]
                # A view carries the newest part of the public log (from log_from): the phone's
                # bot remembers the whole of it, as the server's bots read it.
                start = view.get("log_from", 0)
                self.log = (self.log[:start] if start <= len(self.log) else []) + view["log"]
                view["log"] = self.log
                self.view = view
                if self.sizes is not None:
                    self.sizes.append(len(raw))
            elif frame.get("type") == "error":
                self.errors += 1
            self.changed.set()

    async def at_version(self, version: int, timeout: float = 30) -> None:
        deadline = time.perf_counter() + timeout
        while self.view is None or self.view["version"] < version:
            self.changed.clear()
            await asyncio.wait_for(self.changed.wait(), max(0.001, deadline - time.perf_counter()))


VIEW_BOT = None  # the game's bot playing from one seat's view (its simulation hook's view_bot)


def finished(view: dict) -> bool:
    return bool(view.get("finished")) or view.get("phase") == "finished"


async def connect(base: str, path: str, cookie: str | None = None):
    from websockets.asyncio.client import connect as ws_connect

    headers = {"Cookie": cookie} if cookie else {}
    return await ws_connect(base + path, origin=f"http://{urlsplit(base).netloc}", additional_headers=headers,
                            max_size=2**20, open_timeout=30)


RAW: list = []  # (seconds into the play, ms, action) of every sample, for --raw
RAW_T0 = time.perf_counter()
THINK = (0.25, 0.75)  # seconds a phone "thinks" before each action (0: back-to-back, saturating)


async def think(rng) -> None:
    lo, hi = THINK
    if hi > 0:
        await asyncio.sleep(rng.uniform(lo, hi))


async def play_table(bases: list[str], code: str, tokens: list[str], rng, samples: list[float], counts: dict,
                     sizes: list[int], start: "Start") -> None:
    # With several processes the seats alternate between them, as a proxy spreads the phones.
    phones = [Phone(await connect(bases[i % len(bases)], f"/ws/play/{code}/", f"ff_{code}={t}"), sizes)
              for i, t in enumerate(tokens)]
    readers = [asyncio.create_task(p.read()) for p in phones]
    try:
        for p in phones:
            await p.at_version(0)
        await start.ready()  # every table seated and shown its deal, as the floor's sockets are joined
        stop_at = time.perf_counter() + PLAY_SECONDS
        for _ in range(MAX_ACTIONS):
            if time.perf_counter() > stop_at:
                break
            version = max(p.view["version"] for p in phones)
            for p in phones:
                await p.at_version(version)
            if finished(phones[0].view):
                counts["hands"] += 1
                return
            move = None
            for seat in rng.sample(range(len(phones)), len(phones)):
                action = VIEW_BOT(phones[seat].view, rng)
                if action is not None:
                    move = seat, action
                    break
            if move is None:
                counts["stuck"] += 1
                return
            seat, action = move
            await think(rng)
            errors = phones[seat].errors
            started = time.perf_counter()
            await phones[seat].ws.send(json.dumps({**action, "version": version, "key": str(uuid.uuid4())}))
            try:
                for p in phones:
                    await p.at_version(version + 1, timeout=30)
            except asyncio.TimeoutError:
                counts["errors"] += 1 if phones[seat].errors == errors else 0
                counts["refused"] += phones[seat].errors - errors
                continue
            samples.append((time.perf_counter() - started) * 1000)
            RAW.append((round(started - RAW_T0, 3), round(samples[-1], 2), action["type"]))
        counts["unfinished"] += 1
    finally:
        for r in readers:
            r.cancel()
        for p in phones:
            await p.ws.close()


class Start:
    """Play begins when every table's four phones are connected and hold the deal: 100 sockets
    joining (each a database read) while other tables already play would time the joining, not
    the actions (the floor's sockets, likewise, are all connected before it sends)."""

    def __init__(self, tables: int) -> None:
        self.waiting, self.go = tables, asyncio.Event()

    async def ready(self) -> None:
        self.waiting -= 1
        if self.waiting <= 0:
            await asyncio.sleep(0.2)
            self.go.set()
        await self.go.wait()


async def floor_group(bases: list[str], name: str, rounds: int, samples: list[float], counts: dict,
                      size: int) -> None:
    """One sender and four listeners of a bench group: the time until all four hold each frame
    of ``size`` characters (spread over the processes as the phones are)."""
    sockets = [await connect(bases[i % len(bases)], f"/ws/bench/echo-group/{name}/") for i in range(4)]
    try:
        await asyncio.sleep(0.2)
        import random

        rng = random.Random(name)
        for i in range(rounds):
            await think(rng)
            started = time.perf_counter()
            await sockets[i % 4].send(json.dumps({"n": i, "pad": "x" * max(0, size - 30)}))
            try:
                for s in sockets:
                    while json.loads(await asyncio.wait_for(s.recv(), 30))["n"] != i:
                        pass
            except asyncio.TimeoutError:
                counts["errors"] += 1
                continue
            samples.append((time.perf_counter() - started) * 1000)
    finally:
        for s in sockets:
            await s.close()


async def run(bases: list[str], drive: dict, rounds: int) -> dict:
    import random

    floor: list[float] = []
    digital: list[float] = []
    counts = {"hands": 0, "unfinished": 0, "stuck": 0, "errors": 0, "refused": 0}
    floor_counts = {"errors": 0}
    tables = drive["tables"]
    sizes: list[int] = []
    # The floor is measured half before the play and half after it: this machine's speed moves
    # from one half-minute to the next (a virtual machine's neighbours), and a floor taken in
    # one window only would compare the play with whatever that window was.
    # Its frames are as long as a phone's view (measured by the play; the first half uses a
    # guess of that, FRAME_GUESS): what it leaves out is the server's own
    # work (the locked write, the views), not the bytes every phone must receive anyway.
    before = rounds // 2
    size = FRAME_GUESS
    phases, t = {}, time.perf_counter()  # where the run's time goes (make bench must stay under 5 min)
    await asyncio.gather(*(floor_group(bases, f"a{i}", before, floor, floor_counts, size) for i in range(len(tables))))
    phases["floor_before_s"], t = round(time.perf_counter() - t, 2), time.perf_counter()
    global RAW_T0
    RAW_T0 = time.perf_counter()
    start = Start(len(tables))
    await asyncio.gather(*(play_table(bases, drive["code"], tokens, random.Random(i), digital, counts, sizes, start)
                           for i, tokens in enumerate(tables)))
    size = round(sum(sizes) / len(sizes)) if sizes else size
    phases["play_s"], t = round(time.perf_counter() - t, 2), time.perf_counter()
    await asyncio.gather(*(floor_group(bases, f"b{i}", rounds - before, floor, floor_counts, size)
                           for i in range(len(tables))))
    phases["floor_after_s"] = round(time.perf_counter() - t, 2)
    return {"digital": digital, "floor": floor, "counts": counts, "floor_errors": floor_counts["errors"],
            "frame_chars": size, "phases": phases}


def main() -> None:
    global THINK, PLAY_SECONDS, VIEW_BOT
    # Stopped by `make bench` (its timeout): end through the finally below, which stops the
    # servers and drops the throwaway database.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default=None, help="the tables' game (default: the default game)")
    parser.add_argument("--tables", type=int, default=25)
    parser.add_argument("--floor-rounds", type=int, default=40)
    parser.add_argument("--play-seconds", type=float, default=PLAY_SECONDS,
                        help="a table still playing after this long stops (counted as unfinished)")
    parser.add_argument("--processes", type=int, default=None,
                        help="daphne processes (default: 1 on the in-memory layer, 2 on Redis)")
    parser.add_argument("--raw", help="write every action's (second of the play, ms, type) to this JSON file")
    parser.add_argument("--results", default=str(RESULTS), help="the JSON list this run's entry is appended to")
    parser.add_argument("--think", default="0.25,0.75",
                        help="seconds between a table's actions, 'lo,hi' (0: back-to-back, saturating)")
    args = parser.parse_args()
    if not 1 <= args.play_seconds <= 600 or not 1 <= args.floor_rounds <= 1000:
        parser.error("--play-seconds 1..600, --floor-rounds 1..1000")
    PLAY_SECONDS = args.play_seconds
    slug = args.game or default_slug()
    try:
        game = get_game(slug)
    except GameError:
        parser.error(f"unknown game {slug!r}; the registered games are: {', '.join(g.slug for g in all_games())}")
    if not game.min_players <= 4 <= game.max_players:
        parser.error(f"{game.name} is not played four at a table")
    VIEW_BOT = hook_for(game).view_bot
    if VIEW_BOT is None:
        parser.error(f"{game.name} has no bot that plays from a phone's view (its simulation hook's view_bot)")
    parts = [float(x) for x in args.think.split(",")]
    THINK = (parts[0], parts[-1])
    redis_url = os.environ.get("REDIS_URL")
    pg_url = os.environ.get("DATABASE_URL") if redis_url else None
    processes = args.processes or (2 if redis_url else 1)
    if processes < 1 or (processes > 1 and not redis_url):
        parser.error("--processes above 1 needs REDIS_URL (the in-memory layer is one process's)")
    t = time.perf_counter()
    server = Server(args.tables, redis_url, pg_url, processes, slug)
    setup_s = time.perf_counter() - t
    try:
        started = time.perf_counter()
        out = asyncio.run(run(server.bases, server.drive, args.floor_rounds))
        elapsed = time.perf_counter() - started
    finally:
        t = time.perf_counter()
        server.stop()
        stop_s = time.perf_counter() - t
    d, f, c = out["digital"], out["floor"], out["counts"]
    entry = {
        "scenario": "digital", "game": slug, "layer": "redis" if redis_url else "memory",
        "database": "postgres" if pg_url else "sqlite", "processes": processes, "clients": 4 * args.tables,
        "tables": args.tables, "actions": len(d), "hands_finished": c["hands"], "hands_unfinished": c["unfinished"],
        "p50_ms": percentile(d, 50), "p95_ms": percentile(d, 95), "p99_ms": percentile(d, 99),
        "floor_p50_ms": percentile(f, 50), "floor_p95_ms": percentile(f, 95), "floor_p99_ms": percentile(f, 99),
        "floor_samples": len(f), "floor_frame_chars": out["frame_chars"], "floor_frame_chars_before": FRAME_GUESS, "errors": c["errors"] + c["stuck"] + out["floor_errors"], "refused": c["refused"],
        "think_ms": [int(THINK[0] * 1000), int(THINK[1] * 1000)], "seconds": round(elapsed, 1), "date": time.strftime("%Y-%m-%d"),
        "phases": {"setup_s": round(setup_s, 2), **out["phases"], "stop_s": round(stop_s, 2)},
    }
    entry["p95_over_floor"] = round(entry["p95_ms"] / entry["floor_p95_ms"], 2) if d and f else None
    results = Path(args.results)
    results.parent.mkdir(parents=True, exist_ok=True)
    existing = json.loads(results.read_text()) if results.exists() else []
    results.write_text(json.dumps([*existing, entry], indent=2) + "\n")
    print(json.dumps(entry, indent=2))
    if args.raw:
        Path(args.raw).write_text(json.dumps(RAW))


if __name__ == "__main__":
    main()
