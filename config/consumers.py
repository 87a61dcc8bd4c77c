"""The first consumer: proves the websocket and channel-layer wiring end to end.

A client sends ``{"type": "ping", "nonce": "…"}``; the server sends a group message to every
socket in the ``health`` group, and each socket answers ``{"type": "pong", "nonce": …}``. So a
pong has been through the channel layer, in-memory or Redis, and across processes with Redis.
"""

from __future__ import annotations

from channels.generic.websocket import AsyncJsonWebsocketConsumer

GROUP = "health"


class HealthConsumer(AsyncJsonWebsocketConsumer):
    async def connect(self):
        await self.channel_layer.group_add(GROUP, self.channel_name)
        await self.accept()

    async def disconnect(self, code):
        await self.channel_layer.group_discard(GROUP, self.channel_name)

    async def receive_json(self, content, **kwargs):
        if not isinstance(content, dict) or content.get("type") != "ping":
            await self.send_json({"type": "error", "message": 'Send {"type": "ping"}.'})
            return
        nonce = str(content.get("nonce", ""))[:64]
        await self.channel_layer.group_send(GROUP, {"type": "health.pong", "nonce": nonce})

    async def health_pong(self, event):
        await self.send_json({"type": "pong", "nonce": event["nonce"]})

    @classmethod
    async def decode_json(cls, text_data):
        try:
            return await super().decode_json(text_data)
        except ValueError:
            return None
