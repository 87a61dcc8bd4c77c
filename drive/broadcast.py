"""Live updates of a drive: the one place that names its groups and builds what is pushed.

Everything goes out only after the transaction commits (``transaction.on_commit``), so no
listener ever sees a state that was rolled back. What is pushed is built once per change, not
once per listener: the group message carries the rendered payload, each socket just forwards it.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.db import transaction

log = logging.getLogger(__name__)


def drive_group(drive_id: int, audience: str) -> str:
    """``audience``: "board" (projector) or "organiser" (dashboard). Phones: ``player_group``."""
    assert audience in ("board", "organiser")
    return f"drive-{drive_id}-{audience}"


def player_group(player_id: int) -> str:
    return f"player-{player_id}"


def send_now(group: str, message: dict[str, Any]) -> None:
    """Send to a group; a channel layer that is down is logged, never raised at the writer."""
    layer = get_channel_layer()
    if layer is None:
        return
    try:
        async_to_sync(layer.group_send)(group, message)
    except Exception:  # Redis down: the write has committed; pages say live updates are paused
        log.warning("live update to %s not sent: channel layer unavailable", group, exc_info=True)


def send_many(messages: list[tuple[str, dict[str, Any]]]) -> None:
    """Send several group messages in one trip to the event loop (concurrently on Redis)."""
    layer = get_channel_layer()
    if layer is None or not messages:
        return

    async def send_all() -> None:
        for start in range(0, len(messages), 50):
            chunk = messages[start : start + 50]
            await asyncio.gather(*(layer.group_send(group, message) for group, message in chunk))

    try:
        async_to_sync(send_all)()
    except Exception:  # Redis down: the write has committed; pages say live updates are paused
        log.warning("live update of %d groups not sent: channel layer unavailable", len(messages), exc_info=True)


def send_on_commit(group: str, message: dict[str, Any]) -> None:
    transaction.on_commit(lambda: send_now(group, message))
