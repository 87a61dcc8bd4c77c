"""Sending to channel-layer groups from synchronous code, safely.

A write has already committed when these run (they are called from ``on_commit`` hooks), so a
channel layer that is down (Redis stopped) is logged and never raised at the writer: pages say
live updates are paused and catch up when their socket reconnects.
"""

from __future__ import annotations

import asyncio
import logging
import weakref
from collections import defaultdict
from typing import Any

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer

log = logging.getLogger(__name__)
CHUNK = 50
TIMEOUT = 30.0

_server_loop: asyncio.AbstractEventLoop | None = None


def several_processes(channel_layer: Any = None) -> bool:
    """Whether sockets of other server processes may listen on the layer (Redis); the
    in-memory layer is one process's own."""
    from channels.layers import InMemoryChannelLayer

    return not isinstance(channel_layer or get_channel_layer(), InMemoryChannelLayer)


class LocalSockets(defaultdict):
    """This process's sockets by key (a table, a drive), held weakly: what a sender on this
    process reaches directly, without a trip through the layer."""

    def __init__(self) -> None:
        super().__init__(weakref.WeakSet)

    def add(self, key: Any, socket: Any) -> None:
        self[key].add(socket)

    def discard(self, key: Any, socket: Any) -> None:
        sockets = self.get(key)
        if sockets is not None:
            sockets.discard(socket)
            if not sockets:
                self.pop(key, None)

    def of(self, key: Any) -> list[Any]:
        return list(self.get(key, ()))


def remember_loop() -> None:
    """Called on the server's event loop (every socket's connect): the loop the in-memory
    layer's queues belong to."""
    global _server_loop
    _server_loop = asyncio.get_running_loop()


def _loop_for(layer: Any) -> asyncio.AbstractEventLoop | None:
    """The in-memory layer wakes its receivers through asyncio futures of the server's loop, so a
    send from a thread of our own (the live-update worker, the apply threads) must run on that
    loop; ``async_to_sync`` would run it on a new loop of its own, where setting those futures
    is not thread-safe and a receiver may not wake until something else wakes the server.
    Redis needs no such thing (its receivers read from Redis)."""
    from channels.layers import InMemoryChannelLayer

    loop = _server_loop
    if loop is None or loop.is_closed() or not loop.is_running() or not isinstance(layer, InMemoryChannelLayer):
        return None
    try:
        if asyncio.get_running_loop() is loop:
            return None
    except RuntimeError:
        pass
    return loop


def run_soon(make_coroutine: Any) -> bool:
    """Run ``make_coroutine()`` on the server's event loop without waiting for it, from any
    thread. False when there is no running server loop (nothing is run then)."""
    loop = _server_loop
    if loop is None or loop.is_closed() or not loop.is_running():
        return False
    try:
        running = asyncio.get_running_loop()
    except RuntimeError:
        running = None
    if running is loop:
        loop.create_task(make_coroutine())
    else:
        asyncio.run_coroutine_threadsafe(make_coroutine(), loop)
    return True


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
        loop = _loop_for(layer)
        if loop is not None:
            asyncio.run_coroutine_threadsafe(send_all(), loop).result(TIMEOUT)
        else:
            async_to_sync(send_all)()
    except Exception:
        log.warning("live update of %d group(s) not sent: channel layer unavailable", len(messages), exc_info=True)
        return False
    return True


def send_soon(messages: list[tuple[str, dict[str, Any]]]) -> bool:
    """``send_many`` without waiting: handed to the server's event loop when there is one (a
    committing thread goes on at once; a failure is logged there), else sent as ``send_many``."""
    layer = get_channel_layer()
    if layer is None or not messages:
        return layer is not None

    async def send_all() -> None:
        try:
            await asyncio.wait_for(
                asyncio.gather(*(layer.group_send(group, message) for group, message in messages)), TIMEOUT
            )
        except Exception:
            log.warning("live update of %d group(s) not sent: channel layer unavailable", len(messages), exc_info=True)

    return run_soon(send_all) or send_many(messages)


def send(group: str, message: dict[str, Any]) -> bool:
    return send_many([(group, message)])
