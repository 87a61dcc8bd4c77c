"""Websocket basics shared by every socket.

``JsonFrameConsumer`` refuses, with one error frame and without closing, everything that is not
a short text frame holding a JSON object with a string ``type``: binary frames, empty frames,
frames over ``max_frame`` characters, invalid JSON, arrays and scalars.
"""

from __future__ import annotations

import json
from typing import Any

import orjson
from channels.generic.websocket import AsyncJsonWebsocketConsumer

from common import layer


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
