"""CPU and statements per POST of entry_burst's mix, in one process (no server, no network).

    python bench/profile_entry.py                  # 60 tables: 240 POSTs, CPU ms and statements per kind
    python bench/profile_entry.py --profile 30     # and cProfile's 30 costliest functions (cumulative)

A drive is built as bench/entry_burst.py builds it (``bench.drive_setup``, a throwaway SQLite
database); then, per table, the four POSTs of entry_burst one after the other through Django's
test client (the whole middleware, CSRF checked as a phone sends it): seat 0's entry to
``/<CODE>/enter`` (JSON), its repeat (the same client key), seat 2's competing entry (refused),
and seat 1's ``/<CODE>/confirm``. Per kind of POST: the process's CPU time (``time.process_time``,
every thread: the SQLite writer thread's transaction included) at the median, and the SQL
statements (both threads). What it leaves out: the ASGI server's own work (daphne, the event loop),
the result messages' sending at the commit, and the full updates' rendering (another process).
"""

from __future__ import annotations

import argparse
import cProfile
import logging
import os
import pstats
import random
import secrets
import statistics
import sys
import threading
import time
from urllib.parse import urlencode

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from bench.common import ThrowawayDatabase, serving_loop  # noqa: E402
from bench.drive_setup import build_drives, current_tables, setup_django  # noqa: E402
from bench.entry_burst import entry_form  # noqa: E402

KINDS = ("entry", "repeat", "competing", "confirm")


class Statements:
    """Counts the SQL statements run on the connections it is installed on (an execute wrapper)."""

    def __init__(self) -> None:
        self.count = 0
        self.shown: list[str] | None = None  # the statements themselves, when kept

    def __call__(self, execute, sql, params, many, context):
        self.count += 1
        if self.shown is not None:
            self.shown.append(f"[{threading.current_thread().name}] {sql}")
        return execute(sql, params, many, context)

    def install(self) -> None:
        from django.db import connection

        from common.db import write_sync

        connection.execute_wrappers.append(self)  # the request's thread
        write_sync(lambda: connection.execute_wrappers.append(self))  # the SQLite writer thread's


def posts(info: dict, tables: list[tuple[int, list[int]]], rng: random.Random):
    """entry_burst's four POSTs of each table: (kind, cookies, path, data, Accept)."""
    code = info["code"]
    for number, seated in tables:
        first, confirmer, rival = seated[0], seated[1], seated[2]
        form = entry_form(number, seated, first, rng)
        rival_form = {**entry_form(number, seated, rival, rng), "player": str(rival)}
        shown = {"hand": "1", "table": str(number), "player": str(confirmer), "seen_revision": "1"}
        yield "entry", first, f"/{code}/enter", form, "application/json"
        yield "repeat", first, f"/{code}/enter", form, "application/json"
        yield "competing", rival, f"/{code}/enter", rival_form, "application/json"
        yield "confirm", confirmer, f"/{code}/confirm", shown, "text/html"


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--tables", type=int, default=60, help="tables of four (four POSTs each)")
    p.add_argument("--profile", type=int, default=0, metavar="N", help="print cProfile's N costliest functions")
    p.add_argument("--kind", choices=KINDS, help="profile only this kind of POST")
    p.add_argument("--sql", action="store_true", help="print the first table's statements")
    p.add_argument("--sort", default="cumulative", help="cProfile's order (cumulative, tottime)")
    args = p.parse_args(argv)
    db = ThrowawayDatabase(None, prefix="profile_entry")
    try:
        setup_django(None, db.tmp)
        from django.conf import settings
        from django.test import Client

        from common.db import write_sync
        from drive import live

        logging.getLogger("django.request").setLevel(logging.ERROR)  # only a server error is worth a line here
        info = build_drives(args.tables)[0]
        # The full updates are left out (the render process builds them in a server): gathered
        # for an hour, then built once the POSTs are measured.
        settings.LIVE_RENDER_PROCESS = False
        settings.LIVE_GATHER_SECONDS = 3600
        serving_loop()
        tables = current_tables(info["drive_id"])
        statements = Statements()
        statements.install()
        client = Client(enforce_csrf_checks=True, HTTP_HOST="127.0.0.1")
        csrf = secrets.token_hex(16)
        cpu: dict[str, list[float]] = {k: [] for k in KINDS}
        counts: dict[str, list[int]] = {k: [] for k in KINDS}
        status: dict[str, dict[int, int]] = {k: {} for k in KINDS}
        # One profile in this thread (the request's), one in the SQLite writer thread.
        profiler, writer_profiler = (cProfile.Profile(), cProfile.Profile()) if args.profile else (None, None)
        if writer_profiler:
            write_sync(writer_profiler.enable)
        started = time.process_time()
        for kind, player, path, data, accept in posts(info, tables, random.Random(27)):
            client.cookies.clear()
            client.cookies[info["cookie"]] = info["tokens"][player]
            client.cookies["csrftoken"] = csrf
            statements.count = 0
            statements.shown = [] if args.sql and len(cpu["confirm"]) == 0 else None
            t = time.process_time()
            profiled = profiler is not None and args.kind in (None, kind)
            if profiled:
                profiler.enable()
            response = client.post(path, urlencode(data), content_type="application/x-www-form-urlencoded",
                                   headers={"accept": accept, "x-csrftoken": csrf})
            if profiled:
                profiler.disable()
            cpu[kind].append((time.process_time() - t) * 1000)
            counts[kind].append(statements.count)
            status[kind][response.status_code] = status[kind].get(response.status_code, 0) + 1
            if statements.shown is not None:
                print(f"{kind}: {response.status_code}", *statements.shown, sep="\n  ")
        total = (time.process_time() - started) * 1000
        if writer_profiler:
            write_sync(writer_profiler.disable)
        settings.LIVE_GATHER_SECONDS = 0
        live.drive_changed(info["drive_id"])  # not gathered: the waiting update is built now
        live.wait_idle(60)
        every = [ms for k in KINDS for ms in cpu[k]]
        print(f"{len(every)} POSTs, {args.tables} tables; CPU ms per POST (median), statements per POST (median):")
        for k in KINDS:
            print(f"  {k:10s} {statistics.median(cpu[k]):6.2f} ms  {statistics.median(counts[k]):4.0f} statements"
                  f"  answers {status[k]}")
        all_counts = [c for k in KINDS for c in counts[k]]
        print(f"  {'all':10s} {statistics.median(every):6.2f} ms (mean {statistics.fmean(every):.2f};"
              f" the whole run's CPU a POST {total / len(every):.2f}, the result messages' thread included)"
              f"  {statistics.fmean(all_counts):4.1f} statements (mean)")
        if profiler:
            print("The requests' thread:")
            pstats.Stats(profiler).sort_stats(args.sort).print_stats(args.profile)
            print("The SQLite writer thread:")
            pstats.Stats(writer_profiler).sort_stats(args.sort).print_stats(args.profile)
    finally:
        from django.db import connections

        connections.close_all()
        db.drop()


if __name__ == "__main__":
    main()
