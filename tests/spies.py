"""Spies on what the application sends through the channel layer, and on what it logs."""

from __future__ import annotations

import logging
import threading
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


def own_warnings(caplog) -> list[logging.LogRecord]:
    """The records of WARNING and above that ``caplog`` holds from this test's own thread (where
    Django's test client runs a request): not another thread's, such as the background work of
    an earlier test (a bot, a live update) logging while this one runs."""
    me = threading.get_ident()
    return [r for r in caplog.records if r.levelno >= logging.WARNING and r.thread == me]
