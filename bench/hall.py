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
  result's commit (its first ``on_commit`` callback, recorded by config/bench_routes.py) to the
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

Prints one JSON object {"entries": [...]} (``--json PATH`` also writes it). ``HALL_RAW=PATH`` also
writes every result's commit, send and receive times and the servers' publishes there.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import signal
import statistics
import sys
import time
import uuid
from collections import defaultdict

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from bench import common  # noqa: E402
from bench.drive_setup import PHONES_PER_TABLE, build_drive, current_tables, setup_django  # noqa: E402,F401
from bench.listeners import ListenerProcess  # noqa: E402

BOARDS = 4
DASHBOARDS = 4
WAIT = 30.0  # seconds: the longest any one wait for messages may take


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--layer", choices=["memory", "redis"], default="memory")
    p.add_argument("--processes", type=int, default=None, help="daphne processes (memory: 1; redis: 2)")
    p.add_argument("--tables", type=int, default=50)
    p.add_argument("--hands", type=int, default=3)
    p.add_argument("--spread", type=float, default=5.0, help="seconds over which the 50 results arrive")
    p.add_argument("--floor-sends", type=int, default=100, help="floor sends (hall; a quarter as many for hand_end, each to 200 listeners)")
    p.add_argument("--json", metavar="PATH")
    args = p.parse_args(argv)
    args.processes = args.processes or (1 if args.layer == "memory" else 2)
    if args.layer == "memory" and args.processes != 1:
        p.error("the in-memory layer serves one process only")
    if not (1 <= args.tables <= 100 and 1 <= args.hands <= 10 and 1 <= args.processes <= 4):
        p.error("--tables 1..100, --hands 1..10, --processes 1..4")
    return args


# --- the run against the servers -------------------------------------------------------------------


class ServerLog:
    """What the servers' ``drive.live`` did (config/bench_routes.py): commits and publishes.

    drive/live.py hands each commit to a worker thread that coalesces bursts: a change is shown by
    the first publish of the same process that *started* (read the state) after its commit."""

    def __init__(self, servers: common.Servers) -> None:
        self.servers = servers
        self.records: list[dict] = []
        self.commits: list[dict] = []
        self.deltas: list[dict] = []
        self.instructions: list[dict] = []

    async def pull(self) -> None:
        for url in self.servers.urls:
            status, _h, body = await asyncio.to_thread(common.http, "GET", url, "/bench/log", timeout=30)
            if status != 200:
                raise RuntimeError(f"/bench/log answered {status}")
            data = json.loads(body)
            self.records += data["records"]
            if data.get("commits") is None:  # a live.py that publishes in the commit's thread
                data["commits"] = [{"pid": r["pid"], "drive": r["drive"], "commit_ns": r["start_ns"]} for r in data["records"]]
            self.commits += data["commits"]
            self.deltas += data.get("deltas", [])
            self.instructions += data.get("instructions", [])
        self.deltas.sort(key=lambda r: r["start_ns"])
        self.instructions.sort(key=lambda r: r["start_ns"])
        self.records.sort(key=lambda r: r["start_ns"])
        self.commits.sort(key=lambda c: c["commit_ns"])

    def delta_of(self, commit: dict) -> dict | None:
        """The result message of the commit's table, sent after it (drive.live.table_changed)."""
        tables = commit.get("tables")
        if not tables:
            return self._sent_after(self.deltas, commit)
        for rec in self.deltas:
            if rec["pid"] == commit["pid"] and rec.get("table") in tables and rec["start_ns"] >= commit["commit_ns"]:
                return rec
        return None

    def instructions_of(self, commit: dict) -> dict | None:
        """The movement instructions a close's own thread sent right after its commit (drive.live.hand_moved)."""
        return self._sent_after(self.instructions, commit)

    @staticmethod
    def _sent_after(records: list[dict], commit: dict) -> dict | None:
        for rec in records:
            if (rec["pid"] == commit["pid"] and rec.get("thread") == commit.get("thread")
                    and rec["start_ns"] >= commit["commit_ns"]):
                return rec
        return None

    def since(self, t0: int) -> tuple[list[dict], list[dict]]:
        return ([c for c in self.commits if c["commit_ns"] >= t0], [r for r in self.records if r["start_ns"] >= t0])

    def shown_by(self, commit: dict) -> dict | None:
        for rec in self.records:
            if rec["pid"] == commit["pid"] and rec["drive"] == commit["drive"] and rec["start_ns"] >= commit["commit_ns"]:
                return rec
        return None

    async def settle(self, t0: int, expected_commits: int, timeout: float = WAIT) -> tuple[list[dict], list[dict]]:
        """Pull until ``expected_commits`` commits since ``t0`` are all shown by a finished publish."""
        deadline = time.monotonic() + timeout
        for _ in range(int(timeout / 0.1) + 1):
            await self.pull()
            commits, records = self.since(t0)
            if len(commits) >= expected_commits and all(self.shown_by(c) for c in commits):
                break
            if time.monotonic() > deadline:
                break
            await asyncio.sleep(0.1)
        return self.since(t0)


def audience_of(group: str) -> str:
    """drive-<id>-board / drive-<id>-organiser, or player-<id> (each phone's own group)."""
    return "phones" if group.startswith("player-") else group.rsplit("-", 1)[1]  # drive-<id>-phones too


def send_audience(send: dict) -> str:
    """The audience of one recorded send: the message's own (board, organiser: on Redis both go
    to the drive's screens group), else from its group."""
    return send.get("audience") or audience_of(send["group"])


def stamps_of(record: dict) -> dict[str, int]:
    """audience -> stamp of each group message of one publish."""
    return {send_audience(s): s["stamp"] for s in record["sends"]}


def first_recv(listener: common.Listener, stamp: int, contains: str | None = None) -> int | None:
    """When ``listener`` first received the message with ``stamp`` (containing its mark if asked)."""
    return (listener.marked if contains else listener.by_stamp).get(stamp)


async def run(args, info: dict, servers: common.Servers) -> dict:
    errors: list[str] = []
    code, drive_id = info["code"], info["drive_id"]
    # The phones listen in a process of their own (bench/listeners.py): their 200 frames of each
    # full update must not hold up the loop that stamps the screens' result messages.
    phone_process = ListenerProcess([
        {"name": f"phone-{pid}", "url": common.ws_url(servers.url(i), f"/ws/drive/{code}/phone/"),
         "cookies": {info["cookie"]: tok}, "mark": "data-instruction"}
        for i, (pid, tok) in enumerate(sorted(info["tokens"].items()))
    ])
    phones = phone_process.proxies
    boards = [common.Listener(f"board-{i}", common.ws_url(servers.url(i), f"/ws/drive/{code}/board/"))
              for i in range(BOARDS)]
    dashboards = [
        common.Listener(f"dashboard-{i}", common.ws_url(servers.url(i + 1), f"/ws/drive/{code}/organiser/"),
                        {"sessionid": info["session"]})
        for i in range(DASHBOARDS)
    ]
    screens = boards + dashboards
    audience = {id(lst): ("board" if lst in boards else "organiser") for lst in screens}
    everyone = phones + screens
    t = time.monotonic()
    errors += await phone_process.start()
    errors += await common.connect_all(screens)
    connect_s = time.monotonic() - t

    organiser = common.Browser({"sessionid": info["session"]})
    status, _ = await asyncio.to_thread(organiser.request, "GET", servers.url(0), f"/drives/{drive_id}/")
    if status != 200 or "csrftoken" not in organiser.cookies:
        errors.append(f"organiser dashboard GET answered {status}")
    log = ServerLog(servers)

    phone_by_id = {str(pid): p for pid, p in zip(sorted(info["tokens"]), phones)}

    def phones_sent(rec: dict) -> list:
        """The phones a publish sent a fragment to (drive.live sends only fragments that changed)."""
        out = []
        for send in rec["sends"]:
            group = str(send["group"])
            if group.startswith("player-"):
                out.append(phone_by_id[group.split("-", 1)[1]])
            elif group.endswith("-phones"):
                out += [phone_by_id[k] for k in send.get("keys") or []]
        return out

    def check_delivered(records: list[dict]) -> int:
        """Messages of these publishes that some socket never received."""
        missing = 0
        for rec in records:
            st = stamps_of(rec)
            missing += sum(1 for lst in screens if not first_recv(lst, st[audience[id(lst)]]))
            if "phones" in st:
                missing += sum(1 for p in phones_sent(rec) if not first_recv(p, st["phones"]))
        return missing

    async def phones_until(predicate, timeout: float = WAIT) -> None:
        """Poll the phones' process until ``predicate()`` holds or ``timeout`` seconds pass."""
        deadline = time.monotonic() + timeout
        for _ in range(int(timeout / 0.05) + 1):
            await phone_process.refresh()
            if predicate() or time.monotonic() > deadline:
                return
            await asyncio.sleep(0.05)

    async def delivered(records: list[dict], timeout: float = WAIT) -> int:
        await phones_until(lambda: check_delivered(records) == 0, timeout)
        return check_delivered(records)

    hall_samples, hall_stamp_samples, end_samples, end_all, end_full, post_ms = [], [], [], [], [], []
    full_samples, delta_bytes = [], []
    raw_results: list[dict] = []  # per result, for HALL_RAW (where a slow one's time went)
    result_records, close_records, publishes_per_hand = [], [], []
    lost = 0
    rng = random.Random(11)
    phases = {"connect_s": round(connect_s, 2)}  # where the run's time goes (make bench must stay under 5 min)
    t = time.monotonic()
    for hand_index in range(args.hands):
        hand_no = hand_index + 1
        tables = await asyncio.to_thread(current_tables, drive_id)
        # One phone per table opens its entry page (CSRF cookie), as a phone would.
        # (Ten at a time: not measured, and one after another they took seconds of every hand.)
        senders = [(k, number, seat_players, common.Browser({info["cookie"]: info["tokens"][seat_players[0]]}))
                   for k, (number, seat_players) in enumerate(tables)]
        pages = asyncio.Semaphore(10)

        async def open_entry(k, number, _seat_players, browser):
            async with pages:
                status, _ = await asyncio.to_thread(browser.request, "GET", servers.url(k), f"/{code}/enter")
            if status != 200:
                errors.append(f"hand {hand_no} table {number}: GET enter answered {status}")

        await asyncio.gather(*(open_entry(*sender) for sender in senders))
        await log.settle(time.time_ns(), 0, timeout=1)

        async def send_result(k, number, seat_players, browser, delay):
            await asyncio.sleep(delay)
            n = len(seat_players)
            declarer = rng.randrange(n)
            data = {"client_key": uuid.uuid4().hex, "seen_revision": "0", "declarer": str(declarer),
                    "nine_card": "False", "dealer": "0", "hand": str(hand_no), "table": str(number),
                    "player": str(seat_players[0])}  # the form names the phone's player, hand and table
            for i in range(n):
                data[f"seat{i}_sets"] = str(rng.choice([0, 0, 1]) if i != declarer else 0)
                data[f"seat{i}_ice"] = "none"
            t0 = time.perf_counter()
            status, body = await asyncio.to_thread(browser.request, "POST", servers.url(k), f"/{code}/enter", data,
                                                   "application/json")
            post_ms.append((time.perf_counter() - t0) * 1000)
            if status != 200 or not json.loads(body or b"{}").get("ok"):
                errors.append(f"hand {hand_no} table {number}: POST enter answered {status} {body[:200]!r}")

        # hall: every table's result, within --spread seconds.
        order = list(range(len(senders)))
        rng.shuffle(order)
        delays = sorted(rng.uniform(0, args.spread) for _ in order)
        t0 = time.time_ns()
        await asyncio.wait_for(asyncio.gather(*(send_result(*senders[j], delays[i]) for i, j in enumerate(order))),
                               args.spread + 120)
        commits, records = await log.settle(t0, len(tables))
        if len(commits) != len(tables):
            errors.append(f"hand {hand_no}: {len(commits)} commits for {len(tables)} results")
        publishes_per_hand.append(len(records))
        lost += await delivered(records)
        for c in commits:
            rec = log.shown_by(c)
            if rec is None:
                errors.append(f"hand {hand_no}: a result committed at {c['commit_ns']} was never published")
                lost += len(screens)
                continue
            st = stamps_of(rec)
            times = [first_recv(lst, st[audience[id(lst)]]) for lst in screens]
            got = [x for x in times if x]
            if len(got) == len(times):
                full_samples.append((max(got) - c["commit_ns"]) / 1e6)
            # What the hall measures: the result's own message (sent at its commit), on every screen.
            delta = log.delta_of(c)
            if delta is None or not delta["sends"]:
                errors.append(f"hand {hand_no}: a result committed at {c['commit_ns']} sent no result message")
                lost += len(screens)
                continue
            stamp = delta["sends"][0]["stamp"]
            delta_bytes.append(max(s["bytes"] for s in delta["sends"]))
            await common.wait_until(lambda: all(lst.results.get(stamp) for lst in screens), WAIT, step=0.05)
            times = [lst.results.get(stamp) for lst in screens]
            if not all(times):
                errors.append(f"hand {hand_no}: {sum(1 for x in times if not x)} screens never got a result message")
                lost += sum(1 for x in times if not x)
                continue
            hall_samples.append((max(times) - c["commit_ns"]) / 1e6)
            raw_results.append({"commit_ns": c["commit_ns"], "pid": c["pid"], "sent_ns": delta["start_ns"],
                                "received_ns": {lst.name: t for lst, t in zip(screens, times)}})
        for rec in records:
            st = stamps_of(rec)
            hall_stamp_samples.extend((first_recv(lst, st[audience[id(lst)]]) - st[audience[id(lst)]]) / 1e6
                                      for lst in screens if first_recv(lst, st[audience[id(lst)]]))
        result_records += records

        # hand_end: the organiser closes the hand (force: entered results are accepted).
        t1 = time.time_ns()
        status, body = await asyncio.to_thread(organiser.request, "POST", servers.url(hand_index),
                                               f"/drives/{drive_id}/close", {"force": "1", "hand": str(hand_no)})
        if status != 302:
            errors.append(f"hand {hand_no}: close answered {status}")
        commits, records = await log.settle(t1, 1)
        if len(commits) != 1:
            errors.append(f"hand {hand_no}: {len(commits)} commits for one close")
        rec = log.shown_by(commits[0]) if commits else None
        if rec is None:
            errors.append(f"hand {hand_no}: the close was never published")
        else:
            stamp = stamps_of(rec)["phones"]
            # A phone holds its instruction when the close's own message (sent at the commit)
            # or the full update's fragment (built after it) arrives, whichever is first.
            moved = log.instructions_of(commits[0])
            if moved is None:
                errors.append(f"hand {hand_no}: the close sent no instruction message")
            moved_stamp = moved["stamp"] if moved else None

            def held(p):
                times = [t for t in (first_recv(p, stamp, "data-instruction"),
                                     moved_stamp and first_recv(p, moved_stamp, "data-instruction")) if t]
                return min(times) if times else None

            await phones_until(lambda: all(first_recv(p, stamp, "data-instruction") for p in phones))
            times = [held(p) for p in phones]
            missing = sum(1 for p in phones if not first_recv(p, stamp, "data-instruction"))
            if missing:
                errors.append(f"hand {hand_no}: {missing} phones never got their movement instruction")
            if moved_stamp:
                lost += sum(1 for p in phones if not first_recv(p, moved_stamp, "data-instruction"))
            got = [(x - commits[0]["commit_ns"]) / 1e6 for x in times if x]
            end_samples += got
            end_full += [(first_recv(p, stamp, "data-instruction") - commits[0]["commit_ns"]) / 1e6
                         for p in phones if first_recv(p, stamp, "data-instruction")]
            if got:
                end_all.append(max(got))
            close_records.append(rec)
        lost += await delivered(records)

        # The next hand starts (not measured); its update settles before the next burst.
        t2 = time.time_ns()
        status, _ = await asyncio.to_thread(organiser.request, "POST", servers.url(hand_index + 1),
                                            f"/drives/{drive_id}/start", {"hand": str(hand_no + 1)})
        if status != 302:
            errors.append(f"hand {hand_no + 1}: start answered {status}")
        _commits, records = await log.settle(t2, 1)
        lost += await delivered(records)

    # --- floors --------------------------------------------------------------------------------
    phases["hands_s"] = round(time.monotonic() - t, 2)
    t = time.monotonic()
    screen_bytes = [s["bytes"] for r in result_records for s in r["sends"] if send_audience(s) != "phones"]
    phone_bytes = [s["bytes"] for r in close_records for s in r["sends"] if send_audience(s) == "phones"]
    # The hall's floor: a bare group_send of the result message's size to the 8 screens.
    hall_floor = await floor(servers, "floor-hall", len(screens), 1, int(statistics.mean(delta_bytes or [600])),
                             args.floor_sends, per_listener=False, errors=errors)
    # Each phone's fragment goes to its own group (drive.live): the floor sends one message of
    # the same size to each listener's own group, in one batch, the same way.
    # (drive.live.phone_messages: in memory one small message per phone group; through Redis one
    # message with every phone's part to the phones group.) The floor sends the same way.
    per_key = args.layer == "memory"
    part = statistics.mean(phone_bytes or [1000]) / (1 if per_key else len(phones))
    phases["hall_floor_s"] = round(time.monotonic() - t, 2)
    t = time.monotonic()
    end_floor = await floor(servers, "floor-phones", len(phones), len(phones), int(part),
                            max(5, args.floor_sends // 4), per_listener=True, per_key=per_key, errors=errors)
    phases["hand_end_floor_s"] = round(time.monotonic() - t, 2)

    await phone_process.refresh()
    for lst in everyone:
        if lst.error:
            errors.append(lst.error)
    await asyncio.gather(phone_process.close(), *(lst.close() for lst in screens))
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
        "results_sent": args.hands * args.tables, "publishes_per_hand": publishes_per_hand,
        "from_stamp": common.summary(hall_stamp_samples), "floor": hall_floor,
        "post_enter_ms": common.summary(post_ms),
        "payload_bytes": {"board_dashboard_mean": int(statistics.mean(screen_bytes)) if screen_bytes else None,
                          "result_message_mean": int(statistics.mean(delta_bytes)) if delta_bytes else None},
        "server_ms": breakdown(result_records), "connect_s": round(connect_s, 2), "phases": phases,
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
                       "screens": {lst.name: lst.url for lst in screens}}, f)
    return {"entries": [hall, end]}


def breakdown(records: list[dict]) -> dict:
    """Median milliseconds of each step of the servers' publishes (from config/bench_routes.py)."""
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
    # Stopped by `make bench` (its timeout): end through the finally below, which stops the
    # servers and drops the throwaway database.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    args = parse_args(argv)
    started = time.monotonic()
    admin_url = None
    redis_url = None
    if args.layer == "redis":
        admin_url = os.environ.get("BENCH_DATABASE_URL", common.DEFAULT_PG_URL)
        redis_url = common.with_socket_timeout(os.environ.get("BENCH_REDIS_URL", common.DEFAULT_REDIS_URL))
        common.flush_redis(redis_url)
    db = common.ThrowawayDatabase(admin_url, prefix="bench_hall")
    servers = None
    try:
        setup_django(db.url, db.tmp)
        info = build_drive(args.tables * PHONES_PER_TABLE)
        setup_s = time.monotonic() - started
        env = common.server_env(db.url, db.tmp, redis_url, CHANNEL_PREFIX=f"bench{os.getpid()}")
        t = time.monotonic()
        servers = common.Servers(args.processes, env, db.tmp)
        servers_s = time.monotonic() - t
        out = asyncio.run(asyncio.wait_for(run(args, info, servers), 600))
        out["entries"][0]["phases"] = {"setup_s": round(setup_s, 2), "servers_start_s": round(servers_s, 2),
                                       **out["entries"][0]["phases"]}
        if redis_url:
            for e in out["entries"]:
                e["redis_used_memory"] = common.redis_used_memory(redis_url)
    except Exception as exc:
        out = {"entries": [
            {"scenario": s, "layer": args.layer, "processes": args.processes, "clients": 0, "p50_ms": None,
             "p95_ms": None, "p99_ms": None, "floor_p95_ms": None, "errors": [f"{type(exc).__name__}: {exc}"]}
            for s in ("hall", "hand_end")
        ]}
        if servers is not None:
            for i in range(len(servers.urls)):
                try:
                    out["entries"][0]["errors"].append(open(os.path.join(db.tmp, f"daphne-{i}.log")).read()[-2000:])
                except OSError:
                    pass
    finally:
        if servers is not None:
            servers.stop()
            logs = os.path.join(common.ROOT, "bench", "results", "logs")
            os.makedirs(logs, exist_ok=True)
            for i in range(len(servers.urls)):
                src = os.path.join(db.tmp, f"daphne-{i}.log")
                if os.path.exists(src):
                    with open(src) as f_in, open(os.path.join(logs, f"hall-{args.layer}-daphne-{i}.log"), "w") as f_out:
                        f_out.write(f_in.read()[-200_000:])
        db.drop()
        if redis_url:
            common.flush_redis(redis_url)
    for e in out["entries"]:
        e["seconds"] = round(time.monotonic() - started, 1)
    text = json.dumps(out)
    if args.json:
        with open(args.json, "w") as f:
            f.write(text)
    print(text)
    return out


if __name__ == "__main__":
    main()
