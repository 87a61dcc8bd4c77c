"""Load benchmark of results entered from phones: the `entry_burst` scenario.

    python bench/entry_burst.py --layer memory               # SQLite + in-memory layer, one daphne
    python bench/entry_burst.py --layer redis                # PostgreSQL + Redis, two daphnes

``--tables`` tables of four (1,000 players at 250: two drives of 125 tables, a drive holding at
most 500 players), each drive's first hand started, built through the services in a throwaway
database (as bench/hall.py). Then, against real daphne
processes (DEBUG=0, bench.settings), four POSTs per table, spread at random over ``--spread``
seconds (the requests of one table in the order below, each sent at its planned time):

- the entry: seat 0 POSTs its table's result to /<CODE>/enter (JSON, CSRF), a fresh client key;
- its repeat: the same form, the same key, sent at once beside it (a double tap, the phone's
  offline queue): both answered, one stored;
- a competing entry: seat 2 POSTs another result for the same table, its own key, beside them:
  one of the two entries is stored, the other is refused (``ok`` false) with a message naming who sent
  the table's result first;
- the confirmation: seat 1 POSTs /<CODE>/confirm for revision 1 once the entries are answered.

Measured, per POST: from the client sending it to the client holding its answer. Each must be
answered (no error, no time-out) with what it asked for; afterwards every table must hold
exactly one result, confirmed, with one score per player, and no client key twice.

The floor (same run, same servers): the same number of POSTs, spread the same way, to
/bench/write (bench/routes.py), a view that makes one write (one player's row updated) through
the path the application's writes take (``common.db.write_sync``).

Prints one JSON object {"entries": [...]} (``--json PATH`` also writes it).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import secrets
import sys
import time
import uuid
from concurrent.futures import ThreadPoolExecutor

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from bench import common  # noqa: E402
from bench.drive_setup import PHONES_PER_TABLE, build_drives, current_tables, setup_django  # noqa: E402

CLIENT_THREADS = 96  # requests in flight at once from this process, at most


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    common.add_layer_arguments(p)
    p.add_argument("--tables", type=int, default=250, help="tables of four (four POSTs each; default 250: 1,000)")
    p.add_argument("--spread", type=float, default=10.0, help="seconds over which the POSTs are sent")
    p.add_argument("--json", metavar="PATH")
    args = p.parse_args(argv)
    common.layer_processes(p, args)
    if not (1 <= args.tables <= 500 and 1 <= args.processes <= 4 and 0 < args.spread <= 60):
        p.error("--tables 1..500, --processes 1..4, --spread 0..60")
    return args


def entry_form(number: int, seated: list[int], by: int, rng: random.Random) -> dict:
    """A phone's entry form for table ``number`` (the bench's default game), shown to ``by``."""
    declarer = rng.randrange(len(seated))
    data = {"client_key": uuid.uuid4().hex, "seen_revision": "0", "declarer": str(declarer), "nine_card": "False",
            "dealer": "0", "hand": "1", "table": str(number), "player": str(by)}
    for i in range(len(seated)):
        data[f"seat{i}_sets"] = str(rng.choice([0, 0, 1]) if i != declarer else 0)
        data[f"seat{i}_ice"] = "none"
    return data


def phone(info: dict, player: int) -> common.Browser:
    """A phone's cookies: its player's, and a CSRF cookie of its own (its token sent with each POST)."""
    return common.Browser({info["cookie"]: info["tokens"][player], "csrftoken": secrets.token_hex(16)})


async def run(args, drives: list[dict], servers: common.Servers) -> dict:
    errors: list[str] = []
    rng = random.Random(27)
    pool = ThreadPoolExecutor(CLIENT_THREADS)
    loop = asyncio.get_running_loop()
    tables = [(info, number, seated) for info in drives
              for number, seated in await asyncio.to_thread(current_tables, info["drive_id"])]

    async def post(browser: common.Browser, base: str, path: str, data: dict, accept: str) -> tuple[int, bytes, float]:
        t0 = time.perf_counter()
        try:
            status, body = await loop.run_in_executor(pool, lambda: browser.request("POST", base, path, data, accept,
                                                                                  timeout=60))
        except OSError as exc:
            return 0, str(exc).encode(), (time.perf_counter() - t0) * 1000
        return status, body, (time.perf_counter() - t0) * 1000

    # --- the application: four POSTs a table -----------------------------------------------------
    samples: list[float] = []
    outcomes = {"stored": 0, "repeated": 0, "refused_competing": 0, "confirmed": 0}

    async def one_table(k: int, info: dict, number: int, seated: list[int], at: float, start: float) -> None:
        base, code = servers.url(k), info["code"]
        first, confirmer, rival = seated[0], seated[1], seated[2]
        form = entry_form(number, seated, first, rng)
        rival_form = {**entry_form(number, seated, rival, rng), "player": str(rival)}
        await asyncio.sleep(max(0.0, start + at - time.monotonic()))
        entering, rival_phone = phone(info, first), phone(info, rival)
        answers = await asyncio.gather(
            post(entering, base, f"/{code}/enter", form, "application/json"),
            post(phone(info, first), servers.url(k + 1), f"/{code}/enter", form, "application/json"),
            post(rival_phone, base, f"/{code}/enter", rival_form, "application/json"),
        )
        ok = 0
        for status, body, ms in answers:
            samples.append(ms)
            try:
                answer = json.loads(body or b"{}")
            except ValueError:
                answer = {}
            if status == 200 and answer.get("ok"):
                ok += 1
                outcomes["repeated" if answer.get("repeated") else "stored"] += 1
            elif status == 200 and answer.get("ok") is False and "first" in str(answer.get("message", "")):
                outcomes["refused_competing"] += 1
            else:
                errors.append(f"table {number}: entry answered {status} {body[:160]!r}")
        if ok not in (1, 2):
            errors.append(f"table {number}: {ok} entries accepted of three (one stored and its repeat, or one)")
        shown = {"hand": "1", "table": str(number), "player": str(confirmer), "seen_revision": "1"}
        status, body, ms = await post(phone(info, confirmer), servers.url(k + 1), f"/{code}/confirm", shown, "text/html")
        samples.append(ms)
        if status != 302:
            errors.append(f"table {number}: confirmation answered {status} {body[:160]!r}")
        else:
            outcomes["confirmed"] += 1

    planned = sorted(rng.uniform(0, args.spread * 0.95) for _ in tables)
    order = list(range(len(tables)))
    rng.shuffle(order)
    cpu_before = [common.cpu_seconds(proc.pid) for proc in servers.procs]
    load_before = common.load_average()
    t = time.monotonic()
    start = time.monotonic() + 0.2
    await asyncio.wait_for(asyncio.gather(*(one_table(k, *tables[j], planned[k], start)
                                            for k, j in enumerate(order))), args.spread + 180)
    burst_s = time.monotonic() - t
    cpu_after = [common.cpu_seconds(proc.pid) for proc in servers.procs]
    cpu = {part: round(sum(a[part] - b[part] for a, b in zip(cpu_after, cpu_before)), 2) for part in ("server", "children")}
    for info in drives:
        errors += await asyncio.to_thread(check_stored, info["drive_id"], sum(1 for t in tables if t[0] is info))

    # --- the floor: as many bare POSTs, one write each, spread the same way -----------------------
    floor_samples: list[float] = []
    browser = common.Browser()

    players = sorted(pid for info in drives for pid in info["tokens"])

    async def one_write(i: int, at: float, start: float) -> None:
        await asyncio.sleep(max(0.0, start + at - time.monotonic()))
        player = players[i % len(players)]
        status, body, ms = await post(browser, servers.url(i), "/bench/write", {"player": str(player)},
                                      "application/json")
        floor_samples.append(ms)
        if status != 200:
            errors.append(f"floor: /bench/write answered {status} {body[:160]!r}")

    n = len(samples)
    floor_at = sorted(rng.uniform(0, args.spread * 0.95) for _ in range(n))
    t = time.monotonic()
    start = time.monotonic() + 0.2
    await asyncio.wait_for(asyncio.gather(*(one_write(i, at, start) for i, at in enumerate(floor_at))),
                           args.spread + 180)
    floor_s = time.monotonic() - t
    pool.shutdown(wait=False)
    return {"entries": [{
        "scenario": "entry_burst", "layer": args.layer, "processes": args.processes, "clients": n,
        **common.summary(samples), "floor_p95_ms": common.summary(floor_samples)["p95_ms"], "errors": errors,
        "measure": "per POST (entry, its repeat, a competing entry, the confirmation): sent -> answered (client)",
        "posts": n, "tables": len(tables), "drives": len(drives), "outcomes": outcomes, "spread_s": args.spread,
        "floor": {**common.summary(floor_samples), "measure": "POST /bench/write (one write): sent -> answered"},
        "phases": {"burst_s": round(burst_s, 2), "floor_s": round(floor_s, 2)},
        "server_cpu_s": cpu, "server_cpu_ms_per_post": round(1000 * cpu["server"] / max(1, n), 2),
        "load_average": {"before": load_before, "after": common.load_average()},
    }]}


def check_stored(drive_id: int, tables: int) -> list[str]:
    """Every table's result stored once, confirmed, one score per player; no client key twice."""
    from django.db import connections
    from django.db.models import Count

    from scoring.models import Result, Score

    errors = []
    results = Result.objects.filter(drive_id=drive_id)
    if results.count() != tables:
        errors.append(f"{results.count()} results stored for {tables} tables")
    per_table = results.values("table_id").annotate(n=Count("id")).filter(n__gt=1).count()
    if per_table:
        errors.append(f"{per_table} tables hold more than one result")
    unconfirmed = results.exclude(status=Result.Status.CONFIRMED).count()
    if unconfirmed:
        errors.append(f"{unconfirmed} results not confirmed")
    keys = results.exclude(client_key=None).values("client_key").annotate(n=Count("id")).filter(n__gt=1).count()
    if keys:
        errors.append(f"{keys} client keys stored twice")
    scores = Score.objects.filter(drive_id=drive_id, counted=True).count()
    if scores != tables * PHONES_PER_TABLE:
        errors.append(f"{scores} counted scores for {tables * PHONES_PER_TABLE} players")
    connections.close_all()
    return errors


def main(argv=None) -> dict:
    args = parse_args(argv)
    started = time.monotonic()
    with common.Run(args.layer, "bench_entry", f"entry-{args.layer}") as bench:
        db = bench.db
        try:
            setup_django(db.url, db.tmp)
            drives = build_drives(args.tables)
            setup_s = time.monotonic() - started
            env = common.server_env(db.url, db.tmp, bench.redis_url, CHANNEL_PREFIX=f"bench{os.getpid()}")
            bench.servers = common.Servers(args.processes, env, db.tmp)
            out = asyncio.run(asyncio.wait_for(run(args, drives, bench.servers), 600))
            out["entries"][0]["phases"] = {"setup_s": round(setup_s, 2), **out["entries"][0]["phases"]}
        except Exception as exc:
            out = {"entries": [{"scenario": "entry_burst", "layer": args.layer, "processes": args.processes,
                                "clients": 0, "p50_ms": None, "p95_ms": None, "p99_ms": None, "floor_p95_ms": None,
                                "errors": [f"{type(exc).__name__}: {exc}"]}]}
    return common.report(out, started, args.json)


if __name__ == "__main__":
    main()
