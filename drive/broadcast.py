"""Live updates of a drive: the one place that names its groups and sends to them.

Everything goes out only after the transaction commits (``transaction.on_commit``), so no
listener ever sees a state that was rolled back. What is pushed is built once per change, not
once per listener: the group message carries the rendered payload, each socket just forwards it
(or, where one message serves a group of phones, the part for its own player).

The groups, each socket joining its own with its own channel:
- ``drive_group(d, "board")`` / ``"organiser"``: the full updates of that audience's screens;
- ``drive_group(d, "screens")``: both audiences' screens: a table's result message;
- ``drive_group(d, "playing")``: every game screen of a digital table: the start of the next hand;
- ``player_group(p)``: the player's live pages: the player's own part of each full update;
- ``phone_group(p)``: every socket of the player's phone (its live page, its game screen): its
  movement instruction at a close, and told to close when it is signed out.

A message for each player goes to that player's own group, not one message with every player's
part to a drive's group: the in-memory layer copies a message whole for each member of a group,
so 500 phones' parts sent to 500 phones would be 250,000 parts copied.
"""

from __future__ import annotations

import threading
from typing import Any

from common import layer

AUDIENCES = ("board", "organiser", "screens", "playing")
SIGNED_OUT = 4401  # close code: the organiser signed this phone out, or it left by itself
REFUSED = 4403  # close code: this socket may not watch or play here (no seat, not the organiser, a stranger)


def drive_group(drive_id: int, audience: str) -> str:
    assert audience in AUDIENCES
    return f"drive-{drive_id}-{audience}"


def player_group(player_id: int) -> str:
    return f"player-{player_id}"


def phone_group(player_id: int) -> str:
    """Every socket of the player's phone (live updates, a digital seat)."""
    return f"phone-{player_id}"


# Which players have a live phone page open in this process, by drive (socket id -> player id):
# read by the thread that builds the updates, so kept under a lock rather than read from the
# sockets. On the in-memory layer (one process) that is every phone there is, and a phone that
# is not listening (on a game screen, or not joined) gets its part when it connects, so only the
# listening phones' parts are built; through Redis other processes hold phones too, and every
# phone's part is built.
_listening: dict[int, dict[int, int]] = {}
_listening_lock = threading.Lock()


def add_phone(drive_id: int, socket: Any) -> None:
    with _listening_lock:
        _listening.setdefault(drive_id, {})[id(socket)] = socket.player_id


def remove_phone(drive_id: int, socket: Any) -> None:
    with _listening_lock:
        sockets = _listening.get(drive_id, {})
        sockets.pop(id(socket), None)
        if not sockets:
            _listening.pop(drive_id, None)


def phones_listening(drive_id: int) -> frozenset[int] | None:
    """The players of the drive whose phone has its live page open, when this process knows them
    all (the in-memory layer); None when other processes may hold some (Redis)."""
    if several_processes():
        return None
    with _listening_lock:
        return frozenset(_listening.get(drive_id, {}).values())


def several_processes() -> bool:
    """Whether sockets of other server processes may listen on the layer (Redis)."""
    from channels.layers import InMemoryChannelLayer, get_channel_layer

    return not isinstance(get_channel_layer(), InMemoryChannelLayer)


def send_result(drive_id: int, message: dict[str, Any]) -> None:
    """A table's result message (drive.live.table_changed) to every board and dashboard."""
    layer.send(drive_group(drive_id, "screens"), message)


def send_instructions(message: dict[str, Any]) -> None:
    """A closed hand's movement instructions (drive.live.hand_moved: every seated player's) to
    every socket of each player's phone, its live page or its game screen: each its own."""
    head = {"type": "drive.instruction", "drive": message["drive"], "hand": message["hand"], "stamp": message["stamp"]}
    layer.send_many([(phone_group(int(pid)), {**head, "html": html}) for pid, html in message["instructions"].items()])


def send_game_screens(drive_id: int, message: dict[str, Any]) -> None:
    """A hand started, or the drive ended (drive.live.hand_started, drive_ended): every game
    screen of the drive hears it; one showing an earlier hand looks again."""
    layer.send(drive_group(drive_id, "playing"), message)


def signed_out_message(player_id: int, *, left: bool = False, withdrawn: bool = False) -> tuple[str, dict[str, Any]]:
    """(group, message) that closes every socket of the player's phone (``revoke_phone``);
    ``left``: the phone left by itself ("Leave this phone"), not signed out by the organiser;
    ``withdrawn``: the organiser took the player out of the drive (``withdraw_player``: the
    page, reloaded, says so; left open it would go on saying where to sit)."""
    return phone_group(player_id), {"type": "phone.signed_out", "player": player_id, "left": left,
                                    "withdrawn": withdrawn}


def signed_out_reason(message: dict[str, Any], then: str) -> str:
    """What a socket closed by ``signed_out_message`` tells its page; ``then``, what to do, but
    after the organiser's sign-out, where only the player's new private link joins as them."""
    if message.get("withdrawn"):
        return f"The organiser has taken you out of the drive. {then}"
    if message.get("left"):
        return f"This phone has left the drive. {then}"
    return "The organiser signed this phone out: ask them for your private link to join again."


def send_many(messages: list[tuple[str, dict[str, Any]]], *, wait: bool = False, bulk: bool = False) -> bool:
    """False when the channel layer could not take them (``wait``; logged by common.layer);
    ``bulk``: a full update's, in the lane that yields to the small messages."""
    return layer.send_many(messages, wait=wait, bulk=bulk)
