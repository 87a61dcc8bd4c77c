"""Sending to channel-layer groups from the server's own threads, after a commit.

Only the channel layer's public API is used (``group_send``). Every send runs on the server's
event loop: the in-memory layer wakes its receivers through futures of that loop (setting them
from another thread is not thread-safe), and the Redis layers keep one connection per loop.
Sends are handed to a task of the loop that makes them in the order they were handed over, so
a table's versions and a drive's updates reach each process in order. A drive's full updates
(``bulk``: a message per phone, hundreds at a time) have a task of their own, which yields to
the loop after every send: a result's, a move's or an instruction's message, small and awaited
by someone watching, never waits behind them (at 1,000 phones a full update's sends held the
loop 70 ms; on Redis 50 sends held it about 15 ms, and a result's message waiting behind them
put hall's p95 at 1.9-2.2 times its floor, against 1.1-1.5 yielding after each;
docs/benchmarks.md). A send that fails ends its update's sends: the layer is away, and each of
the hundreds left would wait for it and fail in turn. The pages order what
arrives by its stamps, so the two lanes may overtake each other. A layer that is down
(Redis stopped) is logged and never raised at the writer: the write has committed, and every
page catches up when its socket reconnects.

With no server loop (a management command, a synchronous test) a send runs at once on a loop
of its own (``async_to_sync``).
"""

from __future__ import annotations

import asyncio
import logging
from concurrent.futures import Future
from typing import Any

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer

log = logging.getLogger(__name__)
TIMEOUT = 30.0  # seconds one batch of sends may take before it is given up (Redis away)
Messages = list[tuple[str, dict[str, Any]]]

_server_loop: asyncio.AbstractEventLoop | None = None
_queues: dict[tuple[asyncio.AbstractEventLoop, bool], asyncio.Queue] = {}  # by (loop, bulk)
_tasks: set[asyncio.Task] = set()


def remember_loop() -> None:
    """Called on the server's event loop (every socket's connect, every request): where sends run."""
    global _server_loop
    _server_loop = asyncio.get_running_loop()


def server_loop() -> asyncio.AbstractEventLoop | None:
    loop = _server_loop
    if loop is None or loop.is_closed() or not loop.is_running():
        return None
    return loop


async def _send_now(messages: Messages) -> bool:
    channel_layer = get_channel_layer()
    try:
        async with asyncio.timeout(TIMEOUT):
            if len(messages) == 1:  # a move's or a result's message: sent from this task, at once
                await channel_layer.group_send(*messages[0])
            else:  # side by side (each a round trip to Redis)
                await asyncio.gather(*(channel_layer.group_send(group, message) for group, message in messages))
    except Exception:
        log.warning("live update of %d group(s) not sent: channel layer unavailable", len(messages), exc_info=True)
        return False
    return True


async def _sender(queue: asyncio.Queue, bulk: bool) -> None:
    while True:
        messages, done = await queue.get()
        if bulk:  # one send at a time, yielding to the loop after each
            sent = True
            for message in messages:
                if not await _send_now([message]):  # the layer is away: the rest would wait and fail too
                    sent = False
                    break
                await asyncio.sleep(0)
        else:  # a batch at once
            sent = await _send_now(messages)
        if done is not None and not done.done():
            done.set_result(sent)


def _enqueue(loop: asyncio.AbstractEventLoop, messages: Messages, done: Future | None, bulk: bool) -> None:
    for closed in [key for key in _queues if key[0].is_closed()]:  # (tests run a loop each)
        del _queues[closed]
    queue = _queues.get((loop, bulk))
    if queue is None:
        queue = _queues[(loop, bulk)] = asyncio.Queue()
        start_task(_sender(queue, bulk))
    queue.put_nowait((messages, done))


def send_many(messages: Messages, *, wait: bool = False, bulk: bool = False) -> bool:
    """Send (group, message) pairs, from any thread: on the server's loop, in order with every
    other send of the same lane (``bulk``: a drive's full update), not waited for unless
    ``wait`` (then False if the layer could not take them)."""
    if not messages:
        return True
    loop = server_loop()
    if loop is None:
        return async_to_sync(_send_now)(messages)
    done: Future | None = Future() if wait else None
    try:
        running = asyncio.get_running_loop()
    except RuntimeError:
        running = None
    if running is loop:
        _enqueue(loop, messages, None, bulk)
        return True
    loop.call_soon_threadsafe(_enqueue, loop, messages, done, bulk)
    if done is None:
        return True
    try:
        return done.result(TIMEOUT + 5)
    except Exception:
        log.warning("live update of %d group(s) not confirmed", len(messages), exc_info=True)
        return False


def send(group: str, message: dict[str, Any]) -> bool:
    return send_many([(group, message)])


def start_task(coroutine: Any) -> asyncio.Task:
    """A task of the running loop, referenced until it ends (the loop keeps only weak ones); its
    failure is logged, as no one may be waiting for it."""
    task = asyncio.ensure_future(coroutine)
    _tasks.add(task)
    task.add_done_callback(_task_done)
    return task


def _task_done(task: asyncio.Task) -> None:
    _tasks.discard(task)
    if not task.cancelled() and task.exception() is not None:
        log.error("a background task failed", exc_info=task.exception())
