"""Sockets for digital play: a player's phone (``PlayConsumer``) and the organiser's spectator
view of a table (``WatchConsumer``).

The channel layer carries only "table T is at version V"; each socket loads its own view from
the database and sends it (so a card never leaves the server for a seat that may not see it).
Frames from a phone, all JSON objects:

    {"type": "sync"}                                        send me my current view
    {"type": "pass", "card": "3-2", "version": 5, "key": "<uuid>"}   an engine action (see
        games/film_fantasy/hand.py) with the version the phone saw and a client key

Replies: {"type": "state", "view": …, "seats": […], …}, {"type": "ok", "key", "version",
"duplicate"}, {"type": "waiting", "message"}, {"type": "error", "message", "key"?}. A key sent again
with the same action is answered "ok" with "duplicate": true; with another action, an error
(``digital.KEY_REUSED``), nothing applied.
"""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import dataclass
from typing import Any

from channels.generic.websocket import AsyncJsonWebsocketConsumer
from django.http import Http404
from django.urls import reverse

from config import layer
from config.consumers import JsonFrameConsumer
from config.db import database_sync_to_async
from drive import broadcast, selectors
from drive.access import drive_by_code, organiser_for_scope, player_for_scope
from tables import bots, digital

log = logging.getLogger(__name__)

MAX_FRAME = 4096
SYNC_BURST, SYNC_RATE = 20, 10.0  # a phone's syncs (``PlayConsumer.may_sync``): at once, then a second
REFUSED = 4403  # close code: not a player of this drive / not the organiser
MAX_SCREENS = 4  # a player's game sockets in this process (``PlayConsumer.hold_screen``)

# This process's sockets of each table. A socket that applied an action tells the others of
# this process itself, at once, without a trip through the channel layer; the layer carries the
# version to the sockets of other processes (Redis). The in-memory layer has no other process.
_LOCAL = layer.InboxSockets(digital.table_group)
# Each player's game sockets in this process, oldest first (``PlayConsumer.hold_screen``).
_SCREENS: dict[int, list["PlayConsumer"]] = {}


def reaches_other_processes(channel_layer: Any) -> bool:
    return layer.several_processes(channel_layer)


def _each_socket(message: dict[str, Any], call: Any, what: str) -> None:
    """``await call(socket)`` for each socket of the message's table here, each in a task of its
    own (a read must not hold up the inbox); one failing (closing) does not stop the others and
    catches up on its next sync. With none here (they went without leaving, a crash) the inbox
    leaves the table's group."""
    table = message.get("table")
    sockets = _LOCAL.of(table)
    for socket in sockets:
        layer.start_task(_guarded(call(socket), table, what))
    if not sockets:
        layer.start_task(_LOCAL.forget(table))


async def _guarded(work: Any, table: Any, what: str) -> None:
    try:
        await work
    except Exception:
        log.warning("table %s: a socket missed %s", table, what, exc_info=True)


async def _told(message: dict[str, Any]) -> None:
    """A version told through the layer (another process, a bot, the bell): each socket of the
    table here sends its view (from the move sealed beside the version, replayed here, when
    this process holds the version before it: ``digital.replay_told``)."""
    digital.replay_told(message)
    _each_socket(message, lambda socket: socket.table_version(message), f"version {message.get('version')}")


async def _seats_changed(message: dict[str, Any]) -> None:
    """Which seats the bots play changed (``digital.set_stand_in``): each socket of the table
    here reads who sits where again and sends its view."""
    _each_socket(message, lambda socket: socket.seats_changed(), "its seats")


layer.on_inbox("table.version", _told)
layer.on_inbox("table.seats", _seats_changed)


class _TableSocket(JsonFrameConsumer):
    max_frame = MAX_FRAME

    """What both sockets share: frame checks, the table group, sending a view once per version."""

    table_id: int | None = None
    seat: int | None = None  # None: a spectator
    sent_version = -1
    table_facts: dict[str, Any] | None = None
    facts_epoch = 0  # counts the seats' changes (``seats_changed``): facts read before one are stale
    sync_tokens, synced_at = float(SYNC_BURST), 0.0  # ``may_sync``

    def may_sync(self, *, spend: bool = True) -> bool:
        """A sync reads the table again (database work; a phone's, its seating too): a socket may
        do it ``SYNC_BURST`` times at once and ``SYNC_RATE`` times a second after that (a token
        bucket). Far more than a phone or the organiser's watching page asks for (on connecting,
        coming back to the page, an unanswered move), and a flood of them no longer keeps the
        server busy. A refused move costs as much (the table's locked read, then the view again)
        and spends a token too (``refused``); a move is let through while one is left (``spend``
        False: an accepted move costs none)."""
        now = time.monotonic()
        self.sync_tokens = min(SYNC_BURST, self.sync_tokens + (now - self.synced_at) * SYNC_RATE)
        self.synced_at = now
        if self.sync_tokens < 1:
            return False
        if spend:
            self.sync_tokens -= 1
        return True

    def refused(self) -> None:
        """A move was refused: it spends a sync's token (``may_sync``)."""
        self.sync_tokens = max(0.0, self.sync_tokens - 1)

    async def join_table(self, table_id: int, seat: int | None = None) -> None:
        if self.table_id == table_id and self.seat == seat:
            return
        if self.table_id is not None:
            await self.leave_table()
        # Table and seat change together, on the loop: a view is never built for one with the other.
        self.table_id, self.seat, self.sent_version = table_id, seat, -1
        # The table's group has this process's inbox in it, not each socket: a version told
        # through the layer crosses it once per process and reaches the sockets here (_told).
        await _LOCAL.join(table_id, self)

    async def leave_table(self) -> None:
        await _LOCAL.leave(self.table_id, self)

    async def disconnect(self, code):
        if self.table_id is not None:
            await self.leave_table()

    async def table_version(self, event: dict[str, Any]) -> None:
        """The table moved on: send this socket's own view, once per version."""
        if event.get("table", self.table_id) != self.table_id:  # told before it moved to another table
            return
        version = event.get("version", 0)
        if version > self.sent_version:
            await self.send_view(version=version, quiet=True)

    async def seats_changed(self) -> None:
        """Who sits where (or which seats the bots play) changed: read it again, send the view."""
        self.table_facts, self.facts_epoch = None, self.facts_epoch + 1
        await self.send_view(force=True)

    async def push(self, version: int) -> None:
        """Another socket of this process applied ``version``: send this seat's view now, from the
        state that socket kept (or, for a socket that has not read its table yet, from the
        database in a task of its own, so the other sockets do not wait for it)."""
        if version <= self.sent_version:
            return
        frame = self.cached_frame(version)
        if frame is None:
            asyncio.ensure_future(self.send_view(version=version, quiet=True))
            return
        self.sent_version = version
        await self.send_json(frame)

    async def announce(self, applied: digital.Applied) -> asyncio.Future | None:
        """After the commit of an action this socket applied: (Redis) the other processes through
        the layer, every other socket of the table on this process, then the bots. Returns the
        layer's send, still going: the caller sends its own phone's reply first, then awaits it."""
        if applied.duplicate or applied.state is None:
            return None
        digital.keep_state(applied)
        through_layer = reaches_other_processes(self.channel_layer)
        # Its own task, kept: the other processes, the bots and the drive's screens are told of a
        # committed move even if this phone's socket goes meanwhile (the caller shields its wait).
        remote = layer.start_task(digital.announce(self.channel_layer, applied, through_layer=through_layer))
        if through_layer:
            # The other processes' trip is the longest: it starts (its first command is on its
            # way to Redis) before this process's views are built, and goes on while they are.
            await asyncio.sleep(0)
        for socket in _LOCAL.of(applied.table_id):
            if socket is not self and socket.table_id == applied.table_id:
                try:
                    await socket.push(applied.version)
                except Exception:  # that socket's problem (closing): it catches up on its next sync
                    log.warning("table %s: a local socket missed version %s", applied.table_id, applied.version,
                                exc_info=True)
        return remote

    async def send_view(self, *, force: bool = False, version: int | None = None, quiet: bool = False) -> None:
        """Send this socket's view: at ``version`` if newer than the last one sent, else (``force``)
        the current one again. Never an older one: another socket of this process may have pushed
        a newer version while this one was reading (``push``). ``quiet`` (a version told by
        another socket or process): a failed read is logged and told to the phone, the socket
        stays open, and the table's next version tries again."""
        where = (self.table_id, self.seat, self.facts_epoch)
        try:
            frame = await self.frame_at(version)
        except Exception:
            if not quiet:
                raise
            log.warning("table %s: version %s not read for a socket", self.table_id, version, exc_info=True)
            await self.error("The table could not be read just now; its next move will show here.")
            return
        if (self.table_id, self.seat, self.facts_epoch) != where:
            # The socket moved to another table (a sync) while this view was read: it was built
            # from the old table's state with the new seat's number, another player's cards.
            # Dropped; the move sends the new table's view. Or the seats changed meanwhile (a
            # bot stands in, or no longer): it may show the seats as they were, and the change's
            # own view is on its way.
            return
        if frame is None:
            hand, table = getattr(self, "hand_number", 0), getattr(self, "table_number", None)
            message = (f"Hand {hand} has not started yet: sit at Table {table}. Your cards show here when the "
                       "organiser starts it." if table else "The hand has not started yet.")
            await self.send_json({"type": "waiting", "hand": hand, "table": table, "message": message})
            return
        version = frame["view"]["version"]
        if version > self.sent_version or (force and version == self.sent_version):
            self.sent_version = version
            await self.send_json(frame)

    async def frame_at(self, version: int | None) -> dict[str, Any] | None:
        # On the event loop when this process holds the version (it applied or loaded it): a
        # view is microseconds of work, a trip to a thread is not. Else from the database.
        frame = self.cached_frame(version)
        if frame is None and version is not None and self.knows_table():
            state = await digital.state_read(self.table_id, version)  # applied by another process
            frame = None if state is None or not self.knows_table() else self.frame_of(state)
        if frame is None:
            epoch = self.facts_epoch
            frame, facts = await database_sync_to_async(self.load_frame, thread_sensitive=False)(
                version, self.table_facts if self.knows_table() else None)
            # Kept, on the loop, unless the seats changed while they were read (``seats_changed``).
            if facts is not None and epoch == self.facts_epoch and facts["id"] == self.table_id:
                self.table_facts = facts
        return frame

    def knows_table(self) -> bool:
        """Whether this socket has read its table's facts (who sits where) already."""
        return self.table_facts is not None and self.table_facts["id"] == self.table_id

    def cached_frame(self, version: int | None) -> dict[str, Any] | None:
        if version is None or not self.knows_table():
            return None
        state = digital.cached_state(self.table_id, version)
        return None if state is None else self.frame_of(state)

    def frame_of(self, state: Any, facts: dict[str, Any] | None = None) -> dict[str, Any]:
        facts = facts or self.table_facts
        return {"type": "state", "table": facts["table"], "hand": facts["hand"],
                "status": "playing" if not state.finished else "done",
                "seats": facts["seats"], "view": digital.view_with_basis(state, self.seat)}

    def load_frame(self, version: int | None = None, facts: dict[str, Any] | None = None) -> tuple[Any, Any]:
        """This socket's frame: its seat's view at ``version`` (from this process's copy when it
        holds one), with who sits where (``facts``, read here when not given); and the facts. In
        a thread: the caller, on the loop, decides whether to keep the facts (``frame_at``)."""
        found = digital.state_at(self.table_id, version)
        if found is None:
            return None, None
        if facts is None or facts["id"] != self.table_id:
            facts = digital.table_facts(self.table_id)
        return self.frame_of(found[0], facts), facts


@dataclass(frozen=True)
class Seated:
    """A player's seat at a table on the phones in the drive's current hand (``identify``)."""

    table_id: int
    seat: int
    hand: int
    table: int
    player_id: int
    token: str
    drive_id: int


@dataclass(frozen=True)
class Elsewhere:
    """The frame for a player with no such seat now: an error (an older page shows its
    message) with where to go, ``{"hand", "href", "button"}``, the page's button to the
    player's phone page for that hand."""

    frame: dict[str, Any]

    @classmethod
    def of(cls, drive, player) -> "Elsewhere":
        where = selectors.elsewhere(drive, player)
        return cls({"type": "error", "message": where.text, "elsewhere": {
            "hand": where.hand, "button": where.button, "href": reverse("phone:me", args=[drive.join_code])}})


class PlayConsumer(_TableSocket):
    """A player's phone at a digital table: /ws/play/<CODE>/ (the player's cookie says who)."""

    token: str | None = None  # the phone's token when it connected: an action checks it is still the player's
    hand_number, table_number = 0, None  # the hand and table of its seat (``sit``)
    looks_begun = looks_taken = 0  # reads of the seat (``look_again``): begun, and the latest taken

    async def connect(self):
        bots.remember_loop()
        await self.accept()
        self.player_id = None
        found = await database_sync_to_async(self.identify)()
        if isinstance(found, str):
            await self.error(found)
            await self.close(code=REFUSED)
            return
        if isinstance(found, Elsewhere):
            # No hand of theirs here now (a page left open on a finished hand, reloaded): where
            # to go instead, and no reconnecting (the page's button goes there).
            await self.send_json(found.frame)
            await self.close(code=REFUSED)
            return
        self.player_id, self.token, self.drive_id = found.player_id, found.token, found.drive_id
        await self.hold_screen()
        # The player's group: the organiser signing this phone out closes the socket at once.
        self.phone_group = broadcast.phone_group(self.player_id)
        await self.channel_layer.group_add(self.phone_group, self.channel_name)
        await self.sit(found)
        # The close's movement instruction, and the start of the next hand.
        await broadcast.add_game_screen(self.drive_id, self)
        await self.send_view()
        bots.schedule_table(found.table_id)  # bots of a hand that outlived a restart pick up again

    async def sit(self, found: "Seated") -> None:
        """At this seat now (table and seat switch together, on the loop)."""
        await self.join_table(found.table_id, found.seat)
        self.hand_number, self.table_number = found.hand, found.table

    async def hold_screen(self) -> None:
        """A player holds at most ``MAX_SCREENS`` game sockets here (two tabs, an old phone and a
        new one): each is sent its view of every move, ahead of the table's other phones, and
        a client that never reads makes each a buffer in the server. One more closes the
        oldest, told why; its page does not reconnect by itself (``REFUSED``)."""
        screens = _SCREENS.setdefault(self.player_id, [])
        screens.append(self)
        while len(screens) > MAX_SCREENS:
            oldest = screens.pop(0)
            try:
                await oldest.error("This seat is open on too many screens: this one has stopped. "
                                   "Reload the page to play here.")
                await oldest.close(code=REFUSED)
            except Exception:  # already going: its disconnect is on its way
                log.debug("player %s: an old game socket was already closing", self.player_id, exc_info=True)

    def release_screen(self) -> None:
        screens = _SCREENS.get(self.player_id)
        if screens is not None and self in screens:
            screens.remove(self)
            if not screens:
                del _SCREENS[self.player_id]

    async def disconnect(self, code):
        if getattr(self, "player_id", None) is not None:
            self.release_screen()
        if getattr(self, "phone_group", None):
            await self.channel_layer.group_discard(self.phone_group, self.channel_name)
            await broadcast.remove_game_screen(self.drive_id, self)
        await super().disconnect(code)

    async def drive_started(self, event):
        """The organiser started a hand (``drive.live.hand_started``): a screen still showing an
        earlier one looks again at once (its next table on the phones, or where to go), rather
        than at its next quiet-time sync."""
        if event.get("hand", 0) > self.hand_number:
            # A task of its own: the database read must not hold up the drive's other screens
            # (nor, through Redis, the process's inbox).
            layer.start_task(_guarded(self.look_again(force=False), self.table_id, "a hand's start"))

    async def drive_instruction(self, event):
        """The organiser closed the hand (``drive.live.hand_moved``): where this player sits next,
        shown on the game screen too (a player still looking at the finished hand)."""
        html = event["instructions"].get(str(self.player_id))
        if html is not None:
            await self.send_json({"type": "instruction", "stamp": event["stamp"], "hand": event["hand"], "html": html})

    async def phone_signed_out(self, event):
        await self.error(f"{broadcast.signed_out_reason(event)} Join the drive again to play.")
        await self.close(code=broadcast.SIGNED_OUT)

    def identify(self) -> "Seated | Elsewhere | str":
        """This player's digital seat in the current hand; where they go instead when they have
        none (a table with cards, no table, the drive over: ``selectors.elsewhere``, the frame
        with a link to their phone's page); or why this phone may not play here. Sets nothing:
        the caller switches table and seat together on the loop."""
        try:
            drive = drive_by_code(self.scope["url_route"]["kwargs"]["code"])
        except Http404:
            return "No drive has that code."
        player = player_for_scope(self.scope, drive)
        if player is None:
            if player_for_scope(self.scope, drive, active_only=False) is not None:
                return "The organiser has taken you out of this drive: ask them to bring you back to play."
            return "Join the drive on this phone first."
        seat = digital.digital_seat_of(drive, player)
        if seat is None:
            return Elsewhere.of(drive, player)
        return Seated(seat.table_id, seat.position, seat.table.hand.number, seat.table.number,
                      player.pk, player.token, drive.pk)

    async def receive_json(self, content, **kwargs):
        kind = content["type"]
        if kind == "sync":
            if not self.may_sync():
                await self.error("This phone asked to look again too often: wait a moment.")
                return
            await self.look_again()
            return
        key = content.get("key")
        if not self.may_sync(spend=False):  # refused too often of late: no database work now
            extra = {"key": key} if isinstance(key, str) else {}
            await self.error("This phone sent moves that could not be made too often: wait a moment, "
                             "then look again and choose.", **extra)
            return
        try:
            # Not thread-sensitive: tables apply in parallel; the row lock (and SQLite's IMMEDIATE
            # transactions) serialise what must be serialised.
            unconfirmed = False
            try:
                applied = await digital.apply_on_loop(self.table_id, self.seat, content, player_id=self.player_id,
                                                      token=self.token)
            except digital.Unconfirmed:
                if not isinstance(key, str):
                    raise  # sent again it could be applied twice: the phone looks again
                log.warning("table %s: a move's outcome is unknown; sending it again with its key", self.table_id,
                            exc_info=True)
                applied, unconfirmed = None, True
            if applied is None:
                applied = await digital.in_apply_thread(
                    digital.apply_action, self.table_id, self.seat, content, player_id=self.player_id,
                    token=self.token, notify=False,
                )
            if unconfirmed and applied.duplicate:  # it had committed: no other socket was told
                await self.resend_current()
        except digital.DigitalError as exc:
            self.refused()
            extra = {"key": key} if isinstance(key, str) else {}
            await self.error(str(exc), **extra)
            await self.send_view(force=True)  # the phone sees what it must choose from now
            return
        except Exception:
            self.refused()
            log.exception("action at table %s refused by an error", self.table_id)
            await self.error("The server could not apply that; look again and choose.")
            await self.resend_current()
            return
        remote = await self.announce(applied)  # committed: the table's other sockets first
        await self.send_json(
            {"type": "ok", "key": key if isinstance(key, str) else None, "version": applied.version,
             "duplicate": applied.duplicate}
        )
        await self.send_view(force=applied.duplicate, version=None if applied.duplicate else applied.version)
        if remote is not None:  # (Redis) its round trips are not waited for by this phone's own view
            await asyncio.shield(remote)


    async def look_again(self, *, force: bool = True) -> None:
        """The seating may have changed (a sync, a hand started): this player's seat now and its
        view, or where to go instead (the socket stays open: the page shows it, and its next
        sync may find a seat on the phones). A read, in any thread: a hand's start reaches
        every game screen of the drive at once. ``force``: the view even if this socket sent
        that version already (a sync asks for it; a hand's start does not).

        A sync's read and a hand's start's run side by side (the start's in a task of its own).
        One begun before another that was taken already is dropped: it may have read the seating
        before the organiser changed it (a swap before the start), and taken after the newer one
        it sat the socket again at the player's old seat (a table replaced since: "the hand has
        not started"), told nothing of its real table until the next sync."""
        self.looks_begun += 1
        look = self.looks_begun
        found = await database_sync_to_async(self.identify, thread_sensitive=False)()
        if look < self.looks_taken:
            return  # the newer read's seat, and its frame, stand
        self.looks_taken = look
        if isinstance(found, str):
            await self.error(found)
            return
        if isinstance(found, Elsewhere):
            await self.send_json(found.frame)
            return
        await self.sit(found)
        await self.send_view(force=force)
        bots.schedule_table(found.table_id)  # a bot that gave up (its moves failed) looks again

    async def resend_current(self) -> None:
        """After a move that failed on its way to the database, perhaps once its commit was sent
        (``digital.apply_on_loop``): the table's sockets, here and in other processes, and its
        bots, are told the version it holds now, and this phone gets its view again."""
        try:
            await database_sync_to_async(digital.resend_current, thread_sensitive=False)(self.table_id)
            await self.send_view(force=True)
        except Exception:  # the database itself is away: the phone's next sync shows the table
            log.warning("table %s: its current version could not be sent again", self.table_id, exc_info=True)


class WatchConsumer(_TableSocket):
    """The organiser's spectator view of one digital table: /ws/watch/<CODE>/<number>/ (no cards)."""

    async def connect(self):
        bots.remember_loop()
        await self.accept()
        found = await database_sync_to_async(self.identify)()
        if isinstance(found, str):
            await self.error(found)
            await self.close(code=REFUSED)
            return
        await self.join_table(found)
        await self.send_view()
        bots.schedule_table(found)

    def identify(self) -> int | str:
        kwargs = self.scope["url_route"]["kwargs"]
        try:
            drive = drive_by_code(kwargs["code"])
        except Http404:
            return "No drive has that code."
        if not organiser_for_scope(self.scope, drive):
            return "Only the organiser may watch a table."
        hand = drive.hands.order_by("-number").first()
        table = hand and hand.tables.filter(number=kwargs["number"]).first()
        if table is None:
            return "There is no such table in this hand."
        return table.pk

    async def receive_json(self, content, **kwargs):
        if content["type"] == "sync":
            if not self.may_sync():
                await self.error("This screen asked to look again too often: wait a moment.")
                return
            await self.send_view(force=True)
        else:
            await self.error("This view only watches: it cannot play.")


class EchoGroupConsumer(AsyncJsonWebsocketConsumer):
    """Bench only (routed when BENCH_ROUTES=1): the floor for bench/digital.py. Every frame a
    socket sends goes by group_send to the group's sockets, which forward it: a bare Channels
    fan-out through the same server and layer as the table sockets, with no database."""

    async def connect(self):
        name = "".join(c for c in self.scope["url_route"]["kwargs"]["name"] if c.isalnum() or c in "_.-")[:60]
        self.group = f"bench-{name}"
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.accept()

    async def disconnect(self, code):
        await self.channel_layer.group_discard(self.group, self.channel_name)

    async def receive_json(self, content, **kwargs):
        await self.channel_layer.group_send(self.group, {"type": "bench.echo", "payload": content})

    async def bench_echo(self, event):
        await self.send_json(event["payload"])
