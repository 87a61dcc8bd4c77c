"""/healthz: a real round trip through the database and through the channel layer; and the
websocket routes' two consumers of the server itself.

``HealthConsumer`` proves the websocket and channel-layer wiring end to end: a client sends
``{"type": "ping", "nonce": "…"}``; the server sends a message through the channel layer
(in-memory or Redis) to that socket's own channel, which answers ``{"type": "pong", "nonce": …}``.
Only the sender: a ping that every socket answered would let one client with N sockets make
the server send N² frames. The sockets are in the ``health`` group too, for diagnostics: a
group send from any thread or process reaches every health socket (a test proves the server's
threads can send to sockets that way).
"""

from __future__ import annotations

import asyncio
import re
import time

from asgiref.sync import sync_to_async
from channels.layers import get_channel_layer
from django.db import connection
from channels.generic.websocket import AsyncWebsocketConsumer
from django.http import JsonResponse

from common.consumers import JsonFrameConsumer

GROUP = "health"
NONCE = re.compile(r"[A-Za-z0-9_.:-]{0,64}")  # what a ping may ask to have echoed
PATH = "/healthz"  # config.urls serves it; config.http_handler answers it outside the request queue


def _database_state() -> dict:
    started = time.perf_counter()
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
    except Exception as exc:  # reported, not raised: this page exists to say what is wrong
        return {"ok": False, "error": str(exc)[:200], "vendor": connection.vendor}
    return {"ok": True, "vendor": connection.vendor, "ms": round((time.perf_counter() - started) * 1000, 2)}


async def _channel_layer_state() -> dict:
    layer = get_channel_layer()
    name = type(layer).__name__ if layer else None
    if layer is None:
        return {"ok": False, "backend": None, "error": "no channel layer configured"}
    started = time.perf_counter()
    try:
        channel = await layer.new_channel("healthz.")  # subscribed before the send (Redis pub/sub)
        await asyncio.wait_for(layer.send(channel, {"type": "healthz.ping"}), 2)
        message = await asyncio.wait_for(layer.receive(channel), 2)
        ok = message.get("type") == "healthz.ping"
    except Exception as exc:
        return {"ok": False, "backend": name, "error": str(exc)[:200] or type(exc).__name__}
    return {"ok": ok, "backend": name, "ms": round((time.perf_counter() - started) * 1000, 2)}


async def healthz(request):
    database = await sync_to_async(_database_state, thread_sensitive=True)()
    layer = await _channel_layer_state()
    ok = database["ok"] and layer["ok"]
    return JsonResponse(
        {"status": "ok" if ok else "degraded", "database": database, "channel_layer": layer},
        status=200 if ok else 503,
    )


class NoRoute(AsyncWebsocketConsumer):
    """Every websocket path no consumer serves: the handshake is refused (HTTP 403), quietly,
    where the router would raise (a server error and a traceback in the log)."""

    async def connect(self):
        await self.close()


class HealthConsumer(JsonFrameConsumer):
    max_frame = 256

    async def connect(self):
        await self.channel_layer.group_add(GROUP, self.channel_name)
        await self.accept()

    async def disconnect(self, code):
        await self.channel_layer.group_discard(GROUP, self.channel_name)

    async def receive_json(self, content, **kwargs):
        if content.get("type") != "ping":
            await self.error('Send {"type": "ping"}.')
            return
        nonce = content.get("nonce", "")
        if not isinstance(nonce, str) or not NONCE.fullmatch(nonce):
            # (A lone surrogate, say, crossed the in-memory layer but no other: Redis refused it.)
            await self.error('A nonce is 0-64 letters, digits, "-", "_", "." or ":".')
            return
        await self.channel_layer.send(self.channel_name, {"type": "health.pong", "nonce": nonce})

    async def health_pong(self, event):
        await self.send_json({"type": "pong", "nonce": event["nonce"]})
