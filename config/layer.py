"""Sending to channel-layer groups from synchronous code, safely.

A write has already committed when these run (they are called from ``on_commit`` hooks), so a
channel layer that is down (Redis stopped) is logged and never raised at the writer: pages say
live updates are paused and catch up when their socket reconnects.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer

log = logging.getLogger(__name__)
CHUNK = 50
SEND_TIMEOUT = 30

# The server's own event loop (recorded by config.asgi on every call). Sends from worker threads
# run on it: the channel layer's connections (Redis pools are per loop) and the in-memory layer's
# queues belong to that loop; a fresh loop per send would open new connections every time and
# wake no one reliably.
_server_loop: asyncio.AbstractEventLoop | None = None


def remember_server_loop() -> None:
    global _server_loop
    _server_loop = asyncio.get_running_loop()


def _run(coroutine_factory) -> None:
    loop = _server_loop
    try:
        current = asyncio.get_running_loop()
    except RuntimeError:
        current = None
    if loop is not None and loop.is_running() and not loop.is_closed() and current is not loop:
        asyncio.run_coroutine_threadsafe(coroutine_factory(), loop).result(SEND_TIMEOUT)
    else:
        async_to_sync(coroutine_factory)()


def send_many(messages: list[tuple[str, dict[str, Any]]]) -> bool:
    """Send (group, message) pairs in one trip to the event loop (concurrently on Redis).

    Returns False when the channel layer could not be reached."""
    layer = get_channel_layer()
    if layer is None or not messages:
        return layer is not None

    async def send_all() -> None:
        for start in range(0, len(messages), CHUNK):
            chunk = messages[start : start + CHUNK]
            await asyncio.gather(*(layer.group_send(group, message) for group, message in chunk))

    try:
        _run(send_all)
    except Exception:
        log.warning("live update of %d group(s) not sent: channel layer unavailable", len(messages), exc_info=True)
        return False
    return True


def send(group: str, message: dict[str, Any]) -> bool:
    return send_many([(group, message)])
