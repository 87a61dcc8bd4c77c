"""/healthz: a real round trip through the database and through the channel layer."""

from __future__ import annotations

import asyncio
import time
import uuid

from asgiref.sync import sync_to_async
from channels.layers import get_channel_layer
from django.db import connection
from django.http import JsonResponse


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
        # A channel of its own (not a "specific" one of the process: cancelling a receive of
        # those, as the timeout below may, can lose another socket's message; config.layer)
        channel = f"healthz.{uuid.uuid4().hex}"
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
