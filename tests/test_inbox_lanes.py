"""A process's inbox hands out small messages at once, even while a bulky one (a drive's full
update to every phone of the process) is still being handed out: bulky messages take a second
lane, in the order they came, and yield the loop between two sockets."""

from __future__ import annotations

import asyncio

import pytest
from channels.layers import InMemoryChannelLayer

from config import layer


@pytest.fixture
def handlers(monkeypatch):
    monkeypatch.setattr(layer, "_inbox_handlers", {})
    monkeypatch.setattr(layer, "_bulky", {})
    return layer


async def test_a_small_message_is_handled_while_a_bulky_one_before_it_is_still_going(handlers):
    channel_layer = InMemoryChannelLayer()
    seen: list[str] = []
    release = asyncio.Event()

    async def bulky(message):
        seen.append(f"bulky {message['n']} starts")
        if message["n"] == 1:
            await release.wait()  # a long hand-out
        seen.append(f"bulky {message['n']} ends")

    async def small(message):
        seen.append(f"small {message['n']}")

    layer.on_inbox("test.bulky", bulky, bulky=True)
    layer.on_inbox("test.small", small)
    await layer.join_inbox("g", channel_layer)
    try:
        for message in ({"type": "test.bulky", "n": 1}, {"type": "test.bulky", "n": 2},
                        {"type": "test.small", "n": 1}, {"type": "test.small", "n": 2}):
            await channel_layer.group_send("g", message)
        async with asyncio.timeout(5):
            while "small 2" not in seen:
                await asyncio.sleep(0.01)
        # both small ones went by while the first bulky one was still going; the second waits its turn
        assert seen == ["bulky 1 starts", "small 1", "small 2"]
        release.set()
        async with asyncio.timeout(5):
            while "bulky 2 ends" not in seen:
                await asyncio.sleep(0.01)
        assert seen[3:] == ["bulky 1 ends", "bulky 2 starts", "bulky 2 ends"]
    finally:
        await layer.close_inbox(channel_layer)


async def test_a_failing_bulky_message_does_not_stop_the_next(handlers):
    channel_layer = InMemoryChannelLayer()
    seen: list[int] = []

    async def bulky(message):
        if message["n"] == 1:
            raise RuntimeError("a socket's page is broken")
        seen.append(message["n"])

    layer.on_inbox("test.bulky", bulky, bulky=True)
    await layer.join_inbox("g", channel_layer)
    try:
        for n in (1, 2):
            await channel_layer.group_send("g", {"type": "test.bulky", "n": n})
        async with asyncio.timeout(5):
            while seen != [2]:
                await asyncio.sleep(0.01)
    finally:
        await layer.close_inbox(channel_layer)


async def test_handing_out_with_yielding_lets_the_loop_run_between_two_sockets():
    sockets = layer.InboxSockets(lambda key: f"k-{key}", enabled=lambda: False)
    order: list[str] = []

    class Socket:
        def __init__(self, name):
            self.name = name

    held = [Socket(name) for name in ("a", "b", "c")]  # the registry holds them weakly
    for socket in held:
        sockets.add(1, socket)

    async def call(socket):  # a socket's send: it does not wait
        order.append(socket.name)

    async def other():
        order.append("other")

    for yielding, expected_between in ((False, 0), (True, 2)):
        order.clear()
        task = asyncio.ensure_future(other())  # ready to run at the loop's next turn
        await sockets.hand(1, call, "a test", yielding=yielding)
        await task
        names = [x for x in order if x != "other"]
        assert sorted(names) == ["a", "b", "c"]
        position = order.index("other")
        assert (0 < position < 3) == bool(expected_between), order


async def _until(condition, timeout=5):
    async with asyncio.timeout(timeout):
        while not condition():
            await asyncio.sleep(0.01)


async def test_updates_waiting_in_the_lane_are_merged_but_never_past_another_kind(handlers):
    """A drive's updates that pile up behind one still going are handed out as one (the newest
    parts over the older), per drive and audience; never moved past an instruction waiting
    between them, which keeps its place after the update sent before it."""
    from drive import broadcast

    channel_layer = InMemoryChannelLayer()
    seen: list[tuple] = []
    release = asyncio.Event()

    async def update(message):
        seen.append(("update", message["audience"], message["stamp"], dict(message["parts"])))
        if message["stamp"] == 1:
            await release.wait()

    async def instruction(message):
        seen.append(("instruction", message["stamp"]))

    layer.on_inbox("drive.update", update, bulky=True, merge=broadcast._newer_update)
    layer.on_inbox("drive.instruction", instruction, bulky=True)
    await layer.join_inbox("g", channel_layer)
    try:
        sent = [
            {"type": "drive.update", "drive": 1, "audience": None, "stamp": 1, "parts": {"7": "a"}},  # going
            {"type": "drive.update", "drive": 1, "audience": None, "stamp": 2, "parts": {"7": "b", "8": "x"}},
            {"type": "drive.update", "drive": 1, "audience": "board", "stamp": 3, "parts": {"board": "B3"}},
            {"type": "drive.update", "drive": 1, "audience": None, "stamp": 4, "parts": {"7": "c"}},
            {"type": "drive.update", "drive": 1, "audience": "board", "stamp": 5, "parts": {"board": "B5"}},
            {"type": "drive.instruction", "drive": 1, "stamp": 6},
            {"type": "drive.update", "drive": 1, "audience": None, "stamp": 7, "parts": {"7": "d"}},
        ]
        for message in sent:
            await channel_layer.group_send("g", message)
        await _until(lambda: len(seen) == 1)
        # Every message has reached the inbox's lane (waited for, not a fixed 0.1 s: a stalled
        # process could still have some in the channel, handed out unmerged after the release).
        inbox = layer._inboxes[(id(asyncio.get_running_loop()), id(channel_layer))][0]
        await _until(lambda: channel_layer.channels.get(inbox) is None or channel_layer.channels[inbox].empty())
        release.set()
        await _until(lambda: len(seen) == 5)
        await asyncio.sleep(0.1)
        assert seen == [
            ("update", None, 1, {"7": "a"}),
            ("update", None, 4, {"7": "c", "8": "x"}),  # 2 and 4 as one: 8's fragment from 2 kept
            ("update", "board", 5, {"board": "B5"}),
            ("instruction", 6),
            ("update", None, 7, {"7": "d"}),  # not merged past the instruction
        ]
    finally:
        await layer.close_inbox(channel_layer)


async def test_closing_the_inbox_stops_its_second_lane(handlers):
    channel_layer = InMemoryChannelLayer()
    started, handed = asyncio.Event(), []

    async def bulky(message):
        started.set()
        await asyncio.sleep(30)
        handed.append(message["n"])

    layer.on_inbox("test.bulky", bulky, bulky=True)
    await layer.join_inbox("g", channel_layer)
    for n in (1, 2):
        await channel_layer.group_send("g", {"type": "test.bulky", "n": n})
    await asyncio.wait_for(started.wait(), 5)
    lanes = [task for task in layer._tasks if task.get_coro().__name__ == "_second_lane"]
    assert len(lanes) == 1
    await layer.close_inbox(channel_layer)
    await asyncio.gather(*lanes, return_exceptions=True)
    assert lanes[0].cancelled() and handed == []
