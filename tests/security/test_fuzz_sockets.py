"""Every websocket, fuzzed: any frame gets an error frame (or the one answer it is meant to get),
never a crash, never a change of state; binary, invalid JSON, arrays, scalars and oversized frames
are refused with an error frame and the socket stays usable.

Sockets: /ws/health/, /ws/drive/<CODE>/{board,organiser,phone}/, /ws/play/<CODE>/ and
/ws/watch/<CODE>/<n>/ (digital play)."""

from __future__ import annotations

import json

import pytest
from asgiref.sync import async_to_sync
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.test import Client
from hypothesis import example, given, settings
from hypothesis import strategies as st

from config.asgi import application
from config.health import NONCE, HealthConsumer
from drive import services
from tables.models import TableHand
from tests.factories import make_drive
from tests.security.conftest import snapshot
from tests.security.fuzz import FUZZ

pytestmark = pytest.mark.django_db(transaction=True)
ORIGIN = (b"origin", b"http://localhost")
SOCKET_FUZZ = settings(FUZZ, max_examples=10)  # each example is a whole list of frames on one socket

TYPES = st.sampled_from(["ping", "sync", "pass", "offer", "accept", "decline", "declare", "close_hand", "update",
                         "drive.update", "table.version", "health.pong", "websocket.close", "", "PING"])
SCALARS = st.one_of(st.none(), st.booleans(), st.integers(min_value=-(2**70), max_value=2**70),
                    st.floats(allow_nan=False), st.text(max_size=40))
JSONISH = st.recursive(SCALARS, lambda inner: st.one_of(st.lists(inner, max_size=4),
                                                        st.dictionaries(st.text(max_size=10), inner, max_size=4)),
                       max_leaves=12)
OBJECT = st.fixed_dictionaries(
    {"type": st.one_of(TYPES, JSONISH)},
    optional={"version": JSONISH, "key": JSONISH, "seat": JSONISH, "card": JSONISH, "cards": JSONISH,
              "nonce": JSONISH, "to": JSONISH, "parts": JSONISH},
).map(json.dumps)
RAW = st.one_of(
    OBJECT,
    JSONISH.map(json.dumps),  # arrays and scalars
    st.text(min_size=1, max_size=200),  # mostly invalid JSON
    st.sampled_from(["{oops", "[]", "null", "1", '"ping"', "{}", '{"type": null}', "\ufeff{}", "{" * 500]),
)
FRAME = st.one_of(RAW.map(lambda t: ("text", t)), st.binary(min_size=1, max_size=100).map(lambda b: ("bytes", b)))
FRAMES = st.lists(FRAME, min_size=5, max_size=12)
HUGE = json.dumps({"type": "ping", "nonce": "x" * 100_000})


def communicator(path: str, cookie: str = "") -> WebsocketCommunicator:
    headers = [ORIGIN] + ([(b"cookie", cookie.encode())] if cookie else [])
    return WebsocketCommunicator(application, path, headers=headers)


async def open_socket(path: str, cookie: str = "", greeting: bool = True) -> WebsocketCommunicator:
    ws = communicator(path, cookie)
    ok, _ = await ws.connect(timeout=30)
    assert ok, path
    if greeting:
        await ws.receive_json_from(timeout=30)
    return ws


async def send(ws, frame) -> None:
    kind, payload = frame
    if kind == "text" and payload == "":
        await ws.send_input({"type": "websocket.receive", "text": ""})  # send_to refuses an empty frame
    elif kind == "text":
        await ws.send_to(text_data=payload)
    else:
        await ws.send_to(bytes_data=payload)


async def replies(ws, quiet: float = 0.05) -> list[dict]:
    """Everything the socket says in answer to a frame: the first answer (waited for, however
    loaded the machine is), then whatever follows until it goes quiet."""
    out = [await ws.receive_json_from(timeout=30)]
    while not await ws.receive_nothing(timeout=quiet):
        out.append(await ws.receive_json_from(timeout=30))
    return out


def session_cookie(user) -> str:
    client = Client()
    client.force_login(user)
    return f"sessionid={client.cookies['sessionid'].value}"


@pytest.fixture
def live_paths(transactional_db, world):
    # Sockets read the database from other threads: the data must be committed (and no test
    # transaction may hold locks they wait for), so these tests use transactional_db.
    code = world.code
    return {
        "board": (f"/ws/drive/{code}/board/", ""),
        "organiser": (f"/ws/drive/{code}/organiser/", session_cookie(world.organiser)),
        "phone": (f"/ws/drive/{code}/phone/", f"ff_{code}={world.enterer.token}"),
    }


# --- the live drive sockets -------------------------------------------------------------------


async def _live_round(path, cookie, frames) -> None:
    ws = await open_socket(path, cookie)
    before = await database_sync_to_async(snapshot)()
    for frame in frames:
        await send(ws, frame)
        answer = await ws.receive_json_from(timeout=30)  # exactly one answer per frame
        is_ping = frame[0] == "text" and _is_ping(frame[1])
        assert answer["type"] == ("pong" if is_ping else "error"), (frame, answer)
        if answer["type"] == "error":
            assert answer["message"]
    assert await ws.receive_nothing(timeout=0.05)
    assert await database_sync_to_async(snapshot)() == before
    await ws.send_json_to({"type": "ping"})  # still open and answering
    assert (await ws.receive_json_from(timeout=30))["type"] == "pong"
    await ws.disconnect()


def _is_ping(text: str) -> bool:
    try:
        content = json.loads(text)
    except ValueError:
        return False
    return isinstance(content, dict) and content.get("type") == "ping" and len(text) <= 1024


@pytest.mark.parametrize("audience", ["board", "organiser", "phone"])
def test_live_sockets_answer_every_frame_with_an_error_or_a_pong(live_paths, audience):
    path, cookie = live_paths[audience]

    @SOCKET_FUZZ
    @given(frames=FRAMES)
    def run(frames):
        async_to_sync(_live_round)(path, cookie, frames)

    run()


@pytest.mark.parametrize("frame", [("text", "x" * 100_000), ("text", HUGE), ("bytes", b"\x00" * 100_000),
                                   ("bytes", b'{"type": "ping"}'), ("text", "[1, 2]"), ("text", "42"),
                                   ("text", '"ping"'), ("text", "{not json")])
async def test_live_sockets_refuse_oversized_and_malformed_frames(live_paths, frame):
    for audience in ("board", "phone"):
        path, cookie = live_paths[audience]
        ws = await open_socket(path, cookie)
        await send(ws, frame)
        assert (await ws.receive_json_from(timeout=30))["type"] == "error"
        await ws.send_json_to({"type": "ping"})
        assert (await ws.receive_json_from(timeout=30))["type"] == "pong"
        await ws.disconnect()


async def test_live_socket_empty_text_frame_gets_an_error(live_paths):
    path, cookie = live_paths["board"]
    ws = await open_socket(path, cookie)
    await send(ws, ("text", ""))
    assert (await ws.receive_json_from(timeout=30))["type"] == "error"
    await ws.disconnect()


# --- /ws/health/ ------------------------------------------------------------------------------


async def _health_round(frames) -> None:
    ws = await open_socket("/ws/health/", greeting=False)
    for frame in frames:
        await send(ws, frame)
        got = [await ws.receive_json_from(timeout=30)]  # exactly one answer per frame
        content = None
        try:
            content = json.loads(frame[1])
        except ValueError:
            pass
        nonce = content.get("nonce", "") if isinstance(content, dict) else None
        if (isinstance(content, dict) and content.get("type") == "ping" and len(frame[1]) <= HealthConsumer.max_frame
                and isinstance(nonce, str) and NONCE.fullmatch(nonce)):
            assert got[0] == {"type": "pong", "nonce": nonce}
        else:
            assert got[0]["type"] == "error" and got[0]["message"]
    assert await ws.receive_nothing(timeout=0.05)
    await ws.disconnect()


@SOCKET_FUZZ
@given(frames=FRAMES)
@example(frames=[("text", '{"type": "ping"}')] * 4 + [("text", json.dumps({"type": "ping", "pad": "x" * 300}))])
def test_health_socket_answers_every_frame(frames):
    async_to_sync(_health_round)(frames)


@pytest.mark.parametrize("frame", [("bytes", b"\x00\x01"), ("text", "")])
async def test_health_socket_refuses_binary_and_empty_frames(frame):
    ws = await open_socket("/ws/health/", greeting=False)
    await send(ws, frame)
    assert (await ws.receive_json_from(timeout=30))["type"] == "error"
    await ws.disconnect()


async def test_health_socket_refuses_a_100_kb_frame():
    ws = await open_socket("/ws/health/", greeting=False)
    await ws.send_to(text_data=HUGE)
    assert (await ws.receive_json_from(timeout=30))["type"] == "error"
    await ws.disconnect()


# --- digital play -----------------------------------------------------------------------------


@pytest.fixture
def digital(transactional_db, world, settings):
    settings.BOT_DELAY_SECONDS = 0
    drive = make_drive(world.organiser, 4, name="Digital drive", play_mode="digital", preferred_table_size=4)
    services.draw_seating(drive)
    services.start_hand(drive)
    table = TableHand.objects.get(hand__drive=drive)
    player = table.seats.order_by("position").first().player
    return drive, table, player


def _table_state(table_id: int):
    t = TableHand.objects.get(pk=table_id)
    return t.version, t.state, t.status, t.client_keys


async def _play_round(path, cookie, table_id, frames) -> None:
    ws = await open_socket(path, cookie)
    before = await database_sync_to_async(_table_state)(table_id)
    applied = False
    for frame in frames:
        await send(ws, frame)
        got = await replies(ws)
        assert got, frame
        kinds = [g["type"] for g in got]
        assert kinds[0] in ("error", "state", "ok"), (frame, got)
        if kinds[0] == "error":
            # A refusal names its reason; an unexpected exception in the engine would say this:
            assert "could not apply" not in got[0]["message"], (frame, got)
        applied |= kinds[0] == "ok"
    if not applied:
        assert await database_sync_to_async(_table_state)(table_id) == before
    await ws.send_json_to({"type": "sync"})
    while (await ws.receive_json_from(timeout=30))["type"] != "state":
        pass
    await ws.disconnect()


def test_play_socket_refuses_every_odd_frame(digital):
    drive, table, player = digital
    path, cookie = f"/ws/play/{drive.join_code}/", f"ff_{drive.join_code}={player.token}"

    @SOCKET_FUZZ
    @given(frames=FRAMES)
    def run(frames):
        async_to_sync(_play_round)(path, cookie, table.pk, frames)

    run()


def test_watch_socket_refuses_every_odd_frame(digital, world):
    drive, table, _player = digital
    path, cookie = f"/ws/watch/{drive.join_code}/1/", session_cookie(world.organiser)

    @SOCKET_FUZZ
    @given(frames=FRAMES)
    def run(frames):
        async_to_sync(_play_round)(path, cookie, table.pk, frames)

    run()


@pytest.mark.parametrize("frame", [("text", "x" * 100_000), ("text", HUGE), ("bytes", b"\x00" * 100_000),
                                   ("text", ""), ("text", "[]"), ("text", "3")])
async def test_play_socket_refuses_oversized_and_malformed_frames(digital, frame):
    drive, table, player = digital
    ws = await open_socket(f"/ws/play/{drive.join_code}/", f"ff_{drive.join_code}={player.token}")
    await send(ws, frame)
    assert (await ws.receive_json_from(timeout=30))["type"] == "error"
    await ws.send_json_to({"type": "sync"})
    assert (await ws.receive_json_from(timeout=30))["type"] == "state"
    await ws.disconnect()


DEEP = ["[" * 1000 + "]" * 1000, '{"type": "sync", "a": ' + "[" * 1500 + "]" * 1500 + "}"]


@pytest.mark.parametrize("frame", DEEP)
async def test_a_frame_nested_a_thousand_deep_gets_an_error_and_the_socket_stays(digital, frame):
    """Python's JSON parser gives up on deep nesting with a RecursionError, not a ValueError:
    it once closed the socket with an internal error (and a traceback in the log per frame)."""
    drive, table, player = digital
    ws = await open_socket(f"/ws/play/{drive.join_code}/", f"ff_{drive.join_code}={player.token}")
    await ws.send_to(text_data=frame)
    answer = await ws.receive_json_from(timeout=30)
    assert answer == {"type": "error", "message": "That message is nested too deeply."}
    await ws.send_json_to({"type": "sync"})
    assert (await ws.receive_json_from(timeout=30))["type"] == "state"
    await ws.disconnect()


@pytest.mark.parametrize("path", ["/ws/nothing/", "/ws/drive/ABCDE/admin/", "/ws/bench/echo-group/x/", "/"])
async def test_a_socket_to_a_path_nobody_serves_is_refused_without_an_error(path, caplog):
    ws = communicator(path)
    connected, _ = await ws.connect(timeout=30)
    assert not connected
    assert not [r for r in caplog.records if r.levelname in ("ERROR", "CRITICAL")]
