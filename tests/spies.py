"""Spies on what the application sends through the channel layer."""

from __future__ import annotations

from typing import Any, Callable


def group_sends(monkeypatch, keep: Callable[[str, dict], Any]) -> list:
    """Every send to a group through ``config.layer.group_send`` (the way every group send of
    the application goes: one trip to Redis, or the layer's own group_send) for which
    ``keep(group, message)`` returns something: that, in order."""
    from config import layer

    sent: list = []
    real = layer.group_send

    async def spy(channel_layer, group, message, **options):
        kept = keep(group, message)
        if kept:
            sent.append(kept)
        return await real(channel_layer, group, message, **options)

    monkeypatch.setattr(layer, "group_send", spy)
    return sent
