"""Load benchmark of the live updates through real daphne servers: the `hall` and `hand_end` scenarios.

    python bench/hall.py --layer memory              # SQLite + in-memory layer, one daphne
    python bench/hall.py --layer redis --processes 2 # PostgreSQL + Redis, two daphnes

A drive of 200 players at 50 tables (built through the services in a throwaway database: a
SQLite file, or a fresh PostgreSQL database on the server of BENCH_DATABASE_URL, default
postgres://postgres@127.0.0.1:5432/postgres, dropped at the end; Redis database 5 of
BENCH_REDIS_URL, flushed first). Then, against real daphne processes (DEBUG=0, bench.settings):
200 phone sockets (each with its player cookie; in a client process of their own,
bench/listeners.py, as the phones are devices of their own), 4 board and 4 dashboard sockets (the
organiser's session cookie), spread round-robin over the processes. For each of ``--hands`` hands:

- ``hall``: one phone at each of the 50 tables POSTs its table's result to /<CODE>/enter
  (HTTP, CSRF, like a phone), all within ``--spread`` seconds. Measured, per result: from the
  result's commit (its first ``on_commit`` callback, recorded by bench/routes.py) to the
  moment the LAST of the 8 boards and dashboards has received the result's own message
  (``drive.live.table_changed``; client receive time; same machine, same clock
  ``time.time_ns()``). ``full_update``: the same to the first full update built after it.
- ``hand_end``: the organiser POSTs /drives/<id>/close (force=1: entered results are accepted).
  Measured, per phone: from the close's commit to that phone holding its movement instruction:
  the close's own instruction message (``drive.live.hand_moved``, sent at the commit) or its
  fragment with ``data-instruction`` in the full update, whichever arrives first (each must
  arrive: a missing one is an error or a lost message). ``full_update``: the same to the
  fragment alone. ``all_ms``: until the last of the 200.
  Then the organiser starts the next hand.

The floor (same run, same servers and layer, the drive's sockets still open): a bare
``group_send`` through the bench route /bench/floor, to 8 listeners with a payload the size of
the board/dashboard updates (``hall``), and to 200 listeners with 200 parts the size of the
phones' update (``hand_end``), measured from the send's stamp to the listeners the same way.

``--tables 250``: 1,000 phones, as two drives of 125 tables (a drive holds at most 500 players)
run side by side in the same servers, each with its own 4 boards and 4 dashboards (8 and 8 in
all) and its phones in a listener process of its own; each drive's results and closes are
measured as above, the figures over both. The entries also give the servers' peak resident
memory (``server_peak_rss_mb``, VmHWM) and the load average before and after.

Prints one JSON object {"entries": [...]} (``--json PATH`` also writes it). ``HALL_RAW=PATH`` also
writes every result's commit, send and receive times and the servers' publishes there.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import time
import traceback
from collections import defaultdict

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from bench import common  # noqa: E402
from bench.drive_setup import MAX_TABLES_PER_DRIVE, build_drives, setup_django  # noqa: E402
from bench.hall_drive import ServerLog, first_recv, run_drive, send_audience  # noqa: E402



def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    common.add_layer_arguments(p)
    p.add_argument("--tables", type=int, default=50,
                   help="tables of four (up to 250: 1,000 phones; over 125, drives of at most 125 side by side)")
    p.add_argument("--drive-tables", type=int, default=MAX_TABLES_PER_DRIVE,
                   help="at most this many tables a drive (default 125, a drive's 500 players)")
    p.add_argument("--hands", type=int, default=3)
    p.add_argument("--spread", type=float, default=5.0, help="seconds over which the 50 results arrive")
    p.add_argument("--floor-sends", type=int, default=100, help="floor sends (hall; a quarter as many for hand_end, each to 200 listeners)")
    p.add_argument("--json", metavar="PATH")
    args = p.parse_args(argv)
    common.layer_processes(p, args)
    if not (1 <= args.tables <= 250 and 1 <= args.hands <= 10 and 1 <= args.processes <= 4
            and 1 <= args.drive_tables <= MAX_TABLES_PER_DRIVE):
        p.error(f"--tables 1..250, --hands 1..10, --processes 1..4, --drive-tables 1..{MAX_TABLES_PER_DRIVE}")
    return args


# --- the run against the servers -------------------------------------------------------------------


async def run(args, infos: list[dict], servers: common.Servers) -> dict:
    """Every drive's hands side by side (bench/hall_drive.py), then the floors, once, with the
    drives' sockets still open; the figures over every drive's samples."""
    log = ServerLog(servers)
    load_before = common.load_average()
    runs = await asyncio.gather(*(run_drive(args, info, servers, log, label=f"d{i}-" if len(infos) > 1 else "")
                                  for i, info in enumerate(infos)))

    def merged(key: str) -> list:
        return [x for r in runs for x in r[key]]

    errors = merged("errors")
    screens_per_drive = len(runs[0]["screens"])
    phones_per_drive = max(len(r["phones"]) for r in runs)
    everyone = merged("everyone")
    hall_samples, hall_stamp_samples, full_samples = merged("hall"), merged("hall_stamp"), merged("full")
    end_samples, end_all, end_full, post_ms = merged("end"), merged("end_all"), merged("end_full"), merged("post_ms")
    delta_bytes, raw_results = merged("delta_bytes"), merged("raw_results")
    result_records, close_records = merged("result_records"), merged("close_records")
    publishes_per_hand = [r["publishes_per_hand"] for r in runs] if len(runs) > 1 else runs[0]["publishes_per_hand"]
    lost = sum(r["lost"] for r in runs)
    phases = {k: max(r["phases"][k] for r in runs) for k in runs[0]["phases"]}
    rss_mb = {f"server-{i}": common.peak_rss_mb(proc.pid) for i, proc in enumerate(servers.procs)}
    # --- floors --------------------------------------------------------------------------------
    t = time.monotonic()
    screen_bytes = [s["bytes"] for r in result_records for s in r["sends"] if send_audience(s) != "phones"]
    phone_bytes = [s["bytes"] for r in close_records for s in r["sends"] if send_audience(s) == "phones"]
    # The hall's floor: a bare group_send of the result message's size to the 8 screens.
    hall_floor = await floor(servers, "floor-hall", screens_per_drive, 1, int(statistics.mean(delta_bytes or [600])),
                             args.floor_sends, per_listener=False, errors=errors)
    # Each phone's fragment goes to its own group (drive.live.phone_messages), as does its
    # movement instruction (drive.broadcast.send_instructions): the floor sends one message of
    # the same size to each listener's own group, in one batch, the same way.
    part = statistics.mean(phone_bytes or [1000])
    phases["hall_floor_s"] = round(time.monotonic() - t, 2)
    t = time.monotonic()
    end_floor = await floor(servers, "floor-phones", phones_per_drive, phones_per_drive, int(part),
                            max(5, args.floor_sends // 4), per_listener=True, per_key=True, errors=errors)
    phases["hand_end_floor_s"] = round(time.monotonic() - t, 2)

    for r in runs:
        await r["close"]()
        errors += [e for e in r["errors"] if e not in errors]
    if lost:
        errors.append(f"{lost} messages lost (published to a socket's group, never received)")

    base = {"layer": args.layer, "processes": args.processes}
    hall = {
        "scenario": "hall", **base, "clients": len(everyone), **common.summary(hall_samples),
        "floor_p95_ms": hall_floor["p95_ms"], "errors": errors,
        "measure": "per result: its commit (server) -> the last of the 4 boards and 4 dashboards receiving the "
                   "result's own message (drive.live.table_changed, sent at the commit; client)",
        "full_update": {**common.summary(full_samples),
                        "measure": "commit -> the last screen receiving the first full update built after it"},
        "results_sent": sum(r["results_sent"] for r in runs), "publishes_per_hand": publishes_per_hand,
        "drives": len(runs), "tables": args.tables, "server_peak_rss_mb": rss_mb,
        "load_average": {"before": load_before, "after": common.load_average()},
        "from_stamp": common.summary(hall_stamp_samples), "floor": hall_floor,
        "post_enter_ms": common.summary(post_ms),
        "payload_bytes": {"board_dashboard_mean": int(statistics.mean(screen_bytes)) if screen_bytes else None,
                          "result_message_mean": int(statistics.mean(delta_bytes)) if delta_bytes else None},
        "server_ms": breakdown(result_records), "connect_s": phases.get("connect_s"), "phases": phases,
    }
    end = {
        "scenario": "hand_end", **base, "clients": len(everyone), **common.summary(end_samples),
        "floor_p95_ms": end_floor["p95_ms"], "errors": errors,
        "measure": "per phone: the close's commit (server) -> that phone holding its movement instruction "
                   "(client): the close's instruction message (sent at the commit) or its fragment with "
                   "data-instruction in the full update, whichever arrives first",
        "all_phones_ms": common.summary(end_all), "floor": end_floor,
        "full_update": {**common.summary(end_full),
                        "measure": "commit -> that phone receiving its full fragment with data-instruction"},
        "payload_bytes": {"phone_fragment": int(statistics.mean(phone_bytes)) if phone_bytes else None},
        "server_ms": breakdown(close_records),
    }
    if os.environ.get("HALL_RAW"):  # every result's times and the servers' publishes, to look into
        with open(os.environ["HALL_RAW"], "w") as f:
            json.dump({"results": raw_results, "publishes": result_records,
                       "screens": {lst.name: lst.url for r in runs for lst in r["screens"]}}, f)
    return {"entries": [hall, end]}


def breakdown(records: list[dict]) -> dict:
    """Median milliseconds of each step of the servers' publishes (from bench/routes.py)."""
    steps: dict[str, list[float]] = defaultdict(list)
    for rec in records:
        seen: dict[str, float] = defaultdict(float)
        for name, ms in rec["steps"]:
            seen[name] += ms
        for name, ms in seen.items():
            steps[name].append(ms)
        for s in rec["sends"]:
            steps["group_send " + send_audience(s)].append((s["done_ns"] - s["call_ns"]) / 1e6)
            steps["start -> send " + send_audience(s)].append((s["call_ns"] - rec["start_ns"]) / 1e6)
        steps["publish total"].append((rec["end_ns"] - rec["start_ns"]) / 1e6)
    return {k: round(statistics.median(v), 2) for k, v in steps.items()}



async def floor(servers, group: str, listeners: int, parts: int, part_bytes: int, sends: int, *,
                per_listener: bool, errors: list[str], per_key: bool = False) -> dict:
    keys = [f"k{i}" for i in range(parts)]
    socks = [common.Listener(f"{group}-{i}", common.ws_url(servers.url(i), f"/ws/bench/floor/{group}/{keys[i % parts]}/"))
             for i in range(listeners)]
    errors += await common.connect_all(socks)
    samples = []
    for seq in range(1, sends + 1):
        body = json.dumps({"group": group, "keys": keys, "parts": parts, "part_bytes": part_bytes, "seq": seq,
                           "per_key": per_key}).encode()
        status, _h, resp = await asyncio.to_thread(common.http, "POST", servers.url(seq), "/bench/floor",
                                                   headers={"Content-Type": "application/json"}, body=body)
        if status != 200:
            errors.append(f"floor {group}: POST answered {status}")
            break
        stamp = json.loads(resp)["stamp"]
        await common.wait_until(lambda: all(first_recv(s, stamp) for s in socks), 20)
        times = [first_recv(s, stamp) for s in socks]
        if not all(times):
            errors.append(f"floor {group}: {sum(1 for x in times if not x)} listeners missed send {seq}")
        got = [(x - stamp) / 1e6 for x in times if x]
        if got:
            samples += got if per_listener else [max(got)]
        await asyncio.sleep(0.05)
    for s in socks:
        if s.error:
            errors.append(s.error)
    await asyncio.gather(*(s.close() for s in socks))
    return {"listeners": listeners, "parts": parts, "part_bytes": part_bytes, "sends": sends,
            "per": "listener" if per_listener else "send (last listener)", **common.summary(samples)}


def main(argv=None) -> dict:
    args = parse_args(argv)
    started = time.monotonic()
    with common.Run(args.layer, "bench_hall", f"hall-{args.layer}") as bench:
        db, redis_url = bench.db, bench.redis_url
        try:
            setup_django(db.url, db.tmp)
            infos = build_drives(args.tables, args.drive_tables)
            setup_s = time.monotonic() - started
            env = common.server_env(db.url, db.tmp, redis_url, CHANNEL_PREFIX=f"bench{os.getpid()}")
            t = time.monotonic()
            bench.servers = common.Servers(args.processes, env, db.tmp)
            servers_s = time.monotonic() - t
            out = asyncio.run(asyncio.wait_for(run(args, infos, bench.servers), 900))
            out["entries"][0]["phases"] = {"setup_s": round(setup_s, 2), "servers_start_s": round(servers_s, 2),
                                           **out["entries"][0]["phases"]}
            if redis_url:
                for e in out["entries"]:
                    e["redis_used_memory"] = common.redis_used_memory(redis_url)
        except Exception as exc:
            out = {"entries": [
                {"scenario": s, "layer": args.layer, "processes": args.processes, "clients": 0, "p50_ms": None,
                 "p95_ms": None, "p99_ms": None, "floor_p95_ms": None,
                 "errors": [f"{type(exc).__name__}: {exc}", traceback.format_exc()[-1500:]]}
                for s in ("hall", "hand_end")
            ]}
            if bench.servers is not None:
                for i in range(len(bench.servers.urls)):
                    try:
                        out["entries"][0]["errors"].append(open(os.path.join(db.tmp, f"daphne-{i}.log")).read()[-2000:])
                    except OSError:
                        pass
    return common.report(out, started, args.json)


if __name__ == "__main__":
    main()
