"""Spies on what the application sends through the channel layer."""

from __future__ import annotations

from typing import Any, Callable


def group_sends(monkeypatch, keep: Callable[[str, dict], Any]) -> list:
    """Every ``group_send`` of the channel layer (its public API, which every group send of the
    application goes through) for which ``keep(group, message)`` returns something: that, in
    order."""
    from channels.layers import get_channel_layer

    channel_layer = get_channel_layer()
    sent: list = []
    real = channel_layer.group_send

    async def spy(group, message):
        kept = keep(group, message)
        if kept:
            sent.append(kept)
        return await real(group, message)

    monkeypatch.setattr(channel_layer, "group_send", spy)
    return sent
