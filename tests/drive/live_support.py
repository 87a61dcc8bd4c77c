"""Sockets for the live tests (test_live_consumers.py, test_live_fanout.py): connecting as a
screen or a phone through the whole ASGI application, and reading frames until an event."""

from __future__ import annotations

import pytest
from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator
from django.test import Client

from config.asgi import application
from tests.factories import seated_drive

ORIGIN = (b"origin", b"http://localhost")


def socket(path: str, cookie: str = "", origin=ORIGIN) -> WebsocketCommunicator:
    headers = [origin]
    if cookie:
        headers.append((b"cookie", cookie.encode()))
    return WebsocketCommunicator(application, path, headers=headers)


async def connected(path: str, cookie: str = "") -> WebsocketCommunicator:
    ws = socket(path, cookie)
    ok, _ = await ws.connect(timeout=30)
    assert ok, path
    return ws


async def frames_until(ws, done, quiet: float = 0.5) -> list[dict]:
    """The frames a socket receives until ``done(frames)`` holds (each waited for, however busy
    the machine: a quiet window alone ends early when a send from a thread is slow to come),
    then whatever follows until it has been quiet for ``quiet`` seconds."""
    frames = []
    while not done(frames):
        frames.append(await ws.receive_json_from(timeout=30))
    while not await ws.receive_nothing(timeout=quiet):
        frames.append(await ws.receive_json_from(timeout=30))
    return frames


def results_in(frames) -> list[dict]:
    return [f for f in frames if f["type"] == "result"]


@pytest.fixture
def drive_of_eight(organiser):
    return seated_drive(organiser, 8)


def session_cookie(user) -> str:
    client = Client()
    client.force_login(user)
    return f"sessionid={client.cookies['sessionid'].value}"


async def phones_of(drive, *numbers) -> dict[int, tuple[int, WebsocketCommunicator]]:
    """The phones of the players at these tables of the current hand, connected, their snapshots
    read: player id -> (table number, socket)."""
    code = drive.join_code
    seats = await sync_to_async(lambda: [
        (s.player_id, t.number, s.player.token) for t in drive.hands.get().tables.filter(number__in=numbers)
        for s in t.seats.select_related("player")])()
    phones = {}
    for pid, number, token in seats:
        ws = await connected(f"/ws/drive/{code}/phone/", f"ff_{code}={token}")
        assert (await ws.receive_json_from(timeout=30))["type"] == "update"
        phones[pid] = (number, ws)
    return phones
