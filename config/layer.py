"""Sending to channel-layer groups from synchronous code, safely.

A write has already committed when these run (they are called from ``on_commit`` hooks), so a
channel layer that is down (Redis stopped) is logged and never raised at the writer: pages say
live updates are paused and catch up when their socket reconnects.
"""

from __future__ import annotations

import asyncio
import logging
import time
import uuid
import weakref
from collections import defaultdict, deque
from typing import Any

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer

log = logging.getLogger(__name__)
PROCESS = uuid.uuid4().hex  # this server process, in a message it sends itself through its inbox
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


class InboxSockets(LocalSockets):
    """``LocalSockets`` whose keys each have a group that this process's inbox is in while it
    holds a socket of that key (when ``enabled()``): a message to the group crosses the layer
    once per process, and the inbox's handler hands it to the sockets here."""

    def __init__(self, group_of: Any, enabled: Any = lambda: True) -> None:
        super().__init__()
        self.group_of, self.enabled = group_of, enabled

    async def join(self, key: Any, socket: Any) -> None:
        self.add(key, socket)
        if self.enabled():
            await join_inbox(self.group_of(key))

    async def leave(self, key: Any, socket: Any) -> None:
        self.discard(key, socket)
        await self.forget(key)

    async def hand(self, key: Any, call: Any, what: str, *, yielding: bool = False) -> None:
        """``await call(socket)`` for each of this process's sockets of ``key``, one failing
        (closing) not stopping the others; with none here (they went without leaving, as after
        a crash) the inbox leaves the key's group. ``yielding``: the loop runs whatever else is
        ready between two sockets (a socket's send does not wait: a hundred of them would hold
        the loop for as long as they take)."""
        sockets = self.of(key)
        for socket in sockets:
            try:
                await call(socket)
            except Exception:  # that socket is closing: its page catches up on reconnect
                log.warning("a socket of %s missed %s", key, what, exc_info=True)
            if yielding:
                await asyncio.sleep(0)
        if not sockets:
            start_task(self.forget(key))

    async def forget(self, key: Any) -> None:
        """The inbox leaves the key's group when no socket of it is here (a socket that went
        without leaving, after a crash, included); it joins again if one came meanwhile."""
        if self.of(key) or not self.enabled():
            return
        await leave_inbox(self.group_of(key))
        if self.of(key):
            await join_inbox(self.group_of(key))


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


def group_has_members(group: str, channel_layer: Any = None) -> bool | None:
    """From a thread of our own: whether any channel is in ``group`` now (on Redis, a member
    that joined within the layer's group expiry, as ``group_send`` counts them); None when it
    cannot tell (another layer, Redis away)."""
    channel_layer = channel_layer or get_channel_layer()
    try:
        from channels_redis.core import RedisChannelLayer
    except ImportError:
        return None
    if not isinstance(channel_layer, RedisChannelLayer):
        return None

    async def count() -> int:
        connection = channel_layer.connection(channel_layer.consistent_hash(group))
        return await connection.zcount(channel_layer._group_key(group), int(time.time()) - channel_layer.group_expiry,
                                       "+inf")

    try:
        return async_to_sync(count)() > 0
    except Exception:
        log.warning("could not tell whether group %s has members: channel layer unavailable", group, exc_info=True)
        return None


def send_many(messages: list[tuple[str, dict[str, Any]]]) -> bool:
    """Send (group, message) pairs in one trip to the event loop (concurrently on Redis).

    Returns False when the channel layer could not be reached."""
    layer = get_channel_layer()
    if layer is None or not messages:
        return layer is not None

    async def send_all() -> None:
        for start in range(0, len(messages), CHUNK):
            chunk = messages[start : start + CHUNK]
            await asyncio.gather(*(group_send(layer, group, message) for group, message in chunk))

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


# This process's inbox: one channel of the layer, read by one task on the server's loop, that
# joins groups in the process's name. A message to such a group crosses the layer once per
# process, however many of the process's sockets it is for; a handler (by message type) hands
# it to them. Per loop and layer (tests run one loop each).
_inboxes: dict[tuple[int, int], tuple[str, asyncio.Task, set[str]]] = {}
_inbox_handlers: dict[str, Any] = {}
_bulky: dict[str, Any] = {}  # message types handled in the inbox's second lane -> their merge (``on_inbox``)


def on_inbox(message_type: str, handler: Any, *, bulky: bool = False, merge: Any = None) -> None:
    """``await handler(message)`` for every message of that type that reaches the inbox.

    ``bulky``: a message that takes the loop a while to hand out (a drive's full update: every
    phone's fragment, sent to each of this process's sockets) is handled in a second lane, a
    task of its own that takes them in the order they came, so the small messages behind it (a
    table's result to the screens, a digital table's next version) are read and handed out
    meanwhile instead of waiting for it. Its handler should yield now and then (``hand`` does,
    with ``yielding=True``). Each lane keeps its own order; pages take an update and a result
    in either order (each carries its stamps); a message whose order with an update matters (a
    close's movement instructions to the phones) is bulky too.

    ``merge(waiting, newer)``: a bulky message that supersedes one of its type still waiting in
    the lane is merged into it there (None: it is not one to merge with, it waits its turn), so
    a burst of updates leaves one to hand out, not each in turn; never past a waiting message
    of another type."""
    _inbox_handlers[message_type] = handler
    _bulky.pop(message_type, None)
    if bulky:
        _bulky[message_type] = merge


def inbox_channel_name() -> str:
    """A channel of its own kind, not one of the process's "specific" channels (``new_channel``):
    channels_redis reads all of those through one shared receive, taken in turn by whichever
    socket's receive holds its lock; a socket that disconnects cancels its receive, and a
    message it had just popped from Redis, for any channel of the process, is lost
    (django/channels#1683, channels_redis#366). Seen here: a digital table's version lost at a
    hand's end, when its sockets closed. The inbox's own channel is read by the inbox alone,
    and nothing cancels that read but the inbox's closing."""
    return f"inbox.{uuid.uuid4().hex}"


async def join_inbox(group: str, channel_layer: Any = None) -> None:
    """This process's inbox joins ``group`` (again: a join also renews the group's expiry)."""
    channel_layer = channel_layer or get_channel_layer()
    key = (id(asyncio.get_running_loop()), id(channel_layer))
    inbox = _inboxes.get(key)
    if inbox is None or inbox[1].done():
        channel = inbox_channel_name()
        groups = set(inbox[2]) if inbox is not None else set()  # a reader that died: its groups go on
        inbox = (channel, asyncio.ensure_future(_read_inbox(channel_layer, channel, groups)), groups)
        _inboxes[key] = inbox
        for earlier in groups - {group}:
            await channel_layer.group_add(earlier, channel)
    inbox[2].add(group)
    await channel_layer.group_add(group, inbox[0])


async def leave_inbox(group: str, channel_layer: Any = None) -> None:
    """The inbox leaves ``group`` (no socket of this process needs it now); with no group left
    it stops reading, and the next ``join_inbox`` opens a new one."""
    channel_layer = channel_layer or get_channel_layer()
    key = (id(asyncio.get_running_loop()), id(channel_layer))
    inbox = _inboxes.get(key)
    if inbox is None or group not in inbox[2]:
        return
    inbox[2].discard(group)
    await _discard(channel_layer, group, inbox[0])
    if not inbox[2] and _inboxes.get(key) is inbox:  # no group joined meanwhile
        await close_inbox(channel_layer)


async def close_inbox(channel_layer: Any = None) -> None:
    """The inbox leaves its groups, then stops reading (so nothing lands in a channel that no
    one reads any more)."""
    channel_layer = channel_layer or get_channel_layer()
    inbox = _inboxes.pop((id(asyncio.get_running_loop()), id(channel_layer)), None)
    if inbox is None:
        return
    channel, task, groups = inbox
    for group in list(groups):
        await _discard(channel_layer, group, channel)
    task.cancel()
    if task is not asyncio.current_task():
        try:
            await task
        except asyncio.CancelledError:
            pass


async def _discard(channel_layer: Any, group: str, channel: str) -> None:
    try:
        await channel_layer.group_discard(group, channel)
    except Exception:  # Redis away: the membership expires on its own
        log.warning("this process's inbox could not leave %s", group, exc_info=True)


async def _read_inbox(channel_layer: Any, channel: str, groups: set[str]) -> None:
    lane: deque[tuple[Any, dict[str, Any]]] = deque()  # the bulky messages still to hand out, in order
    second: asyncio.Task | None = None  # the task handing them out
    failing = False
    try:
        while True:
            try:
                message = await receive(channel_layer, channel)
            except asyncio.CancelledError:
                raise
            except Exception:  # Redis away: try again, and join the groups again (a restarted Redis has none)
                if not failing:
                    log.warning("this process's inbox could not read the channel layer; retrying", exc_info=True)
                failing = True
                await asyncio.sleep(1)
                try:
                    for group in list(groups):
                        await channel_layer.group_add(group, channel)
                except Exception:
                    continue
                log.warning("this process's inbox reads the channel layer again")
                failing = False
                continue
            kind = message.get("type")
            handler = _inbox_handlers.get(kind)
            if handler is None:
                continue
            if kind in _bulky:
                _queue(lane, handler, message, _bulky[kind])
                if second is None or second.done():
                    second = start_task(_second_lane(lane))
                continue
            try:
                await handler(message)
            except Exception:
                log.exception("a %s message to this process was not handled", message.get("type"))
    finally:  # the inbox closes (or its reader died): its lane goes with it; a new reader has its own
        lane.clear()
        if second is not None:
            second.cancel()


def _queue(lane: deque, handler: Any, message: dict[str, Any], merge: Any) -> None:
    """``message`` merged into the latest waiting one of its type that it supersedes (not past
    one of another type), else at the end of the lane."""
    if merge is not None:
        for at in range(len(lane) - 1, -1, -1):
            waiting = lane[at][1]
            if waiting.get("type") != message.get("type"):
                break
            merged = merge(waiting, message)
            if merged is not None:
                lane[at] = (handler, merged)
                return
    lane.append((handler, message))


async def _second_lane(lane: deque) -> None:
    """The inbox's bulky messages, one after another, until none is left (``on_inbox``)."""
    while lane:
        handler, message = lane.popleft()
        try:
            await handler(message)
        except Exception:
            log.exception("a %s message to this process was not handled", message.get("type"))


_tasks: set[asyncio.Task] = set()


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


def send_soon(messages: list[tuple[str, dict[str, Any]]]) -> bool:
    """``send_many`` without waiting: handed to the server's event loop when there is one (a
    committing thread goes on at once; a failure is logged there), else sent as ``send_many``."""
    layer = get_channel_layer()
    if layer is None or not messages:
        return layer is not None

    async def send_all() -> None:
        try:
            await asyncio.wait_for(
                asyncio.gather(*(group_send(layer, group, message) for group, message in messages)), TIMEOUT
            )
        except Exception:
            log.warning("live update of %d group(s) not sent: channel layer unavailable", len(messages), exc_info=True)

    return run_soon(send_all) or send_many(messages)


def send(group: str, message: dict[str, Any]) -> bool:
    return send_many([(group, message)])


# --- one round trip to Redis ------------------------------------------------------------------
# channels_redis's group_send makes four round trips to Redis (expire the group, read it, expire
# each member's queue, then a script that adds the message), and its receive one more after the
# pop (a backup copy, so that a receive cancelled by a closing socket loses nothing), before the
# message is handed over. The groups of this application's live messages have process inboxes in
# them (plain channels, read by one task that nothing cancels but the inbox's own closing): for
# those one script does the four steps in one trip, and the inbox pops its messages directly.
# The same keys, scores, expiries, capacity and serialised form as channels_redis (pinned in
# requirements.txt), so either side may be the stock one. A group with a socket's own channel
# in it ("specific.…!…", whose message differs per member) is left to the stock group_send.

_GROUP_SEND = """
redis.call('ZREMRANGEBYSCORE', KEYS[1], 0, ARGV[3])
local members = redis.call('ZRANGE', KEYS[1], 0, -1)
for i = 1, #members do
    if string.find(members[i], '!', 1, true) then
        return -1
    end
end
local over = 0
for i = 1, #members do
    if members[i] ~= ARGV[8] then
        local key = ARGV[7] .. members[i]
        redis.call('ZREMRANGEBYSCORE', key, 0, ARGV[4])
        if redis.call('ZCOUNT', key, '-inf', '+inf') < tonumber(ARGV[6]) then
            redis.call('ZADD', key, ARGV[2], ARGV[1])
            redis.call('EXPIRE', key, ARGV[5])
        else
            over = over + 1
        end
    end
end
return over
"""
_GROUP_SEND_SHA = __import__("hashlib").sha1(_GROUP_SEND.encode()).hexdigest()


def _redis_direct(channel_layer: Any) -> bool:
    """Whether ``group_send`` and ``receive`` may take the one-trip way: a channels_redis core
    layer on one Redis server (no sharding), with one capacity for every channel."""
    try:
        from channels_redis.core import RedisChannelLayer
    except ImportError:
        return False
    return (type(channel_layer) is RedisChannelLayer and channel_layer.ring_size == 1
            and not channel_layer.channel_capacity)


async def group_send(channel_layer: Any, group: str, message: dict[str, Any], *, others_only: bool = False) -> None:
    """``channel_layer.group_send(group, message)``; on Redis in one round trip when every
    member of the group is a plain channel (a process's inbox), else the stock way.
    ``others_only``: the sender has told its own process already, so this process's inbox is
    left out (on that one-trip way; the stock way sends to every member)."""
    skip = ""
    if others_only:
        inbox = _inboxes.get((id(asyncio.get_running_loop()), id(channel_layer)))
        skip = inbox[0] if inbox is not None else ""
    if not _redis_direct(channel_layer) or not await _group_send_direct(channel_layer, group, message, skip):
        await channel_layer.group_send(group, message)


async def _group_send_direct(channel_layer: Any, group: str, message: dict[str, Any], skip: str = "") -> bool:
    """False (nothing sent) when the group has a socket's own channel in it."""
    from redis.exceptions import NoScriptError

    assert channel_layer.require_valid_group_name(group), "Group name not valid"
    connection = channel_layer.connection(0)
    now = time.time()
    args = [channel_layer.serialize(message), now, int(now) - channel_layer.group_expiry,
            int(now) - int(channel_layer.expiry), int(channel_layer.expiry), channel_layer.capacity,
            channel_layer.prefix, skip]
    key = channel_layer._group_key(group)
    try:
        over = await connection.evalsha(_GROUP_SEND_SHA, 1, key, *args)
    except NoScriptError:  # a new (or flushed) Redis: the script goes with the call once
        over = await connection.eval(_GROUP_SEND, 1, key, *args)
    if over == -1:
        return False
    if over:
        log.info("%s channel(s) of group %s over capacity: message dropped for them", over, group)
    return True


async def receive(channel_layer: Any, channel: str) -> dict[str, Any]:
    """The next message of a plain channel read by one task only (a process's inbox): on Redis
    popped and handed over at once; else ``channel_layer.receive``. Unlike channels_redis's
    receive it keeps no backup copy: a message popped just as the connection to Redis breaks
    (Redis restarting, a network reset) is lost. A table's next version, or a drive's next
    update, makes up for it (each carries the whole current state), and pages ask again after
    a quiet spell (``static/js/play.js``) or on reconnecting."""
    if not _redis_direct(channel_layer) or "!" in channel:
        return await channel_layer.receive(channel)
    assert channel_layer.require_valid_channel_name(channel, receive=True), "Channel name invalid"
    connection = channel_layer.connection(0)
    key = channel_layer.prefix + channel
    while True:
        popped = await connection.bzpopmin(key, timeout=channel_layer.brpop_timeout)
        if popped is not None:
            message = channel_layer.deserialize(popped[1])
            message.pop("__asgi_channel__", None)  # sent by the stock group_send
            return message
