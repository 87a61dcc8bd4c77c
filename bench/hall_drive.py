"""One drive's part of bench/hall.py: its phones (in a listener process of their own), boards and
dashboards, its hands (results, close, start) and what each took; and the servers' log of
``drive.live`` (bench/routes.py), shared by the drives of one run."""

from __future__ import annotations

import asyncio
import json
import random
import time
import uuid

from bench import common
from bench.drive_setup import current_tables
from bench.listeners import ListenerProcess

BOARDS = 4  # per drive
DASHBOARDS = 4
WAIT = 30.0  # seconds: the longest any one wait for messages may take


class ServerLog:
    """What the servers' ``drive.live`` did (bench/routes.py): commits and publishes.

    drive/live.py hands each commit to a worker thread that coalesces bursts: a change is shown by
    the first publish of the same process that *started* (read the state) after its commit."""

    def __init__(self, servers: common.Servers) -> None:
        self.servers = servers
        self.records: list[dict] = []
        self.commits: list[dict] = []
        self.deltas: list[dict] = []
        self.instructions: list[dict] = []
        self.lock = asyncio.Lock()

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
            if (rec["pid"] == commit["pid"] and rec["drive"] == commit["drive"] and rec.get("table") in tables
                    and rec["start_ns"] >= commit["commit_ns"]):
                return rec
        return None

    def instructions_of(self, commit: dict) -> dict | None:
        """The movement instructions a close's own thread sent right after its commit (drive.live.hand_moved)."""
        return self._sent_after(self.instructions, commit)

    @staticmethod
    def _sent_after(records: list[dict], commit: dict) -> dict | None:
        for rec in records:
            if (rec["pid"] == commit["pid"] and rec.get("thread") == commit.get("thread")
                    and rec.get("drive", commit["drive"]) == commit["drive"] and rec["start_ns"] >= commit["commit_ns"]):
                return rec
        return None

    def since(self, t0: int, drive: int | None = None) -> tuple[list[dict], list[dict]]:
        """Commits and publishes since ``t0`` (of ``drive`` only, when given)."""
        mine = (lambda r: True) if drive is None else (lambda r: r["drive"] == drive)
        return ([c for c in self.commits if c["commit_ns"] >= t0 and mine(c)],
                [r for r in self.records if r["start_ns"] >= t0 and mine(r)])

    def shown_by(self, commit: dict) -> dict | None:
        for rec in self.records:
            if rec["pid"] == commit["pid"] and rec["drive"] == commit["drive"] and rec["start_ns"] >= commit["commit_ns"]:
                return rec
        return None

    async def settle(self, t0: int, expected_commits: int, timeout: float = WAIT, drive: int | None = None
                     ) -> tuple[list[dict], list[dict]]:
        """Pull until ``expected_commits`` commits since ``t0`` (of ``drive``) are all shown by a
        finished publish. Several drives' runs share one log: a pull takes every server's
        records (the server forgets them), so they are pulled once for all, under a lock."""
        deadline = time.monotonic() + timeout
        for _ in range(int(timeout / 0.1) + 1):
            async with self.lock:
                await self.pull()
            commits, records = self.since(t0, drive)
            if len(commits) >= expected_commits and all(self.shown_by(c) for c in commits):
                break
            if time.monotonic() > deadline:
                break
            await asyncio.sleep(0.1)
        return self.since(t0, drive)


def audience_of(group: str) -> str:
    """drive-<id>-board / drive-<id>-organiser, or player-<id> (each phone's own group)."""
    return "phones" if group.startswith("player-") else group.rsplit("-", 1)[1]


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


async def run_drive(args, info: dict, servers: common.Servers, log: ServerLog, label: str = "") -> dict:
    """One drive's hands (its results, its closes, its starts), measured; what the caller needs
    to compute the figures, and ``close`` (its sockets stay open for the floors meanwhile)."""
    errors: list[str] = []
    code, drive_id = info["code"], info["drive_id"]
    # The phones listen in a process of their own (bench/listeners.py): their 200 frames of each
    # full update must not hold up the loop that stamps the screens' result messages.
    phone_process = ListenerProcess([
        {"name": f"{label}phone-{pid}", "url": common.ws_url(servers.url(i), f"/ws/drive/{code}/phone/"),
         "cookies": {info["cookie"]: tok}, "mark": "data-instruction"}
        for i, (pid, tok) in enumerate(sorted(info["tokens"].items()))
    ])
    phones = phone_process.proxies
    boards = [common.Listener(f"{label}board-{i}", common.ws_url(servers.url(i), f"/ws/drive/{code}/board/"))
              for i in range(BOARDS)]
    dashboards = [
        common.Listener(f"{label}dashboard-{i}", common.ws_url(servers.url(i + 1), f"/ws/drive/{code}/organiser/"),
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

    phone_by_id = {str(pid): p for pid, p in zip(sorted(info["tokens"]), phones)}

    def phones_sent(rec: dict) -> list:
        """The phones a publish sent a fragment to (drive.live sends only fragments that changed)."""
        out = []
        for send in rec["sends"]:
            group = str(send["group"])
            if group.startswith("player-"):
                out.append(phone_by_id[group.split("-", 1)[1]])
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
    results_sent = 0
    t = time.monotonic()
    for hand_index in range(args.hands):
        hand_no = hand_index + 1
        tables = await asyncio.to_thread(current_tables, drive_id)
        results_sent += len(tables)
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
        commits, records = await log.settle(t0, len(tables), drive=drive_id)
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
        commits, records = await log.settle(t1, 1, drive=drive_id)
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
        _commits, records = await log.settle(t2, 1, drive=drive_id)
        lost += await delivered(records)

    phases["hands_s"] = round(time.monotonic() - t, 2)

    async def close() -> None:
        await phone_process.refresh()
        for lst in everyone:
            if lst.error:
                errors.append(lst.error)
        await asyncio.gather(phone_process.close(), *(lst.close() for lst in screens))

    return {
        "errors": errors, "phones": phones, "screens": screens, "everyone": everyone, "close": close,
        "hall": hall_samples, "hall_stamp": hall_stamp_samples, "end": end_samples, "end_all": end_all,
        "end_full": end_full, "post_ms": post_ms, "full": full_samples, "delta_bytes": delta_bytes,
        "raw_results": raw_results, "result_records": result_records, "close_records": close_records,
        "publishes_per_hand": publishes_per_hand, "lost": lost, "phases": phases, "results_sent": results_sent,
    }
