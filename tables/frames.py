"""A phone's frame around an engine action: its control fields (version, client key, seat,
basis), what makes one malformed, and the client keys a table remembers so that a move sent
again is answered once (``tables.digital.apply_action`` uses all of it)."""

from __future__ import annotations

import base64
import hashlib
import json
import re
from typing import Any

import orjson

KEEP_CLIENT_KEYS = 64  # per table; a resend older than that also carries a stale version: refused
MAX_KEY_LENGTH = 64
KEY_REUSED = "That move's key was already used for another move: reload to see the table."
CONTROL_FIELDS = ("version", "key", "seat", "basis")  # what the socket adds around an engine action
# What a player's screens say while a bot plays their seat (``digital.set_stand_in``): the
# drive's page, and the play page (static/js/play_client.js reads it from the page).
STOOD_IN = "A bot is playing your seat for now: ask the organiser to give it back to you."


class DigitalError(Exception):
    """A refused action; the message is shown on the phone that sent it."""


MAX_VERSION = 10**9  # far beyond any hand's; a larger "version" is not one (and is not echoed back)


_KEY = re.compile(rf"[A-Za-z0-9_-]{{1,{MAX_KEY_LENGTH}}}")

# The keys of the server's own moves, predictable by design (one per version, so that two
# processes' bots or clocks apply a move once): a phone may not send them. A phone that sent the
# clock's key of the version its own ask made would stop the clock, and its table wait for good;
# one that sent its bot's key would stop the bot standing in for it.
SERVER_KEYS = ("bot-", "clock-")
SERVER_KEY = "That key is one the server keeps for its own moves: send another."


def bot_key(seat: int, version: int) -> str:
    return f"bot-{seat}-{version}"


def clock_key(version: int) -> str:
    return f"clock-{version}"


def split_message(message: Any) -> tuple[dict[str, Any], int | None, str | None, Any]:
    """A phone's frame -> (engine action, version seen, client key, claimed seat); refused if odd."""
    if not isinstance(message, dict):
        raise DigitalError("An action must be a JSON object with a 'type'.")
    action = {k: v for k, v in message.items() if k not in CONTROL_FIELDS}
    version = message.get("version")
    if version is not None and (type(version) is not int or not 0 <= version <= MAX_VERSION):
        raise DigitalError("'version' must be the version number your phone last saw.")
    key = message.get("key")
    if key is not None and (not isinstance(key, str) or not _KEY.fullmatch(key)):
        # (Only letters, digits, '-' and '_': a lone surrogate or a NUL would reach PostgreSQL's
        # JSON and fail there.)
        raise DigitalError(f"'key' must be 1 to {MAX_KEY_LENGTH} letters, digits, '-' or '_'.")
    seat = message.get("seat")
    if seat is not None and type(seat) is not int:  # (a string "0" was told "you play seat 1")
        raise DigitalError("'seat', when sent, must be your seat's number.")
    return action, version, key, seat


def seen_key(client_keys: Any, key: str, seat: Any) -> list[Any] | None:
    """The entry under which ``seat`` sent ``key`` before, or None. Each entry is [key, version,
    seat, digest of the action] (``action_digest``): a key is matched per seat, so no phone can
    pass its move off as another seat's (and a phone never sends the server's keys,
    ``SERVER_KEYS``). An entry of two (stored before the
    seat was) matches any seat; one of two or three (before the digest) is taken for the same
    action."""
    for entry in client_keys or []:
        if entry[0] == key and (len(entry) < 3 or entry[2] == seat):
            return entry
    return None


def action_digest(action: dict[str, Any]) -> str:
    """A short digest of an engine action (the frame without its key, version, seat and basis),
    stored beside its client key: a key sent again with another action is refused (``KEY_REUSED``)
    rather than answered as a duplicate of a move that was not that one. 6 bytes of BLAKE2b over
    the canonical JSON (sorted keys), 8 characters: a collision only brings back the old answer
    ("duplicate") for the seat's own key. Only in the database, next to the state, which holds
    the same cards; never on the layer."""
    try:
        data = orjson.dumps(action, option=orjson.OPT_SORT_KEYS)
    except TypeError:  # what orjson does not take (an integer dict key, a huge integer)
        data = json.dumps(action, sort_keys=True, separators=(",", ":"), default=str).encode()
    return base64.urlsafe_b64encode(hashlib.blake2b(data, digest_size=6).digest()).decode()
