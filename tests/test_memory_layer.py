"""The embedded defaults' channel layer: channels' in-memory layer, sweeping once a second."""

from __future__ import annotations

import asyncio
import time

from common.memory_layer import SweepingInMemoryChannelLayer


async def test_a_group_send_reaches_every_member_each_with_its_own_copy():
    layer = SweepingInMemoryChannelLayer()
    first, second = await layer.new_channel(), await layer.new_channel()
    await layer.group_add("table-1", first)
    await layer.group_add("table-1", second)
    await layer.group_send("table-1", {"type": "table.moved", "views": {"0": "a"}})
    got = await asyncio.wait_for(layer.receive(first), 10)
    got["views"]["0"] = "changed"
    assert await asyncio.wait_for(layer.receive(second), 10) == {"type": "table.moved", "views": {"0": "a"}}


async def test_a_message_nobody_read_still_expires_and_its_channel_leaves_its_groups():
    layer = SweepingInMemoryChannelLayer(expiry=0.2, sweep_every=0.3)
    gone, listening = await layer.new_channel(), await layer.new_channel()
    await layer.group_add("drive-1", gone)
    await layer.group_add("drive-1", listening)
    await layer.group_send("drive-1", {"type": "old"})
    assert (await asyncio.wait_for(layer.receive(listening), 10))["type"] == "old"
    time.sleep(0.6)  # the message's expiry and a sweep interval have passed (a lower bound only)
    await layer.group_send("drive-1", {"type": "new"})  # sweeps: `gone` held an expired message
    assert (await asyncio.wait_for(layer.receive(listening), 10))["type"] == "new"
    await layer.send(gone, {"type": "direct"})
    assert (await asyncio.wait_for(layer.receive(gone), 10))["type"] == "direct"  # not "old" nor "new"


async def test_a_small_message_overtakes_a_full_update_s_hundreds_of_sends(settings):
    """``common.layer``: a full update's sends (``bulk``) yield to the loop as they go, so a
    result's or a move's message handed over after them arrives before the last of them."""
    from channels.layers import get_channel_layer

    from common import layer

    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "common.memory_layer.SweepingInMemoryChannelLayer"}}
    layer.remember_loop()
    channel_layer = get_channel_layer()
    last, small = await channel_layer.new_channel(), await channel_layer.new_channel()
    await channel_layer.group_add("update-last", last)
    await channel_layer.group_add("result", small)
    arrived: list[str] = []

    async def hear(channel: str) -> None:
        arrived.append((await channel_layer.receive(channel))["type"])

    listening = [asyncio.create_task(hear(last)), asyncio.create_task(hear(small))]
    update = [(f"update-{i}", {"type": "update"}) for i in range(1000)] + [("update-last", {"type": "update"})]
    layer.send_many(update, bulk=True)
    layer.send("result", {"type": "result"})
    await asyncio.wait_for(asyncio.gather(*listening), 30)
    assert arrived == ["result", "update"]


class _AwayLayer(SweepingInMemoryChannelLayer):
    """A layer whose every group send fails, as when Redis has stopped: counted."""

    group_sends = 0

    async def group_send(self, group, message):
        type(self).group_sends += 1
        raise ConnectionError("the layer is away")


async def test_a_full_update_stops_at_its_first_failed_send_and_says_so_once(settings, caplog):
    """A layer that is away (Redis stopped) fails each send: a full update's hundreds of sends
    stop at the first, one warning is logged, the writer is told False and nothing is raised."""
    from common import layer

    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "tests.test_memory_layer._AwayLayer"}}
    _AwayLayer.group_sends = 0
    layer.remember_loop()
    update = [(f"update-{i}", {"type": "update"}) for i in range(500)]
    sent = await asyncio.to_thread(layer.send_many, update, wait=True, bulk=True)
    assert sent is False
    assert _AwayLayer.group_sends == 1
    assert [r.message for r in caplog.records if "not sent" in r.message] == [
        "live update of 1 group(s) not sent: channel layer unavailable"]
