"""Standings and dashboard benchmark: python bench/bench_standings.py [--json PATH]

Builds a big drive (400 players at 100 tables, 12 hands played and closed, the 13th hand's seating
shown) through the drive's services, in a throwaway database, then measures serving:

- the standings page ``/drives/<id>/standings`` (django.test.Client, signed-in organiser);
- the selector ``drive.selectors.standings(drive)`` alone;
- the organiser's dashboard ``/drives/<id>/``;
- the standings page once the drive has finished (frozen standings).

Median and p95 over ``--requests`` requests each (default 50) after a warm-up; target < 50 ms. Also the
median of the process's own CPU time (``cpu_median_ms``), which a busy machine inflates less.
Prints one JSON line; ``--json PATH`` also writes it to a file. Figures go to docs/benchmarks.md.

Database: a temporary SQLite file, unless DATABASE_URL is a PostgreSQL URL; then a throwaway
database ``bench_standings_<random>`` is created on that server, used, and dropped at the end
(the URL's own database is only used to run CREATE/DROP DATABASE). DEBUG is off (as in
production) unless DEBUG is set in the environment.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import random
import secrets
import shutil
import statistics
import sys
import tempfile
import time
from urllib.parse import urlsplit, urlunsplit

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

TARGET_MS = 50.0


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--json", metavar="PATH", help="also write the JSON figures to PATH")
    p.add_argument("--requests", type=int, default=50, help="timed requests per measure (default 50)")
    p.add_argument("--players", type=int, default=400, help="players in the drive (default 400: 100 tables of 4)")
    p.add_argument("--hands", type=int, default=12, help="hands played and closed (default 12)")
    args = p.parse_args(argv)
    if args.requests < 5:
        p.error("--requests must be at least 5")
    if not 2 <= args.players <= 500:
        p.error("--players must be from 2 to 500 (a drive holds at most 500)")
    if not 1 <= args.hands <= 150:
        p.error("--hands must be from 1 to 150")
    return args


# --- the database, chosen before Django starts ---------------------------------------------------


def _is_postgres(url: str) -> bool:
    return url.startswith(("postgres://", "postgresql://"))


def _with_dbname(url: str, name: str) -> str:
    parts = urlsplit(url)
    return urlunsplit((parts.scheme, parts.netloc, "/" + name, parts.query, parts.fragment))


class ThrowawayDatabase:
    """A temporary SQLite file, or a temporary database on the PostgreSQL server of DATABASE_URL."""

    def __init__(self) -> None:
        self.tmp = tempfile.mkdtemp(prefix="bench_standings_")
        self.admin_url = os.environ.get("DATABASE_URL", "")
        self.pg_name: str | None = None
        if _is_postgres(self.admin_url):
            import psycopg

            self.pg_name = f"bench_standings_{secrets.token_hex(4)}"
            with psycopg.connect(self.admin_url, autocommit=True) as conn:
                conn.execute(f'CREATE DATABASE "{self.pg_name}"')
            self.url = _with_dbname(self.admin_url, self.pg_name)
        else:
            self.url = f"sqlite:///{os.path.join(self.tmp, 'bench.sqlite3')}"
        os.environ["DATABASE_URL"] = self.url
        os.environ["DATA_DIR"] = self.tmp  # secret key, static root: nothing written to data/

    def drop(self) -> None:
        if self.pg_name:
            import psycopg

            with psycopg.connect(self.admin_url, autocommit=True) as conn:
                conn.execute(f'DROP DATABASE IF EXISTS "{self.pg_name}" WITH (FORCE)')
        shutil.rmtree(self.tmp, ignore_errors=True)


# --- measuring -------------------------------------------------------------------------------------


def timed(fn, n: int, warmup: int = 5) -> dict:
    for _ in range(warmup):
        fn()
    samples, cpu = [], []
    clock, cpu_clock = time.perf_counter, time.process_time
    for _ in range(n):
        t, c = clock(), cpu_clock()
        fn()
        samples.append((clock() - t) * 1000)
        cpu.append((cpu_clock() - c) * 1000)
    samples.sort()
    return {
        "median_ms": round(statistics.median(samples), 2),
        "p95_ms": round(statistics.quantiles(samples, n=100, method="inclusive")[94], 2),
        "min_ms": round(samples[0], 2),
        "max_ms": round(samples[-1], 2),
        # This process's CPU time alone: on a machine shared with other work, the wall time also
        # counts the waits for a core (a PostgreSQL server's own time is not in it).
        "cpu_median_ms": round(statistics.median(cpu), 2),
        "n": n,
    }


class QueryCounter:
    """Counts the SQL statements run on the default connection (works across test-client requests,
    which reset ``connection.queries`` when they start)."""

    def __enter__(self) -> "QueryCounter":
        from django.db import connection

        self.count = 0

        def wrapper(execute, sql, params, many, context):
            self.count += 1
            return execute(sql, params, many, context)

        self._cm = connection.execute_wrapper(wrapper)
        self._cm.__enter__()
        return self

    def __exit__(self, *exc) -> None:
        self._cm.__exit__(*exc)


def measure_page(client, url: str, n: int) -> dict:
    try:
        with QueryCounter() as queries:
            response = client.get(url)
    except Exception as exc:  # a page broken in the working tree: report it, measure the rest
        print(f"GET {url} failed: {exc!r}", file=sys.stderr)
        return {"error": f"{type(exc).__name__}: {exc}"}
    if response.status_code != 200:
        return {"error": f"GET {url} answered {response.status_code}"}

    def get():
        r = client.get(url)
        assert r.status_code == 200

    figures = timed(get, n)
    figures.update(queries=queries.count, bytes=len(response.content))
    return figures


def measure_selector(drive, n: int) -> dict:
    from drive import selectors

    with QueryCounter() as queries:
        rows = selectors.standings(drive)
    figures = timed(lambda: selectors.standings(drive), n)
    figures.update(queries=queries.count, rows=len(rows))
    return figures


# --- building the drive through the services ------------------------------------------------------


def quiet_live_updates():
    """While building: no live push after each commit (nobody listens; the rows are the same).

    The services call ``drive.live.drive_changed`` (when that module exists) to schedule a push of
    the board, dashboard and phones after commit; rendering those is not what is measured here.
    """
    import contextlib
    from unittest import mock

    try:
        import drive.live  # noqa: F401
    except ImportError:
        return contextlib.nullcontext()
    return mock.patch("drive.live.drive_changed", lambda drive_id, **kwargs: None)



def build_drive(organiser, players: int, hands: int, seed: int = 20261130):
    """A drive as the services write it: names added, seating drawn, every hand's results entered
    by the organiser (each a hand played by the bots: valid, varied summaries) and each hand closed. One transaction per hand
    keeps SQLite from syncing the disk 1,200 times; the rows are the same."""
    from django.db import transaction

    from drive import selectors, services
    from drive.management.commands.demo_drive import bot_played_summary, demo_names
    from drive.models import Drive
    from games import get_game

    rng = random.Random(seed)
    game = get_game("film-fantasy")
    with transaction.atomic():
        drive = Drive.objects.create(
            name="Benchmark drive", organiser=organiser, target=Drive.Target.EITHER,
            target_hands=hands + 1, target_total=10000, preferred_table_size=4, seed=seed,
        )
        services.add_players(drive, demo_names(players, rng))
        services.draw_seating(drive, random.Random(seed))
    for _ in range(hands):
        with transaction.atomic():
            hand = services.start_hand(drive)
            for table in hand.tables.order_by("number"):
                summary = bot_played_summary(game, table.seats.count(), rng)
                services.organiser_result(drive, table, summary, organiser)
            if services.close_hand(drive) is None:
                raise SystemExit("the benchmark drive finished early: raise its target")
    drive.refresh_from_db()
    assert selectors.current_hand(drive).number == hands + 1
    return drive


# --- machine -------------------------------------------------------------------------------------


def machine(db_vendor: str) -> dict:
    import sqlite3

    import django
    from django.db import connection

    mem_gib = None
    try:
        with open("/proc/meminfo") as f:
            kib = int(next(line for line in f if line.startswith("MemTotal")).split()[1])
        mem_gib = round(kib / 1024 / 1024, 1)
    except (OSError, StopIteration, ValueError):
        pass
    info = {
        "cores": os.cpu_count(),
        "memory_gib": mem_gib,
        "python": platform.python_version(),
        "django": django.get_version(),
        "sqlite": sqlite3.sqlite_version,
        "database": db_vendor,
        "debug": None,
    }
    if db_vendor == "postgresql":
        with connection.cursor() as cur:
            cur.execute("SHOW server_version")
            info["postgresql"] = cur.fetchone()[0]
    return info


def main(argv: list[str] | None = None) -> dict:
    args = parse_args(argv)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    os.environ.setdefault("DEBUG", "0")
    os.environ.setdefault("SECRET_KEY", "bench-" + secrets.token_urlsafe(40))
    db = ThrowawayDatabase()
    try:
        return run(args, db)
    finally:
        from django.db import connections

        for conn in connections.all():
            conn.close()
            if hasattr(conn, "close_pool"):
                conn.close_pool()
        db.drop()


def run(args: argparse.Namespace, db: ThrowawayDatabase) -> dict:
    import django

    django.setup()
    from django.conf import settings
    from django.contrib.auth import get_user_model
    from django.core.management import call_command
    from django.db import connection
    from django.test import Client
    from django.test.utils import setup_test_environment

    from drive import services

    setup_test_environment()  # lets the test client's "testserver" host through ALLOWED_HOSTS
    call_command("migrate", verbosity=0, interactive=False)

    organiser = get_user_model().objects.create_user(username="organiser", password="bench-pass-123456")
    t = time.perf_counter()
    with quiet_live_updates():
        drive = build_drive(organiser, args.players, args.hands)
    build_s = time.perf_counter() - t
    tables = drive.hands.get(number=1).tables.count()
    from config import gc_tuning

    gc_tuning.apply()  # as the server does once loaded (config/asgi.py): its collector's settings

    client = Client()
    client.force_login(organiser)
    n = args.requests
    load_before = os.getloadavg()[0]  # how busy the machine was (others' work too), said with the figures
    figures = {
        "standings_page": measure_page(client, f"/drives/{drive.pk}/standings", n),
        "standings_selector": measure_selector(drive, n),
        "dashboard_page": measure_page(client, f"/drives/{drive.pk}/", n),
    }
    with quiet_live_updates():
        services.end_drive(drive)
    drive.refresh_from_db()
    figures["standings_page_finished"] = measure_page(client, f"/drives/{drive.pk}/standings", n)

    info = machine(connection.vendor)
    info["debug"] = settings.DEBUG
    info["gc"] = "config.gc_tuning, as the server"
    info["load_average"] = {"before": round(load_before, 2), "after": round(os.getloadavg()[0], 2)}
    result = {
        "bench": "standings",
        "date": datetime.date.today().isoformat(),
        "drive": {"players": args.players, "tables": tables, "hands_closed": args.hands,
                  "scores": drive.scores.count()},
        "build_seconds": round(build_s, 1),
        "target_ms": TARGET_MS,
        "figures": figures,
        "within_target": {k: f["p95_ms"] < TARGET_MS for k, f in figures.items() if "p95_ms" in f},
        "machine": info,
    }
    line = json.dumps(result, sort_keys=False)
    print(line)
    if args.json:
        with open(args.json, "w") as f:
            f.write(line + "\n")
    return result


if __name__ == "__main__":
    main()
