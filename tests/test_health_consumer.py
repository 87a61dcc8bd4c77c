"""The first consumer, proven on whichever channel layer the settings choose (in-memory or Redis)."""

from __future__ import annotations

import json

import pytest
from channels.testing import WebsocketCommunicator
from django.conf import settings

from config.asgi import application

ORIGIN = [(b"origin", b"http://localhost")]
# Channels closes stale database connections around every consumer call, so even a consumer
# that never queries needs database access allowed in tests.
pytestmark = pytest.mark.django_db


async def test_ping_travels_through_the_channel_layer_back_to_its_sender_only():
    """One pong per ping, to the sender: a ping every socket answered would let one client with
    N sockets make the server send N² frames (found by probing from outside)."""
    first = WebsocketCommunicator(application, "/ws/health/", headers=ORIGIN)
    second = WebsocketCommunicator(application, "/ws/health/", headers=ORIGIN)
    assert (await first.connect())[0] and (await second.connect())[0]
    await first.send_json_to({"type": "ping", "nonce": "n1"})
    assert await first.receive_json_from(timeout=30) == {"type": "pong", "nonce": "n1"}
    assert await second.receive_nothing(timeout=0.5)
    assert await first.receive_nothing(timeout=0.1)
    await first.disconnect()
    await second.disconnect()


@pytest.mark.parametrize("nonce", ["\ud800", "x" * 65, 7, None, "n 1", "caf\u00e9"])
async def test_a_ping_whose_nonce_is_not_plain_text_gets_an_error_and_the_socket_stays(nonce):
    """A lone surrogate crossed the in-memory layer, but not Redis's: the socket closed with a
    traceback in the log. Whatever the layer, a nonce is letters, digits and - _ . : only."""
    socket = WebsocketCommunicator(application, "/ws/health/", headers=ORIGIN)
    assert (await socket.connect())[0]
    await socket.send_to(text_data=json.dumps({"type": "ping", "nonce": nonce}))  # "\ud800": its JSON escape
    reply = await socket.receive_json_from(timeout=30)
    assert reply["type"] == "error" and "nonce" in reply["message"]
    await socket.send_json_to({"type": "ping", "nonce": "a-1_b.c:d"})
    assert await socket.receive_json_from(timeout=30) == {"type": "pong", "nonce": "a-1_b.c:d"}
    await socket.send_json_to({"type": "ping"})
    assert await socket.receive_json_from(timeout=30) == {"type": "pong", "nonce": ""}
    await socket.disconnect()


async def test_malformed_frame_gets_an_error_not_a_crash():
    socket = WebsocketCommunicator(application, "/ws/health/", headers=ORIGIN)
    assert (await socket.connect())[0]
    await socket.send_to(text_data="{not json")
    reply = await socket.receive_json_from(timeout=30)
    assert reply["type"] == "error"
    await socket.send_json_to(["a", "list"])
    assert (await socket.receive_json_from(timeout=30))["type"] == "error"
    await socket.disconnect()


async def test_socket_from_a_foreign_origin_is_refused():
    socket = WebsocketCommunicator(application, "/ws/health/", headers=[(b"origin", b"http://evil.example")])
    connected, _ = await socket.connect()
    assert not connected


def test_layer_backend_matches_the_environment():
    import os

    backend = settings.CHANNEL_LAYERS["default"]["BACKEND"]
    if os.environ.get("REDIS_URL"):
        assert backend == "channels_redis.pubsub.RedisPubSubChannelLayer"
    else:
        assert backend == "common.memory_layer.SweepingInMemoryChannelLayer"


@pytest.mark.redis
async def test_an_idle_socket_survives_longer_than_redis_read_timeouts():
    # redis-py 8 defaults to a 5 s socket timeout, the same as channels_redis's blocking read:
    # without the setting in config/settings.py a socket quiet for 5 s is dropped.
    import asyncio

    hosts = settings.CHANNEL_LAYERS["default"]["CONFIG"]["hosts"]
    assert hosts[0]["socket_timeout"] is None
    socket = WebsocketCommunicator(application, "/ws/health/", headers=ORIGIN)
    assert (await socket.connect())[0]
    await asyncio.sleep(6.5)
    await socket.send_json_to({"type": "ping", "nonce": "late"})
    assert await socket.receive_json_from(timeout=30) == {"type": "pong", "nonce": "late"}
    await socket.disconnect()


async def test_a_send_from_a_thread_of_the_servers_own_reaches_a_socket_at_once():
    """The live-update worker and the apply threads are plain threads: their sends must run on
    the server's loop, whose futures the in-memory layer sets (common/layer.py)."""
    import threading
    import time

    from common import layer

    ws = WebsocketCommunicator(application, "/ws/health/", headers=[(b"origin", b"http://localhost")])
    assert (await ws.connect(timeout=30))[0]
    sent = []
    thread = threading.Thread(target=lambda: sent.append(layer.send_many(
        [("health", {"type": "health.pong", "nonce": "from-a-thread"})])))
    t0 = time.monotonic()
    thread.start()
    # Sent on a loop of its own, the message never reaches the socket here (its receiver is not
    # woken, until the wait's own timer ends it at 60 s); on the server's, in a twentieth of a
    # second. The bound leaves a busy CI machine room (it once took 1.1 s there) and still fails
    # the loop of its own.
    reply = await ws.receive_json_from(timeout=60)
    assert reply == {"type": "pong", "nonce": "from-a-thread"} and time.monotonic() - t0 < 30
    thread.join(30)
    assert sent == [True]
    await ws.disconnect()
