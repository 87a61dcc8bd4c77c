"""Sockets for digital play: a player's phone (``PlayConsumer``) and the organiser's spectator
view of a table (``WatchConsumer``).

After every committed move the table's group gets one message with each seat's view
(``digital.state_message``); each socket sends its own seat's part only, so a phone never
receives another seat's cards. Frames from a phone, all JSON objects:

    {"type": "sync"}                                        send me my current view
    {"type": "<action>", ..., "version": 5, "key": "<uuid>"}   a game's action (its hand's
        ``apply``, games/<game>/) with the version the phone saw and a client key

Replies: {"type": "state", "view": …, "seats": […], …}, {"type": "ok", "key", "version",
"duplicate"}, {"type": "waiting", "message"}, {"type": "error", "message", "key"?}. A key sent again
with the same action is answered "ok" with "duplicate": true; with another action, an error
(``frames.KEY_REUSED``), nothing applied.
"""

from __future__ import annotations

import logging
import time
from typing import Any

from autobahn.exception import Disconnected
from django.http import Http404

from common import layer
from common.consumers import JsonFrameConsumer, dumps
from common.db import database_sync_to_async, write_sync_to_async
from common.ratelimit import Bucket
from drive import broadcast
from drive.access import TooManyCodes, drive_by_code, organiser_for_scope
from tables import bots, digital, play_seat, screen_facts
from tables.models import Hand, Seat, TableHand

log = logging.getLogger(__name__)

MAX_FRAME = 4096
SYNC_BURST, SYNC_RATE = 20, 10.0  # a phone's syncs (``PlayConsumer.may_sync``): at once, then a second
MAX_SCREENS = 4  # a player's game sockets in this process (``PlayConsumer.hold_screen``)


async def _guarded(work: Any, table: Any, what: str) -> None:
    try:
        await work
    except Disconnected:  # the phone went (a player taken out, a page closed) while it was read
        log.info("table %s: a socket closed before it was sent %s", table, what)
    except Exception:
        log.warning("table %s: a socket missed %s", table, what, exc_info=True)


# Each player's game sockets here, oldest first (``hold_screen``); their syncs, by token (``may_sync``).
_SCREENS: dict[int, list["PlayConsumer"]] = {}
_SYNCS: dict[str, Bucket] = {}


class _TableSocket(JsonFrameConsumer):
    """What both sockets share: frame checks, the table's group, sending a view once per version."""

    max_frame = MAX_FRAME
    table_id: int | None = None
    seat: int | None = None  # None: a spectator
    group: str | None = None
    sent_version = -1
    table_facts: dict[str, Any] | None = None
    facts_epoch = 0  # counts the seats' changes (``seats_changed``): facts read before one are stale
    own_syncs: Bucket | None = None  # a spectator's (``may_sync``)

    @property
    def syncs(self) -> Bucket:
        token = getattr(self, "token", None)
        if token is not None:  # one bucket for all of a player's screens, kept across them
            return _SYNCS.setdefault(token, Bucket(SYNC_BURST))
        if self.own_syncs is None:
            self.own_syncs = Bucket(SYNC_BURST)
        return self.own_syncs

    def may_sync(self, *, spend: bool = True) -> bool:
        """A sync reads the table again (database work): a player's screens, together, may do it
        ``SYNC_BURST`` times at once, then ``SYNC_RATE`` times a second (a token bucket a new socket
        does not refill), far more than a phone or the watching page asks for. A refused move, or
        one sent again with its key, costs as much (a locked read, the view again) and spends a
        token too (``refused``); a move is let through while one is left (``spend`` False)."""
        return self.syncs.take(SYNC_BURST, SYNC_RATE, spend=spend)

    def refused(self) -> None:
        """A move was refused: it spends a sync's token (``may_sync``)."""
        self.syncs.spend()

    async def join_table(self, table_id: int, seat: int | None = None) -> None:
        if self.table_id == table_id and self.seat == seat:
            return
        await self.leave_table()
        # Table and seat change together, on the loop: a view is never built for one with the other.
        self.table_id, self.seat, self.sent_version = table_id, seat, -1
        self.group = digital.table_group(table_id)
        await self.channel_layer.group_add(self.group, self.channel_name)

    async def leave_table(self) -> None:
        if self.group is not None:
            group, self.group = self.group, None
            await self.channel_layer.group_discard(group, self.channel_name)

    async def disconnect(self, code):
        await self.leave_table()

    async def table_state(self, event: dict[str, Any]) -> None:
        """The table moved on (``digital.state_message``): send this socket's own part, once per
        version. A socket that has not read who sits where yet reads it first."""
        if event.get("table") != self.table_id:  # sent before it moved to another table
            return
        view = event["spectator"] if self.seat is None else event["views"].get(str(self.seat))
        if view is None or event["version"] <= self.sent_version:
            return
        if not self.knows_table() or event["finished"]:  # (the hand over: what follows it read anew)
            # A task of its own, as for the seats: a slow read must not hold up the socket's
            # next messages (a change of the seats after it, whose view is the newer one).
            layer.start_task(_guarded(self.send_view(version=event["version"], quiet=True), self.table_id,
                                      f"version {event['version']}"))
            return
        self.sent_version = event["version"]
        await self.send(text_data=self.frame_text(view, event["finished"]))

    async def table_seats(self, event: dict[str, Any]) -> None:
        """Who sits where (or which seats the bots play) changed: read it again, send the view."""
        if event.get("table") == self.table_id:
            self.table_facts, self.facts_epoch = None, self.facts_epoch + 1
            # A task of its own: the socket goes on with its messages while the seats are read
            # (a second change may follow at once: its read, newer, is the one kept).
            layer.start_task(_guarded(self.send_view(force=True), self.table_id, "its seats"))

    async def send_view(self, *, force: bool = False, version: int | None = None, quiet: bool = False) -> None:
        """Send this socket's view as stored now, if newer than the last one sent (``version``: at
        least that one), or (``force``) the current one again; never an older one: a newer
        version's message may have come while this one was read. ``quiet`` (a version told by
        the table's message): a failed read is logged and told to the phone, the socket stays
        open, and the table's next version tries again."""
        where = (self.table_id, self.seat, self.facts_epoch)
        try:
            epoch = self.facts_epoch
            frame, facts = await database_sync_to_async(self.load_frame, thread_sensitive=False)(
                self.table_facts if self.knows_table() else None)
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
        if facts is not None and epoch == self.facts_epoch and facts["id"] == self.table_id:
            self.table_facts = facts
        if frame is None:
            hand, table = getattr(self, "hand_number", 0), getattr(self, "table_number", None)
            message = (f"Hand {hand} has not started yet: {self.move or f'sit at Table {table}'}. Your cards show "
                       "here when the organiser starts it." if table else "The hand has not started yet.")
            await self.send_json({"type": "waiting", "hand": hand, "table": table, "message": message})
            return
        version = frame["view"]["version"]
        if version > self.sent_version or (force and version == self.sent_version):
            self.sent_version = version
            await self.send_json(frame)

    async def send_applied(self, message: dict[str, Any]) -> None:
        """This socket's part of the table's message of a move it applied itself (no read), unless
        the message reached it through the group first (or a newer one did)."""
        if not self.knows_table() or message["finished"]:
            await self.send_view(force=True)
        elif message["version"] > self.sent_version:
            self.sent_version = message["version"]
            await self.send(text_data=self.frame_text(message["views"][str(self.seat)], message["finished"]))

    def knows_table(self) -> bool:
        """Whether this socket has read its table's facts (who sits where) already."""
        return self.table_facts is not None and self.table_facts["id"] == self.table_id

    def frame_of(self, view: dict[str, Any], finished: bool, facts: dict[str, Any] | None = None) -> dict[str, Any]:
        facts = facts or self.table_facts
        # ``now``: the server's clock as the frame leaves, so a phone whose own clock is off
        # still counts down an answer's deadline (a Unix time in the view) rightly.
        return {"type": "state", "table": facts["table"], "hand": facts["hand"], "moves": facts["moves"], "now": time.time(),
                "ending": facts["ending"], "movement": facts["movement"], "status": "done" if finished else "playing", "seats": facts["seats"], "view": view}

    def frame_text(self, view: str, finished: bool) -> str:
        """``frame_of`` as JSON text, around a view that is JSON text already (``digital.state_message``)."""
        head = dumps({k: v for k, v in self.frame_of({}, finished).items() if k != "view"})
        return f'{head[:-1]},"view":{view}}}'

    def load_frame(self, facts: dict[str, Any] | None = None) -> tuple[Any, Any]:
        """This socket's frame as stored now, with who sits where (``facts``, read here when not
        given); and the facts. In a thread: the caller, on the loop, decides whether to keep the
        facts."""
        table = TableHand.objects.filter(pk=self.table_id).only("state").order_by().first()
        if table is None or table.state is None:
            return None, None
        state = digital.load_state(table)
        if facts is None or facts["id"] != self.table_id or state.finished:  # (over: results elsewhere may end the drive)
            facts = screen_facts.table_facts(self.table_id)
        return self.frame_of(digital.view_with_basis(state, self.seat), state.finished, facts), facts


class PlayConsumer(_TableSocket):
    """A player's phone at a digital table: /ws/play/<CODE>/ (the player's cookie says who)."""

    token: str | None = None  # the phone's token when it connected: an action checks it is still the player's
    hand_number, table_number, move = 0, None, ""  # the hand and table of its seat, how it got there (``sit``)
    looks_begun = looks_taken = 0  # reads of the seat (``look_again``): begun, and the latest taken

    async def connect(self):
        await self.accept()
        self.player_id = None
        found = await database_sync_to_async(self.identify)()
        if isinstance(found, str):
            await self.error(found)
            # A phone that holds no player (signed out or taken out while its page was away, its
            # cookie gone): its page reloads, and is sent to joining, told why.
            await self.close(code=broadcast.SIGNED_OUT if isinstance(found, play_seat.NoPlayer) else broadcast.REFUSED)
            return
        if isinstance(found, play_seat.Elsewhere):
            # No hand of theirs here now (a table with cards, a page reloaded after the close): the
            # last hand they played here and where to go instead; the socket then follows the
            # drive (the close's instruction, the next hand's start), unless the drive is over.
            await self.send_last_hand(found.player_id, found.last_played)
            await self.send_json(found.frame)
            if found.over:
                await self.close(code=broadcast.REFUSED)
                return
        self.player_id, self.token, self.drive_id = found.player_id, found.token, found.drive_id
        await self.hold_screen()
        # The phone's group: a close's movement instruction; the organiser signing this phone out
        # closes the socket at once.
        self.phone_group = broadcast.phone_group(self.player_id)
        await self.channel_layer.group_add(self.phone_group, self.channel_name)
        # The start of the next hand (a close's movement instruction comes by the phone's group).
        self.playing_group = broadcast.drive_group(self.drive_id, "playing")
        await self.channel_layer.group_add(self.playing_group, self.channel_name)
        if isinstance(found, play_seat.Elsewhere):
            return
        await self.sit(found)
        if not found.dealt:  # the hand just played, above where to sit for this one
            await self.send_last_hand(found.player_id, found.hand - 1)
        await self.send_view()
        bots.schedule_table(found.table_id)  # bots of a hand that outlived a restart pick up again

    async def sit(self, found: play_seat.Seated) -> None:
        """At this seat now (table and seat switch together, on the loop)."""
        await self.join_table(found.table_id, found.seat)
        self.hand_number, self.table_number, self.move = found.hand, found.table, found.move

    def last_hand_frame(self, player_id: int, number: int) -> dict[str, Any] | None:
        """The state frame of hand ``number`` as the player's seat saw it at its end, if played
        on the phones (else None): a screen opened after the close shows it under where to go."""
        seat = Seat.objects.filter(player_id=player_id, hand__number=number).select_related("table").first()
        if seat is None or seat.table.play_mode != TableHand.PlayMode.DIGITAL or seat.table.state is None:
            return None
        state = digital.load_state(seat.table)
        if not state.finished:
            return None
        return self.frame_of(digital.view_with_basis(state, seat.position), True, screen_facts.table_facts(seat.table_id))

    async def send_last_hand(self, player_id: int, number: int | None) -> None:
        """The hand just played (``last_hand_frame``), if any: shown above where to go, and no more
        than that, so a failure to read it is logged and the socket goes on."""
        if not number:
            return
        try:
            frame = await database_sync_to_async(self.last_hand_frame, thread_sensitive=False)(player_id, number)
        except Exception:
            log.warning("player %s: hand %s's end not read for a game screen", player_id, number, exc_info=True)
            return
        if frame is not None:
            await self.send_json(frame)

    async def hold_screen(self) -> None:
        """A player holds at most ``MAX_SCREENS`` game sockets here (two tabs, an old phone and a
        new one): each is sent every move's view, and a client that never reads is a buffer in the
        server. One more closes the oldest, told why; its page does not reconnect (``broadcast.REFUSED``)."""
        screens = _SCREENS.setdefault(self.player_id, [])
        screens.append(self)
        while len(screens) > MAX_SCREENS:
            oldest = screens.pop(0)
            try:
                await oldest.error("This seat is open on too many screens: this one has stopped. "
                                   "Reload the page to play here.")
                await oldest.close(code=broadcast.REFUSED)
            except Exception:  # already going: its disconnect is on its way
                log.debug("player %s: an old game socket was already closing", self.player_id, exc_info=True)

    def release_screen(self) -> None:
        screens = _SCREENS.get(self.player_id)
        if screens is not None and self in screens:
            screens.remove(self)
            if not screens:
                del _SCREENS[self.player_id]
                syncs = _SYNCS.get(self.token)
                if syncs is not None and syncs.refill(SYNC_BURST, SYNC_RATE) >= SYNC_BURST:
                    del _SYNCS[self.token]  # full again: as a new one

    async def disconnect(self, code):
        if getattr(self, "player_id", None) is not None:
            self.release_screen()
        if getattr(self, "phone_group", None):
            await self.channel_layer.group_discard(self.phone_group, self.channel_name)
            await self.channel_layer.group_discard(self.playing_group, self.channel_name)
        await super().disconnect(code)

    async def drive_started(self, event):
        """The organiser started a hand (``drive.live.hand_started``): the screen looks again now
        (its table on the phones, or where to go), even one at that hand's seat already: it may
        have read it before the organiser changed the seating (a swap), at a table since replaced."""
        # A task of its own: the socket goes on with its messages while it reads.
        layer.start_task(_guarded(self.look_again(force=False), self.table_id, "a hand's start"))

    async def drive_ended(self, event):
        """The drive finished (``drive.live.drive_ended``): the screen says so (``identify``)."""
        layer.start_task(_guarded(self.look_again(force=False), self.table_id, "the drive's end"))

    async def drive_instruction(self, event):
        """The organiser closed the hand (``drive.live.hand_moved``): where this player sits next,
        shown on the game screen too (a player still looking at the finished hand)."""
        await self.send_json({"type": "instruction", "stamp": event["stamp"], "hand": event["hand"], "html": event["html"]})

    async def phone_signed_out(self, event):
        await self.error(broadcast.signed_out_reason(event, "Join the drive again to play."))
        await self.close(code=broadcast.SIGNED_OUT)

    def identify(self) -> play_seat.Seated | play_seat.Elsewhere | str:
        """Where this player's screen is now (``play_seat.find``). Sets nothing: the caller
        switches table and seat together on the loop."""
        return play_seat.find(self.scope)

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
            # Not thread-sensitive: on PostgreSQL tables apply in parallel, the row lock serialising
            # what must be; on SQLite in the process's one writer thread (``write_sync_to_async``).
            applied = await write_sync_to_async(digital.apply_action)(
                self.table_id, self.seat, content, player_id=self.player_id, token=self.token)
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
            await self.send_view(force=True, quiet=True)
            return
        await self.send_json(
            {"type": "ok", "key": key if isinstance(key, str) else None, "version": applied.version,
             "duplicate": applied.duplicate}
        )
        if applied.message is None:  # a duplicate: the table as it is now
            self.refused()  # its locked read and the view cost as much as a refusal's (``may_sync``)
            await self.send_view(force=True)
        else:
            await self.send_applied(applied.message)

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
        if isinstance(found, play_seat.Elsewhere):
            await self.send_json(found.frame)
            return
        await self.sit(found)
        await self.send_view(force=force)
        bots.schedule_table(found.table_id)  # a bot that gave up (its moves failed) looks again


class WatchConsumer(_TableSocket):
    """The organiser's spectator view of one digital table: /ws/watch/<CODE>/<number>/ (no cards)."""

    async def connect(self):
        await self.accept()
        found = await database_sync_to_async(self.identify)()
        if isinstance(found, str):
            await self.error(found)
            await self.close(code=broadcast.REFUSED)
            return
        await self.join_table(found)
        await self.send_view()
        bots.schedule_table(found)

    def identify(self) -> int | str:
        kwargs = self.scope["url_route"]["kwargs"]
        try:
            drive = drive_by_code(kwargs["code"], self.scope)
        except Http404:
            return "No drive has that code."
        except TooManyCodes as exc:
            return str(exc)
        if not organiser_for_scope(self.scope, drive):
            return "Only the organiser may watch a table."
        table = TableHand.objects.filter(hand=Hand.objects.current_id(drive), number=kwargs["number"]).first()
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
