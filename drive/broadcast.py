"""Live updates of a drive: the one place that names its groups and builds what is pushed.

Everything goes out only after the transaction commits (``transaction.on_commit``), so no
listener ever sees a state that was rolled back. What is pushed is built once per change, not
once per listener: the group message carries the rendered payload, each socket just forwards it.
"""

from __future__ import annotations

import logging
import threading
from typing import Any

from config import layer

log = logging.getLogger(__name__)

# This process's board and dashboard sockets, by drive (drive.consumers.LiveConsumer adds and
# removes itself). A table's result message reaches them straight from the committing thread's
# hand-over to the event loop, not through each socket's queue of layer messages. On Redis the
# other processes' screens hear of it through their process's inbox, which is in the drive's
# screens group while the process holds a screen of the drive: one message per process, not
# one per screen, and none through the sockets' own channels (see config.layer.inbox_channel_name).
_screens = layer.InboxSockets(lambda drive_id: drive_group(drive_id, "screens"), lambda: one_message_for_all_phones())
add_screen = _screens.join
remove_screen = _screens.leave


def screen_group(drive_id: int, audience: str) -> str:
    """Where a full update of the board or the dashboard goes: in memory the audience's group,
    which their sockets join; through Redis the drive's screens group, which the processes'
    inboxes join (one message per process; each hands it to its screens of that audience),
    so no screen's update passes through a socket's own channel (see config.layer)."""
    return drive_group(drive_id, "screens" if one_message_for_all_phones() else audience)


# This process's phone sockets, by drive. On Redis a drive's phone update (one message with
# every phone's fragment) reaches each process once, through its inbox, and is handed to them
# here; in memory each phone has its own small message in its player group.
_phones = layer.InboxSockets(lambda drive_id: drive_group(drive_id, "phones"), lambda: one_message_for_all_phones())
# Which players have a phone socket open here, by drive (socket id -> player id): read by the
# thread that builds the updates, so kept under a lock rather than read from the sockets.
_listening: dict[int, dict[int, int]] = {}
_listening_lock = threading.Lock()


async def add_phone(drive_id: int, socket: Any) -> None:
    with _listening_lock:
        _listening.setdefault(drive_id, {})[id(socket)] = socket.player_id
    await _phones.join(drive_id, socket)


async def remove_phone(drive_id: int, socket: Any) -> None:
    with _listening_lock:
        sockets = _listening.get(drive_id, {})
        sockets.pop(id(socket), None)
        if not sockets:
            _listening.pop(drive_id, None)
    await _phones.leave(drive_id, socket)


def phones_listening(drive_id: int) -> frozenset[int] | None:
    """The players of the drive whose phone has its live socket open, when this process knows
    them all (the in-memory layer: one process); None when other processes may hold some
    (Redis): every phone's fragment is built then, unless no process holds one (the drive's
    phones group, which a process's inbox is in while it holds a phone's live socket, has no
    member: every phone on a digital table's game screen, say), when none is. A phone that is
    not listening (its owner is on a game screen, or has not opened the page) gets its
    fragment when it connects (``LiveConsumer``), so building it for every change is work for
    no one: on Redis a drive of 100 phones took 100-300 ms of building per update."""
    if one_message_for_all_phones():
        if layer.group_has_members(drive_group(drive_id, "phones")) is False:
            return frozenset()
        return None
    with _listening_lock:
        return frozenset(_listening.get(drive_id, {}).values())


async def _to_sockets(message: dict[str, Any]) -> None:
    """A drive's update that reached this process's inbox (Redis): the phones' (each socket
    sends its own fragment), or a board's or a dashboard's (screen_group: each screen takes
    its own audience's)."""
    sockets = _screens if message.get("audience") in ("board", "organiser") else _phones
    await sockets.hand(message.get("drive"), lambda socket: socket.drive_update(message), "an update", yielding=True)


def _newer_update(waiting: dict[str, Any], newer: dict[str, Any]) -> dict[str, Any] | None:
    """A drive's update still waiting in the inbox's second lane, brought up to ``newer`` (of the
    same drive and audience): its parts with the newer ones over them (a phones' update carries
    only the fragments that changed, a screen's all of its parts), the newer stamps."""
    if (waiting.get("drive"), waiting.get("audience")) != (newer.get("drive"), newer.get("audience")):
        return None
    return {**newer, "parts": {**(waiting.get("parts") or {}), **(newer.get("parts") or {})}}


# Bulky: a result's own message, or a digital table's next version, is not held up behind it.
layer.on_inbox("drive.update", _to_sockets, bulky=True, merge=_newer_update)


def send_result(drive_id: int, message: dict[str, Any]) -> None:
    """A table's result message (drive.live.table_changed) to every board and dashboard: this
    process's directly on its event loop; through the layer to other processes' (Redis), or to
    all when this process cannot reach its loop. A socket reached both ways shows it once."""
    _to_all(_screens, drive_group(drive_id, "screens"), drive_id, message,
            lambda socket: socket.drive_result(message), "a result message")


# This process's game screens of digital tables (tables.consumers.PlayConsumer), by drive: they
# hear of a close's movement instructions too (a player still looking at the finished hand).
_playing = layer.InboxSockets(lambda drive_id: drive_group(drive_id, "playing"), lambda: one_message_for_all_phones())
add_game_screen = _playing.join
remove_game_screen = _playing.leave


def send_instructions(drive_id: int, message: dict[str, Any]) -> None:
    """A closed hand's movement instructions (drive.live.hand_moved: every seated player's, in
    one message) to every phone of the drive, its live page or its game screen, as
    ``send_result`` to the screens: each socket sends its own player's."""
    for audience, sockets in (("phones", _phones), ("playing", _playing)):
        if not (sockets.get(drive_id) or one_message_for_all_phones()):
            continue  # in memory no group holds phones or game screens: only this process's own hear it
        _to_all(sockets, drive_group(drive_id, audience), drive_id, {**message, "audience": audience},
                lambda socket: socket.drive_instruction(message), "an instruction")


def send_hand_started(drive_id: int, message: dict[str, Any]) -> None:
    """A hand started (drive.live.hand_started): every game screen of the drive hears it, as it
    hears a close's instructions; one showing an earlier hand looks again."""
    if not (_playing.get(drive_id) or one_message_for_all_phones()):
        return  # in memory with no game screen of this drive here: nobody to tell
    _to_all(_playing, drive_group(drive_id, "playing"), drive_id, message,
            lambda socket: socket.drive_started(message), "a hand's start")


def _to_all(sockets: layer.InboxSockets, group: str, drive_id: int, message: dict[str, Any], call: Any,
            what: str) -> None:
    local = bool(sockets.get(drive_id))  # read here, from any thread: its size only

    async def deliver() -> None:  # on the loop, where sockets come and go
        await sockets.hand(drive_id, call, what)

    local = local and layer.run_soon(deliver)
    if not local or one_message_for_all_phones():
        # Not waited for: the committing thread (a digital table's apply thread) goes on. This
        # process's inbox, in the group too, skips what its sockets had directly.
        sent = {**message, "sent_by": layer.PROCESS} if local else message
        layer.send_soon([(group, sent)])


def _from_inbox(registry_of: Any, method: str, what: str) -> Any:
    """The inbox's handler of a message ``_to_all`` sent: this process's sockets had their own
    directly, another's get it here. ``registry_of(message)``: whose sockets it is for."""

    async def handle(message: dict[str, Any]) -> None:
        if message.get("sent_by") == layer.PROCESS:
            return
        registry = registry_of(message)
        if registry is not None:
            await registry.hand(message.get("drive"), lambda socket: getattr(socket, method)(message), what)

    return handle


layer.on_inbox("drive.result", _from_inbox(lambda message: _screens, "drive_result", "a result message"))
layer.on_inbox("drive.started", _from_inbox(lambda message: _playing, "drive_started", "a hand's start"))
# (A message without an audience is a phone's: as sent before the game screens had one.)
_INSTRUCTED = {"phones": _phones, "playing": _playing}
# Bulky too, in the same lane as the phones' updates: an update sent before the close must not be
# handed out after its instructions (it would replace the phone's part, the instruction with it).
layer.on_inbox("drive.instruction", _from_inbox(lambda message: _INSTRUCTED.get(message.get("audience", "phones")),
                                                "drive_instruction", "an instruction"), bulky=True)


def drive_group(drive_id: int, audience: str) -> str:
    """``audience``: "board" (projector), "organiser" (dashboard), "screens" (both: a table's
    result message, one send for the two) or "phones" (every phone of the drive, used through
    Redis, where the processes' inboxes join it, not the sockets; in memory each phone has its
    own ``player_group``) or "playing" (likewise, the game screens of digital tables)."""
    assert audience in ("board", "organiser", "screens", "phones", "playing")
    return f"drive-{drive_id}-{audience}"


def one_message_for_all_phones() -> bool:
    """True on Redis (see drive.live.phone_messages), False on the in-memory layer."""
    return layer.several_processes()


def player_group(player_id: int) -> str:
    return f"player-{player_id}"


SIGNED_OUT = 4401  # close code: the organiser signed this phone out, or it left by itself


def phone_group(player_id: int) -> str:
    """Every socket of the player's phone (live updates, a digital seat): only told to close."""
    return f"phone-{player_id}"


def signed_out_message(player_id: int, *, left: bool = False, withdrawn: bool = False) -> tuple[str, dict[str, Any]]:
    """(group, message) that closes every socket of the player's phone (``revoke_phone``);
    ``left``: the phone left by itself ("Leave this phone"), not signed out by the organiser;
    ``withdrawn``: the organiser took the player out of the drive (``withdraw_player``: the
    page, reloaded, says so; left open it would go on saying where to sit)."""
    return phone_group(player_id), {"type": "phone.signed_out", "player": player_id, "left": left,
                                    "withdrawn": withdrawn}


def signed_out_reason(message: dict[str, Any]) -> str:
    """What a socket closed by ``signed_out_message`` tells its page."""
    if message.get("withdrawn"):
        return "The organiser has taken you out of the drive."
    return "This phone has left the drive." if message.get("left") else "The organiser signed this phone out."


def send_many(messages: list[tuple[str, dict[str, Any]]]) -> bool:
    """False when the channel layer could not take them (logged by config.layer)."""
    return layer.send_many(messages)

