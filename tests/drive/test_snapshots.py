"""Sockets connecting at once share a read of the drive (drive.snapshots), and miss nothing."""

from __future__ import annotations

import asyncio
import re
import threading

import pytest
from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator

from config.asgi import application
from drive import selectors, services, snapshots
from tests.factories import declared, seated_drive

pytestmark = pytest.mark.django_db(transaction=True)
ORIGIN = (b"origin", b"http://localhost")


async def connect(path: str, cookie: str = "") -> WebsocketCommunicator:
    headers = [ORIGIN] + ([(b"cookie", cookie.encode())] if cookie else [])
    ws = WebsocketCommunicator(application, path, headers=headers)
    ok, _ = await ws.connect(timeout=30)
    assert ok, path
    return ws


class HeldReads:
    """``selectors.drive_view`` counted, its first call held, once read, until ``released``."""

    def __init__(self, monkeypatch) -> None:
        self.calls = 0
        self.entered = threading.Event()
        self.released = threading.Event()
        real = selectors.drive_view

        def held(drive, **kwargs):
            self.calls += 1
            view = real(drive, **kwargs)
            if self.calls == 1:  # read: held before it is rendered and sent
                self.entered.set()
                assert self.released.wait(30)
            return view

        monkeypatch.setattr(selectors, "drive_view", held)

    async def first_read_running(self) -> None:
        assert await asyncio.to_thread(self.entered.wait, 30)


async def until(predicate, timeout: float = 30) -> None:
    deadline = asyncio.get_running_loop().time() + timeout
    while not predicate():
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError("timed out")
        await asyncio.sleep(0.01)


def asked(monkeypatch) -> list:
    """Every socket's request for its snapshot (``snapshots.on_connect``), counted as it is
    made: once counted, the socket has joined the read it waits for."""
    requests: list = []
    real = snapshots.on_connect

    async def counted(*args, **kwargs):
        requests.append(args)
        return await real(*args, **kwargs)

    monkeypatch.setattr(snapshots, "on_connect", counted)
    return requests


def heading(frame: dict) -> str:
    return re.search(r"<h1[^>]*>(.*?)</h1>", frame["parts"]["phone"], re.S).group(1)


async def test_phones_connecting_at_once_share_one_read_and_each_gets_its_own_fragment(organiser, monkeypatch):
    drive = await sync_to_async(seated_drive)(organiser, 8)
    code = drive.join_code
    players = await sync_to_async(lambda: list(drive.players.order_by("pk").values_list("pk", "name", "token")))()
    reads, requests = HeldReads(monkeypatch), asked(monkeypatch)
    first = await connect(f"/ws/drive/{code}/phone/", f"ff_{code}={players[0][2]}")
    await reads.first_read_running()
    # The other seven connect while the first one's read runs: they wait for the next, together.
    others = await asyncio.gather(*(connect(f"/ws/drive/{code}/phone/", f"ff_{code}={token}")
                                    for _pk, _name, token in players[1:]))
    await until(lambda: len(requests) == 8)
    reads.released.set()
    frames = [await ws.receive_json_from(timeout=30) for ws in (first, *others)]
    assert reads.calls == 2  # 8 sockets, 2 reads (one each before)
    for (_pk, name, _token), frame in zip(players, frames):
        assert frame["type"] == "update" and list(frame["parts"]) == ["phone"]
        assert name in heading(frame)  # its own player's fragment
    for ws in (first, *others):
        await ws.disconnect()
    assert snapshots.idle()  # nothing left behind


async def test_a_socket_connecting_during_a_read_gets_a_later_one_with_what_committed_before(organiser, monkeypatch):
    """The read running when a socket joins began before it joined: a result committed between
    the two is not in it, so the socket waits for the next read, which shows it."""
    drive = await sync_to_async(seated_drive)(organiser, 8)
    code = drive.join_code
    reads, requests = HeldReads(monkeypatch), asked(monkeypatch)
    early = await connect(f"/ws/drive/{code}/board/")
    await reads.first_read_running()  # the early board's read has begun: 0 tables done
    table = await sync_to_async(lambda: drive.hands.get().tables.get(number=1))()
    await sync_to_async(services.organiser_result)(drive, table, declared(4, 0), organiser)
    late = await connect(f"/ws/drive/{code}/board/")
    await until(lambda: len(requests) == 2)
    reads.released.set()
    late_first = await late.receive_json_from(timeout=30)
    assert late_first["type"] == "update" and "1 of 2 tables done" in late_first["parts"]["board"]
    # The early board gets the state it asked for, then hears of the result as every socket does.
    early_frames = [await early.receive_json_from(timeout=30) for _ in range(3)]
    snapshot = min((f for f in early_frames if f["type"] == "update"), key=lambda f: f["read"])
    assert "0 of 2 tables done" in snapshot["parts"]["board"]
    assert any(f["type"] == "result" and f["progress"]["done"] == 1 for f in early_frames)
    await early.disconnect()
    await late.disconnect()


async def test_a_failed_read_fails_its_sockets_and_the_next_one_reads_again(organiser, monkeypatch):
    drive = await sync_to_async(seated_drive)(organiser, 8)
    code = drive.join_code
    real = snapshots.read
    calls = []

    def failing_once(*args):
        calls.append(args)
        if len(calls) == 1:
            raise RuntimeError("database away")
        return real(*args)

    monkeypatch.setattr(snapshots, "read", failing_once)
    with pytest.raises(RuntimeError, match="database away"):
        await snapshots.on_connect(drive.pk, "board")
    assert snapshots.idle()
    ws = await connect(f"/ws/drive/{code}/board/")
    assert "0 of 2 tables done" in (await ws.receive_json_from(timeout=30))["parts"]["board"]
    await ws.disconnect()


def test_an_update_read_before_a_snapshot_is_stamped_older_than_it_however_late_it_is_sent(organiser, settings):
    """A page keeps the newer of what it is sent by the stamp (static/js/live.js): an update is
    stamped when its state was read, as a snapshot is, not when it was rendered. On a busy machine
    a build read before a page connected can reach it seconds after the page's snapshot; it
    must not replace the snapshot with the older state (a panel the organiser had opened since
    closed, a hand just started shown as not begun)."""
    from drive import broadcast, live

    settings.LIVE_RENDER_PROCESS = False
    drive = seated_drive(organiser, 4)
    phones = live.build_phones(drive.pk)  # the update's read; its screens are rendered from it next
    snapshot = snapshots.read(drive.pk, frozenset(p.pk for p in drive.players.all()), frozenset({"organiser"}))
    screens = dict(live.build_screens(drive.pk))  # rendered after the snapshot, from the earlier read
    update = screens[broadcast.drive_group(drive.pk, "organiser")]
    assert update["stamp"] == update["read"] < snapshot["organiser"]["stamp"]
    assert phones and all(message["stamp"] == update["read"] for _, message in phones)
    assert all(update["read"] < snapshot[p]["stamp"] for p in snapshot if p != "organiser")
