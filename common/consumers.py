"""Websocket basics shared by every socket.

``JsonFrameConsumer`` refuses, with one error frame and without closing, everything that is not
a short text frame holding a JSON object with a string ``type``: binary frames, empty frames,
frames over ``max_frame`` characters, invalid JSON, arrays and scalars.
"""

from __future__ import annotations

import asyncio
import json
import logging
from typing import Any

import orjson
from autobahn.exception import Disconnected
from channels.consumer import get_handler_name
from channels.generic.websocket import AsyncJsonWebsocketConsumer

from common import layer


log = logging.getLogger(__name__)


def dumps(content: Any) -> str:
    """JSON text of a frame: orjson (a digital table sends five 2-3 KB frames per action; orjson
    takes a tenth of the standard library's time), the standard library for what orjson does
    not take (an integer dict key, an integer beyond 64 bits)."""
    try:
        return orjson.dumps(content).decode()
    except TypeError:
        return json.dumps(content)

class JsonFrameConsumer(AsyncJsonWebsocketConsumer):
    max_frame = 4096

    async def __call__(self, scope, receive, send):
        """channels' consumer, running ``disconnect`` when it is cancelled too. daphne cancels an
        application still running 10 s after its socket closed (``application_close_timeout``):
        under a burst of connections, sockets still connecting when their clients gave up. Its
        ``websocket.disconnect`` is never dispatched then: each such socket stayed in its groups
        (in memory, until a message to it expired unread or a day passed; on Redis, subscribed)
        and in the process's tables of sockets (``tables.consumers._SCREENS``,
        ``drive.broadcast``). Every ``disconnect`` here may run twice."""
        try:
            await super().__call__(scope, receive, send)
        except asyncio.CancelledError:
            if getattr(self, "channel_name", None) is not None:
                try:
                    await self.disconnect(None)
                except Exception:
                    log.warning("%s: cleaning up a cancelled socket failed", type(self).__name__, exc_info=True)
            raise

    async def dispatch(self, message):
        """channels' dispatch without the ``aclose_old_connections()`` it awaits before every
        message: a hop to the sync thread and back for each frame and each group message (five
        for one move at a table of four), every one waiting for the interpreter while a move is
        being applied in another thread. These sockets reach the database only through
        ``common.db``'s helpers, which give their connection back inside the call."""
        handler = getattr(self, get_handler_name(message), None)
        if handler is None:
            raise ValueError(f"No handler for message type {message['type']}")
        try:
            await handler(message)
        except Disconnected:
            # The phone went (a page closed, a connection dropped) while a frame was being sent
            # to it: its disconnect follows. One line, not "Exception inside application".
            log.info("%s: the socket closed while %s was being sent to it", type(self).__name__, message["type"])

    async def websocket_connect(self, message):
        layer.remember_loop()  # where sends from the server's own threads must run (common/layer.py)
        await super().websocket_connect(message)

    async def receive(self, text_data=None, bytes_data=None, **kwargs):
        if text_data is None:
            await self.error("Send text frames holding JSON.")
            return
        if not text_data or len(text_data) > self.max_frame:
            await self.error(f"A message must be JSON text of 1 to {self.max_frame} characters.")
            return
        try:
            content = json.loads(text_data)
        except ValueError:
            await self.error("That message is not JSON.")
            return
        except RecursionError:  # arrays or objects nested a thousand deep: no message of ours is
            await self.error("That message is nested too deeply.")
            return
        if not isinstance(content, dict) or not isinstance(content.get("type"), str):
            await self.error("A message must be a JSON object with a 'type'.")
            return
        await self.receive_json(content)

    @classmethod
    async def encode_json(cls, content):
        return dumps(content)

    async def error(self, message: str, **extra: Any) -> None:
        await self.send_json({"type": "error", "message": message, **extra})
