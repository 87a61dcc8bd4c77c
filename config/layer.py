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
        async_to_sync(send_all)()
    except Exception:
        log.warning("live update of %d group(s) not sent: channel layer unavailable", len(messages), exc_info=True)
        return False
    return True


def send(group: str, message: dict[str, Any]) -> bool:
    return send_many([(group, message)])
