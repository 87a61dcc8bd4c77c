"""Live sockets of a drive: the projected board, the organiser's dashboard, and each phone.

``/ws/drive/<CODE>/<audience>/`` with audience ``board`` (anyone with the join code: it shows
what the room sees), ``organiser`` (the organiser's session) or ``phone`` (the player's cookie).
On connect the socket gets the current state at once, so a reconnect never misses a change.
After that it forwards what ``drive.live`` publishes (a phone listens in its player's group,
so it receives only its own fragment; groups: ``drive.broadcast``).
Clients send nothing but ``{"type": "ping"}``; anything else gets an error frame.
"""

from __future__ import annotations

from common.db import database_sync_to_async
from django.http import Http404

from common.consumers import JsonFrameConsumer
from drive import access, broadcast, snapshots
from tables import bots


class LiveConsumer(JsonFrameConsumer):
    max_frame = 1024
    audience: str = ""
    drive_id: int | None = None
    player_id: int | None = None

    async def connect(self):
        kwargs = self.scope["url_route"]["kwargs"]
        self.audience = kwargs["audience"]
        allowed = await database_sync_to_async(self._authorise)(kwargs["code"])
        if not allowed:
            if self.audience == "phone" and self.drive_id is not None:
                # A page whose phone was signed out (or left) while it was away: told as an open
                # socket is, so that the page reloads and goes to joining, not retrying for good.
                await self.accept()
                await self.error("This phone is not signed in to this drive (any more): join it again.")
                await self.close(code=broadcast.SIGNED_OUT)
                return
            await self.close(code=broadcast.REFUSED)
            return
        if self.audience == "phone":  # its own part of each update, a close's instructions, sign-out
            self.groups_joined = [broadcast.player_group(self.player_id), broadcast.phone_group(self.player_id)]
        else:  # its audience's updates, and the tables' result messages
            self.groups_joined = [broadcast.drive_group(self.drive_id, self.audience),
                                  broadcast.drive_group(self.drive_id, "screens")]
        for group in self.groups_joined:
            await self.channel_layer.group_add(group, self.channel_name)
        await self.accept()
        if self.audience == "phone":
            broadcast.add_phone(self.drive_id, self)
        if self.audience == "organiser":  # after a restart, hands the bots play alone go on
            bots.resume_drive(self.drive_id)
        # Read after joining: nothing committed before is missed (shared with the process's
        # other sockets connecting now: drive.snapshots).
        snapshot = await snapshots.on_connect(self.drive_id, self.audience, self.player_id)
        await self.send_json({"type": "update", "stamp": snapshot["stamp"], "parts": snapshot["parts"],
                              "read": snapshot.get("read")})

    def _authorise(self, code: str) -> bool:
        try:
            drive = access.drive_by_code(code, self.scope)
        except (Http404, access.TooManyCodes):
            return False
        self.drive_id = drive.pk
        if self.audience == "board":
            return True
        if self.audience == "organiser":
            return access.organiser_for_scope(self.scope, drive)
        if self.audience == "phone":
            player = access.player_for_scope(self.scope, drive)
            self.player_id = player.pk if player else None
            return player is not None
        return False

    async def disconnect(self, code):
        if self.drive_id is not None and self.audience == "phone":
            broadcast.remove_phone(self.drive_id, self)
        for group in getattr(self, "groups_joined", []):
            await self.channel_layer.group_discard(group, self.channel_name)

    async def receive_json(self, content, **kwargs):
        if content.get("type") == "ping":
            await self.send_json({"type": "pong"})
        else:
            await self.error('This socket only listens; send {"type": "ping"}.')

    async def drive_update(self, event):
        parts = event["parts"]
        await self.send_json({"type": "update", "stamp": event["stamp"], "parts": parts, "read": event.get("read")})

    async def drive_instruction(self, event):
        """A close's movement instruction for this phone's player (``drive.live.hand_moved``),
        shown at once; the full update follows and replaces it."""
        await self.send_json({"type": "instruction", "stamp": event["stamp"], "hand": event["hand"], "html": event["html"]})

    async def phone_signed_out(self, event):
        # ``left``: the phone left by itself (static/js/entry.js keeps its form, out of date).
        await self.error(broadcast.signed_out_reason(event, "Join again to follow the drive."),
                         left=bool(event.get("left")))
        await self.close(code=broadcast.SIGNED_OUT)

    async def drive_result(self, event):
        """A table's result changed (``drive.live.table_changed``): the board and the dashboard
        apply it at once; the full update follows. The board gets no totals during suspense."""
        if self.audience not in ("board", "organiser"):
            return
        frame = {k: event[k] for k in ("hand", "table", "current", "status", "status_label", "progress", "commit")}
        if self.audience == "organiser" or event["board_totals"]:
            frame["totals"], frame["ranks"] = event["totals"], event["ranks"]
        await self.send_json({"type": "result", **frame})
