"""On Redis, a send to a group of process inboxes is one round trip (one script), and an inbox
pops its messages directly; both keep channels_redis's keys, expiries, capacity and message
form, so the stock receive and group_send interoperate with them."""

from __future__ import annotations

import asyncio
import time
import uuid

import pytest

from config import layer

pytestmark = pytest.mark.redis


@pytest.fixture
def redis_layer(settings):
    from channels_redis.core import RedisChannelLayer

    config = dict(settings.CHANNEL_LAYERS["default"]["CONFIG"])
    config["prefix"] = f"test{uuid.uuid4().hex[:8]}"
    config["capacity"] = 3
    return RedisChannelLayer(**config)


def _counting(monkeypatch, channel_layer) -> list[str]:
    """The Redis commands the layer's connection sends (by name)."""
    from redis.asyncio.client import Redis

    sent: list[str] = []
    real = Redis.execute_command

    async def counted(self, *args, **options):
        sent.append(str(args[0]).upper())
        return await real(self, *args, **options)

    monkeypatch.setattr(Redis, "execute_command", counted)
    return sent


async def test_a_group_of_inboxes_gets_a_message_in_one_round_trip(redis_layer, monkeypatch):
    inboxes = [layer.inbox_channel_name() for _ in range(2)]
    for inbox in inboxes:
        await redis_layer.group_add("table-1", inbox)
    sent = _counting(monkeypatch, redis_layer)
    await layer.group_send(redis_layer, "table-1", {"type": "table.version", "table": 1, "version": 7})
    assert sent in (["EVALSHA"], ["EVALSHA", "EVAL"])  # (EVAL once, on a Redis that lacks the script)
    # Read back the fast way and the stock way: the same message, nothing added to it.
    assert await layer.receive(redis_layer, inboxes[0]) == {"type": "table.version", "table": 1, "version": 7}
    assert await redis_layer.receive(inboxes[1]) == {"type": "table.version", "table": 1, "version": 7}
    await redis_layer.flush()


async def test_a_stock_group_send_reaches_an_inbox_read_the_fast_way(redis_layer):
    inbox = layer.inbox_channel_name()
    await redis_layer.group_add("drive-1-screens", inbox)
    await redis_layer.group_send("drive-1-screens", {"type": "drive.result", "n": 1})
    assert await layer.receive(redis_layer, inbox) == {"type": "drive.result", "n": 1}
    await redis_layer.flush()


async def test_a_group_with_a_sockets_own_channel_is_sent_the_stock_way_once(redis_layer):
    inbox, socket = layer.inbox_channel_name(), await redis_layer.new_channel()
    for member in (inbox, socket):
        await redis_layer.group_add("phone-9", member)
    await layer.group_send(redis_layer, "phone-9", {"type": "phone.signed_out", "player": 9})
    assert await redis_layer.receive(socket) == {"type": "phone.signed_out", "player": 9}
    assert await layer.receive(redis_layer, inbox) == {"type": "phone.signed_out", "player": 9}
    connection = redis_layer.connection(0)
    assert await connection.zcard(redis_layer.prefix + inbox) == 0  # once: the script wrote nothing first
    await redis_layer.flush()


async def test_capacity_and_expiries_are_the_layers_own(redis_layer):
    full, expired_member, inbox = (layer.inbox_channel_name() for _ in range(3))
    for member in (full, inbox):
        await redis_layer.group_add("drive-2-phones", member)
    connection = redis_layer.connection(0)
    # A member that joined longer ago than the group expiry has left the group.
    await connection.zadd(redis_layer._group_key("drive-2-phones"),
                          {expired_member: time.time() - redis_layer.group_expiry - 10})
    for n in range(redis_layer.capacity + 2):  # nobody reads `full`: it takes its capacity (3), no more
        await layer.group_send(redis_layer, "drive-2-phones", {"type": "drive.update", "n": n})
    assert await connection.zcard(redis_layer.prefix + full) == redis_layer.capacity
    assert await connection.zcard(redis_layer.prefix + expired_member) == 0
    members = await connection.zrange(redis_layer._group_key("drive-2-phones"), 0, -1)
    assert sorted(m.decode() for m in members) == sorted([full, inbox])
    # Messages older than the layer's expiry are dropped before a new one is counted.
    await connection.zadd(redis_layer.prefix + inbox, {b"x" * 12 + b"stale": time.time() - redis_layer.expiry - 10})
    await connection.zremrangebyscore(redis_layer.prefix + inbox, time.time() - 5, "+inf")  # only the stale one left
    await layer.group_send(redis_layer, "drive-2-phones", {"type": "drive.update", "n": "last"})
    assert await layer.receive(redis_layer, inbox) == {"type": "drive.update", "n": "last"}
    await redis_layer.flush()


async def test_the_script_is_sent_again_to_a_redis_that_lost_it(redis_layer):
    inbox = layer.inbox_channel_name()
    await redis_layer.group_add("table-3", inbox)
    await redis_layer.connection(0).script_flush()
    await layer.group_send(redis_layer, "table-3", {"type": "table.version", "table": 3, "version": 1})
    assert await layer.receive(redis_layer, inbox) == {"type": "table.version", "table": 3, "version": 1}
    await redis_layer.flush()


async def test_a_send_to_others_only_leaves_out_this_process_inbox(redis_layer):
    """A digital move's version: this process's sockets were told directly, so its own inbox is
    not sent the message again; the other processes' inboxes are."""
    seen: list[int] = []

    async def heard(message):
        seen.append(message["n"])

    layer.on_inbox("test.others", heard)
    try:
        await layer.join_inbox("table-5", redis_layer)  # this process's inbox, read by its own task
        other = layer.inbox_channel_name()  # another process's
        await redis_layer.group_add("table-5", other)
        await layer.group_send(redis_layer, "table-5", {"type": "test.others", "n": 1}, others_only=True)
        await layer.group_send(redis_layer, "table-5", {"type": "test.others", "n": 2})
        assert await layer.receive(redis_layer, other) == {"type": "test.others", "n": 1}
        assert await layer.receive(redis_layer, other) == {"type": "test.others", "n": 2}
        for _ in range(200):  # the inbox reads in order: 2 arrives after 1 would have
            if seen:
                break
            await asyncio.sleep(0.01)
        assert seen == [2]
    finally:
        layer._inbox_handlers.pop("test.others", None)
        await layer.close_inbox(redis_layer)
        await redis_layer.flush()


async def test_a_group_has_members_while_one_joined_within_the_expiry(redis_layer):
    """From a thread (the live-update worker): whether anyone is in a group, counted as the
    layer's group_send counts them (a member older than the group expiry has left)."""
    from channels.layers import InMemoryChannelLayer

    async def has(group):
        return await asyncio.to_thread(layer.group_has_members, group, redis_layer)

    assert await has("drive-7-phones") is False
    inbox = layer.inbox_channel_name()
    await redis_layer.group_add("drive-7-phones", inbox)
    assert await has("drive-7-phones") is True
    await redis_layer.group_discard("drive-7-phones", inbox)
    assert await has("drive-7-phones") is False
    stale = time.time() - redis_layer.group_expiry - 10  # joined before a crash, never left
    await redis_layer.connection(0).zadd(redis_layer._group_key("drive-7-phones"), {inbox: stale})
    assert await has("drive-7-phones") is False
    assert await asyncio.to_thread(layer.group_has_members, "drive-7-phones", InMemoryChannelLayer()) is None
    await redis_layer.flush()


def test_the_in_memory_layer_and_sharded_redis_keep_the_stock_way(redis_layer):
    from channels.layers import InMemoryChannelLayer
    from channels_redis.core import RedisChannelLayer

    assert layer._redis_direct(redis_layer)
    assert not layer._redis_direct(InMemoryChannelLayer())
    sharded = RedisChannelLayer(hosts=["redis://127.0.0.1:6379/0", "redis://127.0.0.1:6379/1"])
    assert not layer._redis_direct(sharded)
    assert not layer._redis_direct(RedisChannelLayer(channel_capacity={"table-*": 10}))
