"""Digital play: every write of a hand played on the phones (issue 6).

The server is the only authority. A table's hand lives in ``TableHand.state`` (the engine's
JSON) with ``TableHand.version``; every action is applied inside a transaction that locks the
table's row (``select_for_update``; SQLite's IMMEDIATE transactions serialise writers), so two
actions never interleave, in one process or several. Refusals raise ``DigitalError`` with a
message for the phone; nothing is changed then.

What crosses the channel layer is only "table T is at version V" (``notify_table``); each socket
then loads its own seat's view (``seat_view``). A spectator (the organiser, the board) gets
``spectator_view``, which holds no hidden cards.

Entry points:
- ``deal_hand(drive, hand)``: from ``drive.services.start_hand``; deals every digital table.
- ``apply_action(table_id, seat, message, player_id=…)``: a phone's (or a bot's) action.
- ``stop_playing_tables(drive, hand)``: from ``drive.services.close_hand`` (the bell).
- ``add_bot(drive, table_id)``: the organiser seats a bot at a digital table between hands.
"""

from __future__ import annotations

import asyncio
import base64
import contextvars
import functools
import hashlib
import json
import logging
import random
import re
import sqlite3
import threading
import time
from collections import OrderedDict, deque
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Callable

import orjson
from django.db import connection, transaction
from django.utils import timezone

from config import layer
from config.bidi import isolate
from games import GameError, get_game
from scoring import services as scoring
from scoring.models import Result
from tables.models import BotPlayer, Hand, Seat, TableHand

log = logging.getLogger(__name__)

KEEP_CLIENT_KEYS = 64  # per table; a resend older than that also carries a stale version: refused
MAX_KEY_LENGTH = 64
KEY_REUSED = "That move's key was already used for another move: reload to see the table."
CONTROL_FIELDS = ("version", "key", "seat", "basis")  # what the socket adds around an engine action


# Called with the drive's id, inside the transaction, when something digital changes what the
# drive's screens show (a result entered, a bot seated). The drive registers its live-screen
# refresh here (drive.apps), so this module needs nothing from the drive's services.
drive_listeners: list[Callable[[int], None]] = []
# Called with the table, inside the transaction, when the engine records a table's result.
table_listeners: list[Callable[[TableHand], None]] = []


def _drive_changed(drive_id: int) -> None:
    for listener in drive_listeners:
        listener(drive_id)


class DigitalError(Exception):
    """A refused action; the message is shown on the phone that sent it."""


@dataclass(frozen=True)
class Applied:
    """What became of an action: ``duplicate`` when its client key had already been applied (to the
    same action: with another it is refused, ``KEY_REUSED``)."""

    table_id: int
    version: int
    duplicate: bool = False
    finished: bool = False
    # With ``notify=False``: what the caller must announce after the commit (``announce``).
    state: Any = field(default=None, compare=False, repr=False)
    bots: tuple[int, ...] = ()
    # The seat and the engine action that made ``state`` from the version before it: sealed
    # beside the version for the other processes (``sealed_move``), so they need not read it.
    move: tuple[int, dict[str, Any]] | None = field(default=None, compare=False, repr=False)
    # The table whose result the move recorded on the event loop: the drive's screens are told
    # once it has committed (``announce``; a move in a thread tells them in its transaction).
    recorded: TableHand | None = field(default=None, compare=False, repr=False)


# --- names of groups, and what goes through them -----------------------------------------------


def table_group(table_id: int) -> str:
    """The one place a table's group is named. Its messages carry a version, never a card."""
    return f"table-{table_id}"


def seats_message(table_id: int) -> dict[str, Any]:
    """Who sits where, or which seats the bots play, changed at the table (no card)."""
    return {"type": "table.seats", "table": table_id}


def version_message(table_id: int, version: int, move: dict[str, Any] | None = None) -> dict[str, Any]:
    """"Table T is at version V", with the move that made it sealed (``sealed_move``) if given."""
    message = {"type": "table.version", "table": table_id, "version": version}
    if move is not None:
        message["move"] = move
    return message


# --- the move that made a version, sealed ------------------------------------------------------
# Beside "table T is at version V" goes the move that made V from V-1, sealed: every string the
# move names (a card) replaced by a keyed digest, and a keyed digest of the new state. The key
# comes from SECRET_KEY, which every process of the server has and the layer never carries. A
# process that holds V-1 (its phones at the table were shown it) opens the move with the names
# its seat could see, replays it on a copy and, if the copy's digest is the sender's, holds V
# without reading the database; anything else (no V-1 here, a digest that does not match, an
# engine that refuses) reads the database as before. Without the key a sealed move tells what
# every phone at the table is shown anyway (seat 2 passed, offered two cards to seat 4), and
# nothing of any card; the digests are new with every version, so none can be followed.

SEAL_DIGEST = 9  # bytes of a sealed name (18 hex digits)


@functools.cache
def _seal_key(secret: str) -> bytes:
    return hashlib.blake2b(secret.encode(), digest_size=32, person=b"move-seal").digest()


def _sealing_key() -> bytes:
    from django.conf import settings

    return _seal_key(settings.SECRET_KEY)


def _sealed_name(key: bytes, table_id: int, version: int, name: str) -> str:
    return hashlib.blake2b(f"{table_id}:{version}:{name}".encode(), key=key, digest_size=SEAL_DIGEST).hexdigest()


class _Unsealable(Exception):
    """A sealed name that none of the seat's names has."""


def _seal(value: Any, sealed: Callable[[int, str], str | None], counter: list[int] | None = None) -> Any:
    """``value`` (an engine action, or part of one) with each string but the action's type
    replaced by ``sealed(position, string)``, strings counted in order from 0 (so two equal
    cards in one move seal to different names); ``_Unsealable`` where that gives None."""
    counter = [0] if counter is None else counter
    if isinstance(value, str):
        position = counter[0]
        counter[0] += 1
        out = sealed(position, value)
        if out is None:
            raise _Unsealable
        return out
    if isinstance(value, list):
        return [_seal(item, sealed, counter) for item in value]
    if isinstance(value, dict):
        return {k: (v if k == "type" else _seal(v, sealed, counter)) for k, v in value.items()}
    return value


def state_digest(table_id: int, state: Any, key: bytes | None = None) -> str:
    """A keyed digest of a state's JSON: what a replay must come to."""
    data = orjson.dumps(state.to_json(), option=orjson.OPT_SORT_KEYS)
    return hashlib.blake2b(data, key=key or _sealing_key(), digest_size=16, person=str(table_id).encode()[:16]).hexdigest()


def sealed_move(table_id: int, state: Any, move: tuple[int, dict[str, Any]]) -> dict[str, Any] | None:
    """The move that made ``state`` (its seat and engine action), sealed for the layer."""
    seat, action = move
    key = _sealing_key()
    version = state.version
    sealed = _seal(action, lambda position, name: _sealed_name(key, table_id, version, f"{position}:{name}"))
    return {"seat": seat, "action": sealed, "digest": state_digest(table_id, state, key)}


def _sealed_or_none(table_id: int, state: Any, move: tuple[int, dict[str, Any]]) -> dict[str, Any] | None:
    """``sealed_move``, or None if it fails: the version goes without it (the others read it)."""
    try:
        return sealed_move(table_id, state, move)
    except Exception:
        log.warning("table %s: version %s sent without its move", table_id, getattr(state, "version", None),
                    exc_info=True)
        return None


def _names(value: Any) -> Any:
    """Every string in a view (what its seat can name in a move)."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _names(item)
    elif isinstance(value, list):
        for item in value:
            yield from _names(item)


def replay_told(message: dict[str, Any]) -> Any:
    """From this process's inbox, before its sockets build their views: if the message carries
    the sealed move that made its version and this process holds the version before, the new
    state made here (kept as that version's); else None and nothing kept (they read it)."""
    move, table_id, version = message.get("move"), message.get("table"), message.get("version")
    if type(move) is not dict or type(table_id) is not int or type(version) is not int:
        return None
    if cached_state(table_id, version) is not None:
        return None
    held = cached_state(table_id, version - 1)

    seat = move.get("seat")
    if held is None or type(seat) is not int:
        return None
    try:
        key = _sealing_key()
        seen = set(_names(held.view(seat)))
        by_position: dict[int, dict[str, str]] = {}

        def opened(position: int, sealed: str) -> str | None:
            if position not in by_position:
                by_position[position] = {_sealed_name(key, table_id, version, f"{position}:{name}"): name
                                         for name in seen}
            return by_position[position].get(sealed)

        action = _seal(move.get("action"), opened)
        state = _moved_copy(table_id, version - 1, seat, action) if isinstance(action, dict) else None
        if state is None or state.version != version or state_digest(table_id, state, key) != move.get("digest"):
            log.info("table %s: version %s not replayed here; reading it", table_id, version)
            return None
    except _Unsealable:
        log.info("table %s: version %s names what its seat could not see here; reading it", table_id, version)
        return None
    except Exception:
        log.warning("table %s: version %s could not be replayed; reading it", table_id, version, exc_info=True)
        return None
    return _cache_state(table_id, version, state=state)


# Stored states by (table, version), newest last. A version's state never changes, so every
# socket of this process that is told "table T is at version V" builds its seat's view from one
# load (or from the state the applying thread just saved) instead of one database read each.
_STATES: OrderedDict[tuple[int, int], Any] = OrderedDict()
_STATES_LOCK = threading.Lock()
KEEP_STATES = 256


def _cache_state(table_id: int, version: int, data: dict[str, Any] | None = None, state: Any = None) -> Any:
    """Keep a committed version's state: ``state`` itself when the caller holds it (it must
    not be applied to again), else loaded from its stored JSON ``data``."""
    if state is None:
        state = get_game(data.get("game", "film-fantasy")).load_hand(data)
    with _STATES_LOCK:
        _STATES[(table_id, version)] = state
        while len(_STATES) > KEEP_STATES:
            _STATES.popitem(last=False)
    return state


@dataclass(frozen=True)
class _HeldFacts:
    """A table's facts that the move ending its hand records beside its result (``table_facts``):
    the one statement that makes that move (``_ending_sql``) checks that they still hold."""

    number: int
    hand_id: int
    hand_number: int
    drive_id: int
    recording: "_RecordingFacts"

    def table(self, table_id: int) -> TableHand:
        """The table as its result's recording and the drive's screens need it (no query)."""
        table = TableHand(id=table_id, number=self.number, hand_id=self.hand_id, status=TableHand.Status.CONFIRMED,
                          play_mode=TableHand.PlayMode.DIGITAL)
        table.hand = Hand(id=self.hand_id, number=self.hand_number, status=Hand.Status.PLAYING,
                          drive_id=self.drive_id)
        return table


_FACTS: OrderedDict[int, _HeldFacts] = OrderedDict()


def _keep_facts(table_id: int, facts: _HeldFacts) -> None:
    with _STATES_LOCK:
        _FACTS[table_id] = facts
        _FACTS.move_to_end(table_id)
        while len(_FACTS) > KEEP_STATES:
            _FACTS.popitem(last=False)


def held_facts(table_id: int) -> _HeldFacts | None:
    with _STATES_LOCK:
        return _FACTS.get(table_id)


def cached_state(table_id: int, version: int) -> Any:
    """The state of ``table_id`` at ``version`` if this process holds it, else None (no I/O)."""
    with _STATES_LOCK:
        return _STATES.get((table_id, version))


def state_at(table_id: int, version: int | None = None) -> tuple[Any, dict[str, Any]] | None:
    """(engine state, table facts) of a table, at ``version`` if this process holds it, else as
    stored now; None before the deal. The state is shared: read it (``view``), never apply to it."""
    if version is not None:
        with _STATES_LOCK:
            state = _STATES.get((table_id, version))
        if state is not None:
            return state, {"version": version}
    row = TableHand.objects.filter(pk=table_id).values("state", "version").first()
    if row is None or row["state"] is None:
        return None
    return _stored_version(table_id, row["version"], row["state"]), {"version": row["version"]}


def _stored_version(table_id: int, version: int, data: dict[str, Any]) -> Any:
    """The state of a version just read as ``data``: this process's copy if it holds one."""
    return cached_state(table_id, version) or _cache_state(table_id, version, data)


def notify_table(table_id: int, version: int, bot_seats: list[int], data: dict[str, Any] | None = None,
                 state: Any = None, move: tuple[int, dict[str, Any]] | None = None) -> None:
    """After commit: tell the table's sockets it is at ``version`` (with ``move``, the seat and
    action that made ``state``, sealed), and let its bots move."""
    from tables import bots  # bots imports this module

    seats = list(bot_seats or [])

    def send() -> None:
        if data is not None or state is not None:
            _cache_state(table_id, version, data, state)
        sealed = _sealed_or_none(table_id, state, move) if move is not None and state is not None else None
        bots.send_to_group(table_group(table_id), version_message(table_id, version, sealed))
        if seats:
            bots.schedule_table(table_id, seats)

    transaction.on_commit(send, robust=True)


def resend_current(table_id: int) -> None:
    """Tell every socket of the table, in every process, and its bots, the version the table
    holds now (a move whose commit was sent but not confirmed may have happened)."""
    row = TableHand.objects.filter(pk=table_id).values("state", "version", "bots", "status").first()
    if row is None or row["state"] is None:
        return
    playing = row["status"] == TableHand.Status.PLAYING
    notify_table(table_id, row["version"], list(row["bots"] or []) if playing else [], data=row["state"])


def keep_state(applied: "Applied") -> None:
    """Keep an applied action's state as its version's, for this process's sockets' views."""
    if not applied.duplicate and applied.state is not None:
        _cache_state(applied.table_id, applied.version, state=applied.state)


async def announce(channel_layer: Any, applied: "Applied", *, through_layer: bool = True) -> None:
    """From a socket's own event loop, once ``apply_action(..., notify=False)`` has returned
    (committed) and the caller has kept the state (``keep_state``) and told this process's
    sockets: tell the other processes' through the layer (``through_layer``), let the bots
    move. The same as ``notify_table`` without the trip from the worker thread to the loop."""
    from tables import bots

    if applied.duplicate or applied.state is None:
        return
    if through_layer:
        try:
            move = _sealed_or_none(applied.table_id, applied.state, applied.move) if applied.move else None
            await layer.group_send(channel_layer, table_group(applied.table_id),
                                   version_message(applied.table_id, applied.version, move), others_only=True)
        except Exception:  # committed already: sockets catch up on their next sync
            log.warning("table %s version %s not announced: channel layer unavailable", applied.table_id,
                        applied.version, exc_info=True)
    if applied.bots:
        bots.schedule_table(applied.table_id, list(applied.bots))
    if applied.recorded is not None:  # committed on the event loop: the drive's screens now
        await in_apply_thread(_results_told, applied.recorded)


# --- reading ----------------------------------------------------------------------------------


def game_for(drive) -> Any:
    return get_game(drive.game, drive.house_rules)


def load_state(table: TableHand):
    if table.state is None:
        raise DigitalError("This table's hand has not been dealt yet.")
    try:
        return get_game(table.state.get("game", "film-fantasy")).load_hand(table.state)
    except GameError as exc:
        raise DigitalError(f"This table's stored hand cannot be read: {exc}") from None


def seat_view(table: TableHand, seat: int | None) -> dict[str, Any] | None:
    """What ``seat`` may see of the table's hand (None: a spectator), or None before the deal."""
    if table.state is None:
        return None
    return load_state(table).view(seat)


def spectator_view(table: TableHand) -> dict[str, Any] | None:
    """The organiser's or the board's view of a digital table: counts and the public log only."""
    return seat_view(table, None)


def seat_names(table: TableHand, seats: list[Seat] | None = None) -> list[dict[str, Any]]:
    """Who sits where, for the phones: position, name, and whether the server plays the seat."""
    bots = set(table.bots or [])
    if seats is None:
        seats = list(table.seats.select_related("player").order_by("position"))
    return [{"position": s.position, "name": s.player.name, "bot": s.position in bots} for s in seats]


def table_facts(table_id: int) -> dict[str, Any]:
    """What a table's sockets show beside a view (its number, the hand's, who sits where), read
    once per table; this process also keeps what recording its result needs (``held_facts``)."""
    table = TableHand.objects.select_related("hand__drive").get(pk=table_id)
    seats = list(table.seats.select_related("player").order_by("position"))
    hand, drive = table.hand, table.hand.drive
    _keep_facts(table_id, _HeldFacts(table.number, hand.pk, hand.number, drive.pk,
                                     _RecordingFacts(drive.game, drive.house_rules or {}, [s.player_id for s in seats])))
    return {"id": table.pk, "table": table.number, "hand": hand.number, "seats": seat_names(table, seats)}


def digital_seat_of(drive, player) -> Seat | None:
    """The player's seat at a digital table in the drive's current hand, or None."""
    hand = drive.hands.order_by("-number").first()
    if hand is None:
        return None
    return (
        Seat.objects.select_related("table", "table__hand")
        .filter(hand=hand, player=player, table__play_mode=TableHand.PlayMode.DIGITAL)
        .first()
    )


def is_bot(player) -> bool:
    return BotPlayer.objects.filter(player=player).exists()


def seat_basis(view: dict[str, Any]) -> str:
    """A fingerprint of what a seat's choices rest on: its view less the game's public chatter.

    Passes are simultaneous: while Ann chooses, Bob's pass bumps the table's version, although
    nothing Ann sees of her own situation has changed. An action sent with a stale version is
    still accepted when the sender's basis is unchanged (its cards, the phase, the round, the
    offers it is part of); otherwise it is refused as stale. Which view keys are chatter is the
    game's knowledge (``chatter_keys``)."""
    game = get_game(view.get("game", "film-fantasy"))
    chatter = set(getattr(game, "chatter_keys", ("version", "log", "log_from")))
    material = {k: v for k, v in view.items() if k not in chatter and k != "basis"}
    try:
        text = orjson.dumps(material, option=orjson.OPT_SORT_KEYS)  # a view is built for every seat of every action
    except TypeError:  # what orjson does not take (an integer dict key): the standard library
        text = json.dumps(material, sort_keys=True, default=str).encode()
    return hashlib.sha256(text).hexdigest()[:16]


def view_with_basis(state: Any, seat: int | None) -> dict[str, Any]:
    view = state.view(seat)
    if seat is not None:
        view["basis"] = seat_basis(view)
    return view


# --- the deal -----------------------------------------------------------------------------------


def _bot_positions(table: TableHand) -> list[int]:
    return list(
        table.seats.filter(player__bot__isnull=False).order_by("position").values_list("position", flat=True)
    )


def deal_rng(drive, hand: Hand, table: TableHand) -> random.Random:
    """Seeded from the drive, the hand and the table: a deal can be replayed for a dispute."""
    return random.Random(f"{drive.seed}-{hand.number}-{table.number}")


@transaction.atomic
def deal_hand(drive, hand: Hand) -> list[TableHand]:
    """Deal every digital table of ``hand`` that has no state yet; its bots start on commit.

    Called by ``drive.services.start_hand`` inside its transaction (the drive's row is locked).
    """
    game = game_for(drive)
    dealt = []
    tables = hand.tables.select_for_update().filter(play_mode=TableHand.PlayMode.DIGITAL, state__isnull=True)
    for table in tables.order_by("number"):
        players = table.seats.count()
        try:
            state = game.new_hand(players, deal_rng(drive, hand, table))
        except GameError as exc:  # a table of one (late withdrawals): the organiser closes it
            log.warning("table %s of hand %s not dealt: %s", table.number, hand.number, exc)
            continue
        table.state = state.to_json()
        table.version = state.version
        table.bots = _bot_positions(table)
        table.client_keys = []
        table.save(update_fields=["state", "version", "bots", "client_keys", "updated_at"])
        notify_table(table.pk, table.version, table.bots, state=state)
        dealt.append(table)
    return dealt


# --- actions ------------------------------------------------------------------------------------

# The threads that apply the phones' actions (and read versions applied by other processes).
# Their own, few and long-lived, and each keeps its database connection between actions:
# opening one (SQLite) or taking one from the pool and setting it up (PostgreSQL) costs more
# than an action's transaction. A connection that saw an error is closed; the next action opens
# a new one.
_APPLY_THREADS: ThreadPoolExecutor | None = None
_APPLY_WORKERS = 0


def _apply_threads() -> ThreadPoolExecutor:
    """SQLite takes one writer at a time, and a writer that finds the file locked sleeps in
    steps of milliseconds: one thread queues the actions instead. PostgreSQL locks a table's
    row only: four threads apply at four tables at once."""
    global _APPLY_THREADS, _APPLY_WORKERS
    if _APPLY_THREADS is None:
        _APPLY_WORKERS = 1 if connection.vendor == "sqlite" else 4
        _APPLY_THREADS = ThreadPoolExecutor(max_workers=_APPLY_WORKERS, thread_name_prefix="digital-apply")
    return _APPLY_THREADS


CHECK_IDLE_SECONDS = 30  # a kept connection idle this long is checked before use
RENEW_SECONDS = 600  # and one this old is closed (back to the pool) and opened anew
_kept = threading.local()


def _keeping_connection(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    _check_kept_connection()
    try:
        return fn(*args, **kwargs)
    finally:
        if connection.errors_occurred or connection.in_atomic_block:
            connection.close()
        _kept.used = time.monotonic()


def _check_kept_connection() -> None:
    """A database restart, an idle timeout or a proxy may have cut a connection kept idle: check
    it (one round trip) after a pause, so an action does not fail on a dead one; renew an old
    one so that the pool's limits still apply."""
    if connection.connection is None:
        _kept.opened = time.monotonic()
        return
    now = time.monotonic()
    if now - getattr(_kept, "opened", now) > RENEW_SECONDS or (
        now - getattr(_kept, "used", now) > CHECK_IDLE_SECONDS and not connection.is_usable()
    ):
        connection.close()
        _kept.opened = now


def close_apply_connections(timeout: float = 10) -> None:
    """Close the connection each apply thread keeps, and the event loops' readers' (before a
    test database is dropped). The threads wait for each other, so each of them runs one close."""
    global _APPLY_THREADS
    _LoopReader.close_all()
    _LoopSqlite.close_all()
    pool = _APPLY_THREADS
    if pool is None:
        return
    barrier = threading.Barrier(_APPLY_WORKERS)

    def close() -> None:
        try:
            barrier.wait(timeout)
        except threading.BrokenBarrierError:
            pass  # fewer threads were ever started: each of those still closes its own
        connection.close()

    for future in [pool.submit(close) for _ in range(_APPLY_WORKERS)]:
        future.result(timeout + 5)
    pool.shutdown(wait=True)
    _APPLY_THREADS = None


async def in_apply_thread(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """Run ``fn`` (``apply_action``) in one of the apply threads, from a socket's event loop."""
    loop = asyncio.get_running_loop()
    ctx = contextvars.copy_context()
    return await loop.run_in_executor(_apply_threads(), functools.partial(ctx.run, _keeping_connection, fn, *args, **kwargs))


_READS: dict[tuple[int, int, int], asyncio.Future] = {}


async def state_read(table_id: int, version: int) -> Any:
    """The state of ``table_id`` at ``version`` or later, for a socket told of a version that
    another process applied: one read per process and version, however many of this process's
    sockets sit at the table. None before the deal."""
    state = cached_state(table_id, version)
    if state is not None:
        return state
    key = (id(asyncio.get_running_loop()), table_id, version)
    future = _READS.get(key)
    if future is None:
        future = asyncio.ensure_future(_read_state(table_id))
        _READS[key] = future
        future.add_done_callback(lambda _done: _READS.pop(key, None))
    return await asyncio.shield(future)


async def _read_state(table_id: int) -> Any:
    """PostgreSQL: on the event loop, through this loop's own connection (``_LoopReader``);
    else, or if that fails, in an apply thread (which keeps its connection on SQLite)."""
    if connection.vendor == "postgresql" and _LoopReader.ready():
        try:
            found = await _LoopReader.read(table_id)
        except Exception:
            log.warning("table %s: read on the event loop failed; reading in a thread", table_id, exc_info=True)
        else:
            if found is None:
                return None
            data, version = found
            return _stored_version(table_id, version, data)
    return await in_apply_thread(_stored_state, table_id)


def _stored_state(table_id: int) -> Any:
    found = state_at(table_id)
    return None if found is None else found[0]


class _LoopReader:
    """A few PostgreSQL connections per event loop (autocommit, psycopg's async API, Django's
    adapters): the reads of states that other processes applied, and the moves applied on the
    loop (``apply_on_loop``). In a thread, each read or move waited for a free apply thread, and
    for the interpreter after every step of its trip to the database, behind the event loop
    sending views: 8 ms at the median for a read under the digital benchmark's load. On the loop
    a read is one round trip. Several connections, so that one table's move does not hold up
    another's, nor a read. A connection that fails, or a read that takes over ``TIMEOUT``, is
    dropped and that read goes to a thread; the next read opens another. A connection that
    cannot be opened sends the reads and moves to a thread for ``REST`` seconds."""

    SIZE = 4  # connections per loop at most
    TIMEOUT = 5.0  # a read or a move (or a connect, or the wait for a free connection) that takes longer fails
    REST = 15.0
    _pools: dict[int, "_ReaderPool"] = {}
    _resting_until: dict[int, float] = {}  # loop -> after a failure, reads go to a thread until then

    @classmethod
    def ready(cls) -> bool:
        """False for a while after this loop's reader failed to connect (reads go to a thread)."""
        return time.monotonic() >= cls._resting_until.get(id(asyncio.get_running_loop()), 0.0)

    @classmethod
    def pool(cls) -> "_ReaderPool":
        loop = asyncio.get_running_loop()
        pool = cls._pools.get(id(loop))
        if pool is None or pool.loop is not loop:
            pool = cls._pools[id(loop)] = _ReaderPool(loop, cls.SIZE, cls._open)
        return pool

    @classmethod
    async def acquire(cls) -> tuple["_ReaderPool", Any]:
        pool = cls.pool()
        try:
            return pool, await pool.acquire(cls.TIMEOUT)
        except _ConnectFailed:
            cls._resting_until[id(pool.loop)] = time.monotonic() + cls.REST
            raise

    @classmethod
    async def read(cls, table_id: int) -> tuple[dict[str, Any], int] | None:
        """The table's stored (state JSON, version)."""
        pool, conn = await cls.acquire()
        try:
            row = await asyncio.wait_for(cls._fetch(conn, table_id), cls.TIMEOUT)
        except BaseException:  # a stalled or broken connection: no other read goes through it
            pool.release(conn, broken=True)
            raise
        pool.release(conn)
        if row is None or row[0] is None:
            return None
        return json.loads(row[0]), row[1]

    @classmethod
    async def _fetch(cls, conn: Any, table_id: int) -> Any:
        cursor = await conn.execute(cls._sql(), [table_id])
        return await cursor.fetchone()

    @staticmethod
    @functools.lru_cache(maxsize=1)
    def _sql() -> str:
        return f"SELECT state::text, version FROM {_sql_names()['t']} WHERE id = %s"

    @staticmethod
    async def _open() -> Any:
        import psycopg

        # Django's adapters (``context``: JSON read as text, as the models' fields expect);
        # prepare_threshold as Django sets it (None: no prepared statements, for poolers).
        params = {k: v for k, v in connection.get_connection_params().items() if k != "cursor_factory"}
        conn = await psycopg.AsyncConnection.connect(autocommit=True, connect_timeout=10, **params)
        # Its moves never end a hand (that one goes to a thread and waits for the disk): each
        # commits without waiting for its WAL, as the locked path's do (``_locked_sql``).
        await conn.execute("SET synchronous_commit TO off")
        return conn

    @classmethod
    def close_all(cls) -> None:
        for pool in list(cls._pools.values()):
            pool.close_all()
        cls._pools.clear()
        cls._resting_until.clear()


class _ConnectFailed(Exception):
    """A loop's reader could not open a connection (the cause is chained)."""


class _ReaderPool:
    """One event loop's reader connections: up to ``size``, opened when needed, kept between
    reads; a read waits for a free one when all are busy."""

    def __init__(self, loop: asyncio.AbstractEventLoop, size: int, open_one: Callable[[], Any]) -> None:
        self.loop, self.size, self.open_one = loop, size, open_one
        self.idle: list[Any] = []
        self.held: set[Any] = set()  # every open connection, idle or in use
        self.opening = 0
        self.waiters: deque[asyncio.Future] = deque()

    async def acquire(self, timeout: float) -> Any:
        """A connection of this loop's; ``_ConnectFailed`` when one could not be opened (or
        took longer than ``timeout``), ``TimeoutError`` when none came free within it."""
        deadline = time.monotonic() + timeout
        while True:
            while self.idle:
                conn = self.idle.pop()
                if not conn.closed:
                    return conn
                self.held.discard(conn)
            if len(self.held) + self.opening < self.size:
                self.opening += 1
                try:
                    conn = await asyncio.wait_for(self.open_one(), max(0.0, deadline - time.monotonic()))
                except BaseException as exc:
                    self.opening -= 1
                    self._wake()  # a waiter may open one in its place
                    if isinstance(exc, Exception):
                        raise _ConnectFailed(str(exc)) from exc
                    raise
                self.opening -= 1
                self.held.add(conn)  # before any other read of this loop can look
                return conn
            waiter = self.loop.create_future()
            self.waiters.append(waiter)
            try:
                handed = await asyncio.wait_for(asyncio.shield(waiter), max(0.0, deadline - time.monotonic()))
            except BaseException:
                if waiter.done() and not waiter.cancelled():
                    self._pass_on(waiter.result())  # given its turn as it gave up: the next one's
                waiter.cancel()
                raise
            finally:
                if waiter in self.waiters:
                    self.waiters.remove(waiter)
            if handed is not None:  # a released connection, handed over in turn
                return handed

    def release(self, conn: Any, *, broken: bool = False) -> None:
        if broken or conn.closed:
            self.held.discard(conn)
            _finish(conn)
            self._wake()
        else:
            self._pass_on(conn)

    def _pass_on(self, conn: Any) -> None:
        """A free connection to the first waiter (in turn: no newcomer takes it first), else
        idle; ``None``: a place to open one in."""
        while self.waiters:
            waiter = self.waiters.popleft()
            if not waiter.done():
                waiter.set_result(conn)
                return
        if conn is not None:
            self.idle.append(conn)

    def _wake(self) -> None:
        self._pass_on(None)

    def close_all(self) -> None:
        for conn in list(self.held):
            _finish(conn)
        self.held.clear()
        self.idle.clear()


def _finish(conn: Any) -> None:
    try:
        conn.pgconn.finish()  # from any thread or loop: the socket closes, the server ends its session
    except Exception:
        pass


MAX_VERSION = 10**9  # far beyond any hand's; a larger "version" is not one (and is not echoed back)


_KEY = re.compile(rf"[A-Za-z0-9_-]{{1,{MAX_KEY_LENGTH}}}")


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
        # JSON and fail there, found by probing.)
        raise DigitalError(f"'key' must be 1 to {MAX_KEY_LENGTH} letters, digits, '-' or '_'.")
    seat = message.get("seat")
    if seat is not None and type(seat) is not int:  # (a string "0" was told "you play seat 1")
        raise DigitalError("'seat', when sent, must be your seat's number.")
    return action, version, key, seat


# An action is the hottest write of the application (every card passed, every offer): its
# read with its seat check, and its write, are two hand-written statements, not ORM queries, whose
# building cost more than SQLite's work. Columns are named from the models, values converted by
# the models' own fields, so both databases and the JSON columns behave as through the ORM.


def _sql_names() -> dict[str, str]:
    return _quoted_names(connection.vendor)


@functools.lru_cache(maxsize=4)
def _quoted_names(vendor: str) -> dict[str, str]:
    q = connection.ops.quote_name
    return {"t": q(TableHand._meta.db_table), "h": q(Hand._meta.db_table), "seat": q(Seat._meta.db_table),
            "player": q(Seat._meta.get_field("player").related_model._meta.db_table),
            "d": q(Hand._meta.get_field("drive").related_model._meta.db_table)}


def _from_db(name: str, value: Any) -> Any:
    """A column read by hand, converted as the ORM would (JSON text to Python on both databases)."""
    return TableHand._meta.get_field(name).from_db_value(value, None, connection)


def _locked_sql(with_token: bool, ending: bool = False) -> str:
    """The statement that reads and locks a table's row with its hand, and whether the sender
    sits at the seat (parameters: seat, player, [token,] table). ``ending``: the move is
    expected to end the hand (``_RecordingFacts``)."""
    return _locked_sql_of(connection.vendor, with_token, ending)


def _sits_sql(with_token: bool) -> str:
    """Whether the sender sits at the seat of table ``t`` (parameters: seat, player, [token])."""
    n = _sql_names()
    sits = f"SELECT 1 FROM {n['seat']} s WHERE s.table_id = t.id AND s.position = %s AND s.player_id = %s"
    if with_token:
        sits += f" AND EXISTS (SELECT 1 FROM {n['player']} p WHERE p.id = s.player_id AND p.token = %s)"
    return sits


@functools.lru_cache(maxsize=8)
def _locked_sql_of(vendor: str, with_token: bool, ending: bool = False) -> str:
    n = _sql_names()
    sits = _sits_sql(with_token)
    columns = (
        "t.id, t.number, t.hand_id, t.play_mode, t.status, t.state, t.version, t.bots, t.client_keys, "
        f"h.number, h.status, h.drive_id, EXISTS ({sits})"
    )
    joins = f"INNER JOIN {n['h']} h ON h.id = t.hand_id"
    if vendor == "postgresql" and ending:
        # What recording the result needs, in the same round trip (``_RecordingFacts``); and
        # this commit waits for the disk, as every result's does, whatever the server's default.
        columns += (f", d.game, d.house_rules::text, (SELECT array_agg(s.player_id ORDER BY s.position) "
                    f"FROM {n['seat']} s WHERE s.table_id = t.id), set_config('synchronous_commit', 'on', true)")
        joins += f" INNER JOIN {n['d']} d ON d.id = h.drive_id"
    elif vendor == "postgresql":
        # A move commits without waiting for its WAL to reach the disk, as on SQLite (WAL,
        # synchronous=NORMAL): it survives the server process being killed, and only a crash
        # of PostgreSQL's machine within a fraction of a second could lose it. The move that
        # ends the hand, whose result enters the drive, waits as every result does (_durable).
        columns += ", set_config('synchronous_commit', 'off', true)"
    sql = f"SELECT {columns} FROM {n['t']} t {joins} WHERE t.id = %s"
    if connection.features.has_select_for_update_of:
        sql += " FOR UPDATE OF t"  # the table's row only: other tables of the hand play on
    return sql


def _locked_params(table_id: int, seat: Any, player_id: int | None, token: str | None) -> list[Any]:
    seat = seat if type(seat) is int else -1  # (a seat that is no number sits nowhere)
    return [seat, player_id, *([token] if token is not None else []), table_id]


def _table_of_row(row: Any, player_id: int | None) -> tuple[TableHand, bool]:
    if row is None:
        raise DigitalError("That table no longer exists.")
    pk, number, hand_id, mode, status, state, version, bots, keys, hand_number, hand_status, drive_id, sits = row[:13]
    table = TableHand(id=pk, number=number, hand_id=hand_id, play_mode=mode, status=status,
                      state=_from_db("state", state), version=version, bots=_from_db("bots", bots),
                      client_keys=_from_db("client_keys", keys))
    table.hand = Hand(id=hand_id, number=hand_number, status=hand_status, drive_id=drive_id)
    return table, player_id is not None and bool(sits)


@dataclass(frozen=True)
class _RecordingFacts:
    """What recording a result needs beyond the table's row, read with it (PostgreSQL) when the
    move is expected to end the hand: in a thread each further query waits for the interpreter
    behind the event loop (a millisecond each under the digital benchmark's load)."""

    game: str
    house_rules: dict[str, Any]
    player_ids: list[int]  # by seat


def _facts_of_row(row: Any) -> _RecordingFacts | None:
    if row is None or len(row) < 16 or row[15] is None:
        return None
    return _RecordingFacts(row[13], json.loads(row[14] or "{}") or {}, list(row[15]))


def _locked_table(table_id: int, seat: Any, player_id: int | None, token: str | None = None, *,
                  ending: bool = False) -> tuple[TableHand, bool, _RecordingFacts | None]:
    """The table's row, locked, with its hand; whether ``player_id`` sits at ``seat`` there
    (and, given the ``token`` its phone joined with, still holds it: not signed out since);
    and, when the move is expected to end the hand (``ending``), what recording its result
    needs (PostgreSQL; None on SQLite, where a query is no round trip)."""
    with connection.cursor() as cursor:
        cursor.execute(_locked_sql(token is not None, ending), _locked_params(table_id, seat, player_id, token))
        row = cursor.fetchone()
    return (*_table_of_row(row, player_id), _facts_of_row(row))


def _ends_the_hand(table_id: int, seat: Any, message: dict[str, Any]) -> bool:
    """Whether the move, on the version its sender saw, ends the hand, as far as this process
    can tell without the database: from its copy of that version, when it holds one (a hint
    only: the locked row decides everything)."""
    action, version, _key, _claimed = split_message(message)
    moved = _moved_copy(table_id, version, seat, action)
    return moved is not None and moved.finished


def _moved_copy(table_id: int, version: int | None, seat: Any, action: dict[str, Any]) -> Any:
    """A copy of this process's state of the table at ``version``, with the action applied;
    None when it holds no such version or the engine refuses the action."""
    held = cached_state(table_id, version) if version is not None and type(seat) is int else None
    if held is None:
        return None
    data = held.to_json()
    state = get_game(data.get("game", "film-fantasy")).load_hand(data)  # the held state is shared: a copy moves
    try:
        state.apply(seat, action)
    except GameError:
        return None
    return state


def _durable() -> None:
    """This transaction's commit waits for the disk (undoes _locked_table's relaxation)."""
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SELECT set_config('synchronous_commit', 'on', true)")


def _update(table: TableHand, fields: list[str]) -> tuple[str, list[Any]]:
    """One UPDATE of ``fields`` of the table's row, each value prepared by its model field."""
    n = _sql_names()
    q = connection.ops.quote_name
    columns, values = [], []
    for name in fields:
        field = TableHand._meta.get_field(name)
        columns.append(f"{q(field.column)} = %s")
        values.append(field.get_db_prep_save(getattr(table, name), connection))
    return f"UPDATE {n['t']} SET {', '.join(columns)} WHERE id = %s", [*values, table.pk]


def _write(table: TableHand, fields: list[str]) -> None:
    with connection.cursor() as cursor:
        cursor.execute(*_update(table, fields))


def _accept(table: TableHand, sender_sits: bool, seat: Any, message: dict[str, Any], *, bot: bool,
            token: str | None) -> Applied | tuple[Any, list[str]]:
    """Everything an action is checked for, on its locked row, and the engine's move: a
    duplicate's ``Applied``, or the moved state with the fields of ``table`` it changed (set on
    ``table``); refused with ``DigitalError``. No database work: both paths share it."""
    action, version, key, claimed = split_message(message)
    if key is not None:
        digest = action_digest(action)
        seen = _seen_key(table.client_keys, key, seat)
        if seen is not None:
            if len(seen) > 3 and seen[3] != digest:  # the key, with another move: nothing was applied for it
                raise DigitalError(KEY_REUSED)
            return Applied(table.pk, table.version, duplicate=True, finished=table.status != TableHand.Status.PLAYING)
    if claimed is not None and claimed != seat:
        raise DigitalError(f"You play seat {seat + 1}: you can act only for your own seat.")
    if bot:
        if seat not in (table.bots or []):
            raise DigitalError(f"Seat {seat + 1} is not played by a bot.")
    elif not sender_sits:
        if token is not None:  # a phone: not seated there, or signed out since it connected
            raise DigitalError("This phone does not hold that seat (any more): join the drive again.")
        raise DigitalError("You do not sit at that seat of this table.")
    elif seat in (table.bots or []):  # the organiser has a bot stand in (``set_stand_in``)
        # (Also a player the organiser has taken out since this phone connected: its next
        # connection says so; this row does not know.)
        raise DigitalError("A bot is playing your seat for now: the organiser set it there (or took you out "
                           "of the drive). Ask them to give it back to you.")
    if table.play_mode != TableHand.PlayMode.DIGITAL or table.state is None:
        raise DigitalError("This table is not playing on the phones.")
    if table.status != TableHand.Status.PLAYING or table.hand.status != Hand.Status.PLAYING:
        raise DigitalError("This hand is over.")
    if version is None:
        raise DigitalError("Send the version your phone last saw with every action.")
    state = load_state(table)
    if version != table.version and not _same_basis(state, seat, message.get("basis")):
        raise DigitalError(
            f"The table has moved on since your phone last looked (version {version}, now {table.version}): "
            "look again and choose."
        )
    try:
        state.apply(seat, action)
    except GameError as exc:
        raise DigitalError(str(exc)) from None
    table.state = state.to_json()
    table.version = state.version
    fields = ["state", "version", "updated_at"]
    if key is not None:
        table.client_keys = [*(table.client_keys or []), [key, table.version, seat, digest]][-KEEP_CLIENT_KEYS:]
        fields.append("client_keys")
    table.updated_at = timezone.now()
    return state, fields


def _seen_key(client_keys: Any, key: str, seat: Any) -> list[Any] | None:
    """The entry under which ``seat`` sent ``key`` before, or None. Each entry is [key, version,
    seat, digest of the action] (``action_digest``): a key is matched per seat, so no phone can
    pass its move off as another seat's (a bot's key, "bot-<seat>-<version>", is predictable: a
    phone that used it stalled the bot, found by probing). An entry of two (stored before the
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


@transaction.atomic
def apply_action(
    table_id: int,
    seat: int,
    message: dict[str, Any],
    *,
    player_id: int | None = None,
    token: str | None = None,
    bot: bool = False,
    notify: bool = True,
) -> Applied:
    """Apply one seat's action under the table's row lock.

    ``message`` is the engine action plus ``version`` (the version the sender saw; required),
    ``key`` (a client key; optional) and ``seat`` (optional; must be the sender's own). The
    sender is ``player_id`` (a phone: must sit at ``seat``; with ``token``, the one its socket
    joined with, which must still be the player's) or ``bot`` (``seat`` must be a bot seat).
    Returns ``Applied``; a key seen before (with the same action) returns ``duplicate=True``
    without applying; with another action it is refused (``KEY_REUSED``), nothing applied.
    Refused (``DigitalError``, state unchanged): a foreign seat, a stale version, a hand that is
    over or not dealt, and anything the engine refuses.

    ``notify=False`` (a socket, which is on the event loop once this returns): nothing is sent
    on commit; the caller passes the returned ``Applied`` to ``announce``.
    """
    split_message(message)  # a malformed frame is refused before any database work
    ending = connection.vendor == "postgresql" and _ends_the_hand(table_id, seat, message)
    table, sender_sits, facts = _locked_table(table_id, seat, player_id, token, ending=ending)
    accepted = _accept(table, sender_sits, seat, message, bot=bot, token=token)
    if isinstance(accepted, Applied):
        return accepted
    state, fields = accepted
    if state.finished:
        if not ending:
            _durable()
        _record(table, state, facts)
        fields.append("status")
    _write(table, fields)  # no model signals are listened to on TableHand
    move = (seat, split_message(message)[0])
    if notify:
        notify_table(table.pk, table.version, table.bots, state=state, move=move)
        return Applied(table.pk, table.version, finished=state.finished)
    return Applied(table.pk, table.version, finished=state.finished, state=state, bots=tuple(table.bots or ()),
                   move=move)


def psycopg_client_cursor(conn: Any) -> Any:
    import psycopg

    return psycopg.AsyncClientCursor(conn)


class Unconfirmed(Exception):
    """A move's write was sent and its outcome is unknown (the connection broke before the
    answer). A move with a client key can be sent again safely (a committed one is found as a
    duplicate); either way every socket of the table must be shown what it holds now."""


class _EndsTheHand(Exception):
    """A move on the loop that would end the hand: rolled back, applied in a thread instead."""


async def apply_on_loop(table_id: int, seat: int, message: dict[str, Any], *, player_id: int,
                        token: str | None) -> Applied | None:
    """PostgreSQL, from a socket's event loop: ``apply_action(..., notify=False)`` through one of
    the loop's own connections (``_LoopReader``), the same statements and checks in the same
    kind of transaction (the table's row locked from the read to the commit), without a trip to
    an apply thread and back after each statement. None when it is not applied here, and
    nothing was written: the caller applies it in a thread (``apply_action``). That is the
    case while the loop's connections rest after a failure, and for a move that ends the hand
    unforeseen (this process did not hold the version it was made on, so its row was read
    without what recording the result needs). The move that ends the hand, foreseen, records
    its result here too: in one statement when the process also holds the table's facts
    (``_move_from_held_state``), else in two round trips (``_result_sql``): its row read with
    what the result needs and the commit made durable, then the result, its scores and the
    table written with the COMMIT. The drive's screens are told after it (``announce``).
    SQLite: ``_apply_on_loop_sqlite``."""
    if connection.vendor == "sqlite":
        return _apply_on_loop_sqlite(table_id, seat, message, player_id=player_id, token=token)
    if connection.vendor != "postgresql" or not _LoopReader.ready():
        return None
    split_message(message)
    ending = False  # known to end the hand: read with what its result needs, and durably
    try:
        unchanged = _move_from_held_state(table_id, seat, message, player_id, token)
    except _EndsTheHand:  # known from the state this process holds
        unchanged, ending = None, True
    except Exception:  # nothing written: the thread decides, with its own checks
        log.warning("table %s: a move could not be made on the held state; applying in a thread", table_id,
                    exc_info=True)
        return None
    try:
        pool, conn = await _LoopReader.acquire()
    except Exception:
        log.warning("table %s: no connection on the event loop; applying in a thread", table_id, exc_info=True)
        return None
    committing = False  # a write (and its commit) is on its way: it may have happened
    recorded: TableHand | None = None  # the table whose result this transaction records
    try:
        cursor = psycopg_client_cursor(conn)
        if unchanged is not None:  # one round trip, if the table is still as this process holds it
            sql, params, state, recorded = unchanged
            committing = True  # one statement commits by itself
            try:
                await cursor.execute(sql, params)
                row = await cursor.fetchone()
            except Exception as exc:  # a single statement commits by itself: it may have
                raise Unconfirmed(f"table {table_id}: the move's statement failed: {exc}") from exc
            if row is not None:
                pool.release(conn)
                return Applied(table_id, state.version, finished=state.finished, state=state,
                               bots=tuple(json.loads(row[0] or "[]") or ()), move=(seat, split_message(message)[0]),
                               recorded=recorded)
            # Nothing matched, nothing written: the locked path decides (reading what a result
            # needs with the row, if this move ends the hand).
            committing, ending, recorded = False, state.finished, None
        # Two round trips: BEGIN with the locked read, then the write with the COMMIT, each one
        # simple query of two statements (client-side binding: psycopg quotes the values).
        async with asyncio.timeout(_LoopReader.TIMEOUT):  # the wait for the row's lock included
            await cursor.execute("BEGIN; " + _locked_sql(token is not None, ending),
                                 _locked_params(table_id, seat, player_id, token))
            cursor.nextset()
            row = await cursor.fetchone()
        try:
            table, sender_sits = _table_of_row(row, player_id)
            accepted = _accept(table, sender_sits, seat, message, bot=False, token=token)
            if not isinstance(accepted, Applied) and accepted[0].finished:
                facts = _facts_of_row(row)
                if facts is None:  # not known to end the hand before the read: a thread records it
                    raise _EndsTheHand
                ctes, result_values = _result_sql(table, accepted[0], facts)
                result_sql = f"WITH {', '.join(ctes)} SELECT count(*) FROM r"
                recorded = table
        except (DigitalError, _EndsTheHand):
            await cursor.execute("ROLLBACK")
            raise
        committing = True  # from here the commit may have happened: no second try in a thread
        # No time limit here, as in a thread: a commit cut short may still happen.
        if isinstance(accepted, Applied):  # a duplicate: nothing to write
            await cursor.execute("COMMIT")
        else:
            state, fields = accepted
            if recorded is not None:  # the result and its scores, then the table, in one statement each
                table.status = TableHand.Status.CONFIRMED
                fields.append("status")
            sql, values = _update(table, fields)
            if recorded is not None:
                sql, values = f"{result_sql}; {sql}", [*result_values, *values]
            await cursor.execute(sql + "; COMMIT", values)
            accepted = Applied(table.pk, table.version, finished=state.finished, state=state,
                               bots=tuple(table.bots or ()), move=(seat, split_message(message)[0]),
                               recorded=recorded)
    except (DigitalError, _EndsTheHand) as exc:  # rolled back; the connection is sound
        pool.release(conn)
        if isinstance(exc, DigitalError):
            raise
        return None
    except (asyncio.CancelledError, Unconfirmed) as exc:  # the task is going (a disconnect, a shutdown); or see above
        pool.release(conn, broken=True)  # an open transaction ends with its connection
        if committing and isinstance(exc, asyncio.CancelledError):
            # It may have committed, and nobody will say so (an Unconfirmed goes back to the
            # caller, which does): every socket of the table, in every process, and its bots are
            # told the version it holds now, and the drive's screens look again.
            layer.start_task(in_apply_thread(resend_current, table_id))
            if recorded is not None:
                layer.start_task(in_apply_thread(_results_told, recorded))
        raise
    except Exception:
        pool.release(conn, broken=True)
        if committing:
            if recorded is not None:  # it may have committed: the drive's screens look again
                layer.start_task(in_apply_thread(_results_told, recorded))
            raise  # the caller has every socket of the table shown what it holds now (``resend_current``)
        log.warning("table %s: a move on the event loop failed before its commit; applying in a thread", table_id,
                    exc_info=True)
        return None
    pool.release(conn)
    return accepted


def _move_from_held_state(table_id: int, seat: int, message: dict[str, Any], player_id: int,
                          token: str | None) -> tuple[str, list[Any], Any, TableHand | None] | None:
    """The common case of a phone's move, in one statement: the phone acts on the version it was
    shown, which this process holds (it applied or read it), so the move is made on a copy of
    that state and written by one UPDATE that matches only while the table is still at that
    version (the row locked for the statement, as any UPDATE), still playing in a hand in play,
    with the sender in the seat and the client key new. Two such moves can never interleave:
    the second finds another version and matches nothing. When nothing matches, or anything is
    unusual (the engine refuses, a seat claimed), the locked path decides, with its exact
    refusals. Returns (sql, parameters, the moved state, None), or None.

    The move that ends the hand, on the state the phone was shown, is made the same way when
    this process also holds what recording its result needs (``held_facts``, read with the
    table's facts for its sockets): the one statement also sets the table's status, inserts
    the result and its scores, matches only while those facts still hold (the drive's game and
    house rules, who sits where), and makes its commit wait for the disk, as every result's
    does. It returns the recorded table as the fourth item. Without those facts it raises
    ``_EndsTheHand``: the locked path reads them with the row."""
    action, version, key, claimed = split_message(message)
    if claimed is not None and claimed != seat:
        return None
    state = _moved_copy(table_id, version, seat, action)
    if state is None:
        return None
    facts = held_facts(table_id) if state.finished else None
    if state.finished and facts is None:
        raise _EndsTheHand
    field = TableHand._meta.get_field
    values = [field("state").get_db_prep_save(state.to_json(), connection), state.version,
              field("updated_at").get_db_prep_save(timezone.now(), connection)]
    if facts is not None:
        values.append(TableHand.Status.CONFIRMED)
    params = [table_id, version, TableHand.PlayMode.DIGITAL, TableHand.Status.PLAYING, Hand.Status.PLAYING,
              seat, player_id, *([token] if token is not None else []), field("bots").get_db_prep_save([seat], connection)]
    if key is not None:
        values.append(field("client_keys").get_db_prep_save([[key, state.version, seat, action_digest(action)]],
                                                            connection))
        # (The key sent by any seat: the locked path then decides, matching it per seat.)
        params.append(field("client_keys").get_db_prep_save([[key]], connection))
    sql = _held_update_sql(connection.vendor, token is not None, key is not None, facts is not None)
    if facts is None:
        return sql, [*values, *params], state, None
    recording = facts.recording
    as_json = Hand._meta.get_field("drive").related_model._meta.get_field("house_rules").get_db_prep_save
    params += [facts.hand_id, recording.game, as_json(recording.house_rules, connection),
               as_json(recording.player_ids, connection)]  # (a JSON list, compared with the seats' jsonb_agg)
    table = facts.table(table_id)
    ctes, result_values = _result_sql(table, state, recording, after="moved")
    sql = (f"WITH moved AS ({sql}), {', '.join(ctes)} "
           "SELECT moved.bots, set_config('synchronous_commit', 'on', true) FROM moved")
    return sql, [*values, *params, *result_values], state, table


@functools.lru_cache(maxsize=16)
def _held_update_sql(vendor: str, with_token: bool, with_key: bool, ending: bool = False) -> str:
    """``_move_from_held_state``'s statement (PostgreSQL): parameters state, version, updated_at,
    [status,] [the new key entry,] then table, version seen, play mode, status, hand status,
    seat, player, [token,] [the key to look for,] [hand, game, house rules, players by seat]
    (``ending``: the move ends the hand, and its result is recorded from those facts)."""
    n, q = _sql_names(), connection.ops.quote_name
    column = lambda name: q(TableHand._meta.get_field(name).column)  # noqa: E731
    sets = [f"{column('state')} = %s", f"{column('version')} = %s", f"{column('updated_at')} = %s"]
    if ending:
        sets.append(f"{column('status')} = %s")
    where = ["t.id = %s", f"t.{column('version')} = %s", f"t.{column('play_mode')} = %s",
             f"t.{column('status')} = %s",
             f"EXISTS (SELECT 1 FROM {n['h']} h WHERE h.id = t.{column('hand')} AND h.status = %s)",
             f"EXISTS ({_sits_sql(with_token)})",
             f"NOT ({_as_array('t.' + column('bots'))} @> %s)"]  # no bot plays the seat for its player
    if with_key:
        keys = column("client_keys")
        known = _as_array(f"t.{keys}")
        sets.append(f"{keys} = (SELECT jsonb_agg(e ORDER BY n) FROM (SELECT e, n FROM jsonb_array_elements("
                    f"{known} || %s) WITH ORDINALITY AS x(e, n) ORDER BY n DESC LIMIT {KEEP_CLIENT_KEYS}) AS kept)")
        where.append(f"NOT ({known} @> %s)")
    if ending:
        where += [f"t.{column('hand')} = %s",
                  f"EXISTS (SELECT 1 FROM {n['h']} h INNER JOIN {n['d']} d ON d.id = h.drive_id "
                  "WHERE h.id = t.hand_id AND d.game = %s AND d.house_rules = %s)",
                  f"(SELECT jsonb_agg(s.player_id ORDER BY s.position) FROM {n['seat']} s WHERE s.table_id = t.id) = %s"]
    return (f"UPDATE {n['t']} AS t SET {', '.join(sets)} WHERE {' AND '.join(where)} "
            f"RETURNING t.{column('bots')}::text AS bots")


def _as_array(column: str) -> str:
    """A JSON column as a JSON array (an empty one for NULL or anything else), PostgreSQL."""
    return f"(CASE WHEN jsonb_typeof({column}) = 'array' THEN {column} ELSE '[]'::jsonb END)"


def _apply_on_loop_sqlite(table_id: int, seat: int, message: dict[str, Any], *, player_id: int,
                          token: str | None) -> Applied | None:
    """SQLite: the move on the event loop itself, through the loop's own connection to the
    database file (``_LoopSqlite``), in one IMMEDIATE transaction: SQLite works in this process
    (a move is a fraction of a millisecond of it), so the trip to the apply thread and back was
    most of a move's time. Never waits: a database that another writer holds (a result being
    entered) refuses at once and the move goes to the apply thread, which waits its turn; so
    does the move that ends the hand. None then, with nothing written."""
    conn = _LoopSqlite.connection()
    if conn is None:
        return None
    split_message(message)
    try:
        conn.execute("BEGIN IMMEDIATE")
    except sqlite3.OperationalError as exc:  # another writer holds the database: the thread waits for it
        if "locked" not in str(exc) and "busy" not in str(exc):
            log.warning("table %s: SQLite refused a transaction on the event loop: %s", table_id, exc)
            _LoopSqlite.drop(conn)
        return None
    committing = False
    try:
        row = conn.execute(_qmarks(_locked_sql(token is not None)),
                           _locked_params(table_id, seat, player_id, token)).fetchone()
        table, sender_sits = _table_of_row(row, player_id)
        accepted = _accept(table, sender_sits, seat, message, bot=False, token=token)
        if not isinstance(accepted, Applied):
            state, fields = accepted
            if state.finished:
                raise _EndsTheHand
            sql, values = _update(table, fields)
            conn.execute(_qmarks(sql), values)
            accepted = Applied(table.pk, table.version, state=state, bots=tuple(table.bots or ()),
                               move=(seat, split_message(message)[0]))
        committing = True
        conn.execute("COMMIT")
    except BaseException as exc:
        try:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
        except Exception:  # a connection that cannot roll back would hold the database's lock
            _LoopSqlite.drop(conn)
        if isinstance(exc, DigitalError) or (committing and not isinstance(exc, _EndsTheHand)):
            raise
        if not isinstance(exc, _EndsTheHand):
            log.warning("table %s: a move on the event loop failed; applying in a thread", table_id, exc_info=True)
        return None
    _LoopSqlite.written()
    return accepted


@functools.lru_cache(maxsize=64)
def _qmarks(sql: str) -> str:
    """Django's ``%s`` placeholders as the sqlite3 module's (the statements hold no other ``%``)."""
    return sql.replace("%s", "?")


class _LoopSqlite:
    """SQLite: one connection per event loop to the database file, for its sockets' moves. It
    never waits for a lock (``busy_timeout`` 0) and never checkpoints the write-ahead log
    itself (a checkpoint writes the database file and waits for the disk): after every
    ``CHECKPOINT_EVERY`` moves an apply thread asks for a passive one. A database that is not
    a file (tests' in-memory ones) has none: its moves go to the thread."""

    CHECKPOINT_EVERY = 500
    _by_loop: dict[int, tuple[asyncio.AbstractEventLoop, sqlite3.Connection]] = {}
    _moves = 0

    @classmethod
    def connection(cls) -> sqlite3.Connection | None:
        loop = asyncio.get_running_loop()
        held = cls._by_loop.get(id(loop))
        if held is not None and held[0] is loop:
            if not held[1].in_transaction:  # (between moves it never is; if it were, it would hold the lock)
                return held[1]
            cls.drop(held[1])
        name = str(connection.settings_dict.get("NAME") or "")
        if not name or name == ":memory:" or name.startswith("file:") or "mode=memory" in name:
            return None
        conn = sqlite3.connect(name, isolation_level=None, check_same_thread=False, timeout=0)
        conn.execute("PRAGMA busy_timeout = 0")
        conn.execute("PRAGMA synchronous = NORMAL")  # as the server's other connections (WAL)
        conn.execute("PRAGMA wal_autocheckpoint = 0")
        cls._by_loop[id(loop)] = (loop, conn)
        return conn

    @classmethod
    def written(cls) -> None:
        cls._moves += 1
        if cls._moves % cls.CHECKPOINT_EVERY == 0:
            layer.start_task(in_apply_thread(_checkpoint))

    @classmethod
    def drop(cls, conn: sqlite3.Connection) -> None:
        """Close ``conn`` (its transaction, if any, rolls back); the next move opens another."""
        for key, (_loop, held) in list(cls._by_loop.items()):
            if held is conn:
                cls._by_loop.pop(key, None)
        try:
            conn.close()
        except Exception:
            pass

    @classmethod
    def close_all(cls) -> None:
        for _loop, conn in list(cls._by_loop.values()):
            cls.drop(conn)


def _checkpoint() -> None:
    with connection.cursor() as cursor:
        cursor.execute("PRAGMA wal_checkpoint(PASSIVE)")


def _same_basis(state: Any, seat: int, basis: Any) -> bool:
    return isinstance(basis, str) and not state.finished and seat_basis(state.view(seat)) == basis


def _result_facts(table: TableHand, state, facts: _RecordingFacts | None = None) -> dict[str, Any]:
    """What the engine's scoring of the hand records (``scoring.result_rows``): confirmed, with no
    entry step. ``facts``: the players and the game, read with the table's row (else read here)."""
    if facts is not None:
        player_model = Seat._meta.get_field("player").related_model
        players = [player_model(pk=pk) for pk in facts.player_ids]  # the result and scores need their keys only
        game = get_game(facts.game, facts.house_rules)
    else:
        players = [s.player for s in table.seats.select_related("player").order_by("position")]
        game = None
    return {"table": table, "players": players, "hand_number": table.hand.number, "outcome": state.outcome(),
            "summary": summary_of(table, state, game), "source": Result.Source.DIGITAL, "confirmed": True}


def _record(table: TableHand, state, facts: _RecordingFacts | None = None) -> Result:
    """The engine scored the hand: its result enters the drive at once, confirmed (no entry step)."""
    result = scoring.record_result(**_result_facts(table, state, facts))
    table.status = TableHand.Status.CONFIRMED
    _tell_table_listeners(table)
    return result


def _tell_table_listeners(table: TableHand) -> None:
    """The drive's screens: the result's own message, then a full update. Inside the transaction
    that records the result (their work waits for its commit), or just after its commit in an
    apply thread (the last move on PostgreSQL's event loop: ``_results_told``)."""
    for listener in table_listeners:
        listener(table)


def _results_told(table: TableHand) -> None:
    """In an apply thread, once the last move's transaction on the event loop has committed:
    its result is told as one recorded in a thread would be (outside a transaction, the
    listeners' work runs at once)."""
    try:
        _tell_table_listeners(table)
    except Exception:  # committed: the drive's next full update shows the result all the same
        log.exception("table %s: the drive's screens were not told of its result", table.pk)


def _insert(obj: Any, skip: tuple[str, ...] = ()) -> tuple[list[str], list[Any]]:
    """The columns and values of an unsaved model instance, prepared as the ORM prepares an
    INSERT (``pre_save`` fills ``auto_now_add``), without its primary key and ``skip``."""
    q = connection.ops.quote_name
    fields = [f for f in type(obj)._meta.local_concrete_fields if not f.primary_key and f.name not in skip]
    return [q(f.column) for f in fields], [f.get_db_prep_save(f.pre_save(obj, True), connection) for f in fields]


def _result_sql(table: TableHand, state, facts: _RecordingFacts, after: str | None = None
                ) -> tuple[list[str], list[Any]]:
    """PostgreSQL: the common table expressions of one statement that insert the hand's result
    and its scores (``result_rows``, as ``record_result`` saves them), the scores pointing at
    the new result's id, and their parameters. ``after``: the name of an expression before
    them in the statement (the moved table); they insert nothing when it holds no row."""
    from scoring.models import Score

    result, scores = scoring.result_rows(**_result_facts(table, state, facts))
    q = connection.ops.quote_name
    columns, values = _insert(result)
    # Rows from a SELECT list, not VALUES: a value sent as text goes into its column as a literal would.
    ctes = [f"r AS (INSERT INTO {q(Result._meta.db_table)} ({', '.join(columns)}) "
            f"SELECT {', '.join(['%s'] * len(values))}{f' FROM {after}' if after else ''} RETURNING id)"]
    result_column = q(Score._meta.get_field("result").column)
    for number, score in enumerate(scores):
        score_columns, score_values = _insert(score, skip=("result",))
        ctes.append(f"s{number} AS (INSERT INTO {q(Score._meta.db_table)} ({result_column}, {', '.join(score_columns)}) "
                    f"SELECT r.id, {', '.join(['%s'] * len(score_values))} FROM r)")
        values += score_values
    return ctes, values


def summary_of(table: TableHand, state, game: Any = None) -> dict[str, Any]:
    """The finished hand in the game's entry format (so a correction form starts from it), with
    the engine's own points alongside under ``digital``."""
    summary = (game or game_for(table.hand.drive)).hand_summary(state)
    summary["digital"] = {"points": list(state.points or []), "ended_by": state.ended_by, "version": state.version}
    return summary


# --- the bell -------------------------------------------------------------------------------------


@transaction.atomic
def stop_playing_tables(drive, hand: Hand) -> list[TableHand]:
    """The organiser closes the hand: every digital table still playing ends without a
    declaration (rules: "A hand that ends without a declaration"), scored by the engine and
    recorded, so the movement that follows sees its result. Tables never dealt are left alone
    (the close records them as not played)."""
    stopped = []
    tables = hand.tables.select_for_update().filter(
        play_mode=TableHand.PlayMode.DIGITAL, status=TableHand.Status.PLAYING, state__isnull=False
    )
    for table in tables.select_related("hand").order_by("number"):
        state = load_state(table)
        if state.finished:  # finished but not recorded cannot happen; be safe anyway
            continue
        state.stop()
        table.state = state.to_json()
        table.version = state.version
        _record(table, state)
        table.save(update_fields=["state", "version", "status", "updated_at"])
        notify_table(table.pk, table.version, table.bots, state=state)
        stopped.append(table)
    return stopped


# --- bots at the table ----------------------------------------------------------------------------

MAX_SEATS = 10


@transaction.atomic
def set_stand_in(drive, table_id: int, seat: Any, playing: bool) -> str:
    """The organiser has a bot play a seat of a hand in play on the phones for its player (who
    had to leave, or whose phone died), or gives the seat back (``playing`` False). The player
    keeps the seat and its score: the bot only makes the moves, as any bot, and the player's
    phone is refused meanwhile. It lasts until given back or the hand ends (the next hand
    seats people, not bots). Returns the player's name. Refused: the table is not playing on
    the phones, no such seat, or the seat's player is a bot itself."""
    try:
        table = TableHand.objects.select_for_update(of=("self",)).select_related("hand").get(
            pk=table_id, hand__drive=drive)
    except TableHand.DoesNotExist:
        raise DigitalError("That table is not part of this drive.") from None
    if not table.on_the_phones or table.hand.status != Hand.Status.PLAYING:
        raise DigitalError(f"Table {table.number} is not playing a hand on the phones now.")
    found = table.seats.select_related("player").filter(position=seat).first() if type(seat) is int else None
    if found is None:
        raise DigitalError(f"Table {table.number} has no such seat.")
    if BotPlayer.objects.filter(player_id=found.player_id).exists():
        raise DigitalError(f"{isolate(found.player.name)} is a bot: the server always plays that seat.")
    if not playing and not found.player.active:
        raise DigitalError(f"{isolate(found.player.name)} has left the drive: "
                           "have them rejoin first, then give the seat back.")
    bots = set(table.bots or [])
    if (seat in bots) == playing:
        return found.player.name  # already so (a second click): nothing to do
    table.bots = sorted(bots | {seat} if playing else bots - {seat})
    table.save(update_fields=["bots", "updated_at"])
    notify_table(table.pk, table.version, [seat] if playing else [])  # the bot looks at the table at once
    # Who plays which seat changed, not the hand's version: every socket of the table reads
    # the seats again and sends its view (the player's own phone then says a bot plays it).
    message = seats_message(table.pk)
    transaction.on_commit(lambda: layer.send(table_group(table.pk), message), robust=True)
    _drive_changed(drive.pk)
    return found.player.name


@transaction.atomic
def add_bot(drive, table_id: int):
    """Seat a new bot ("Bot 1", "Bot 2"…) at a digital table of the seating shown between hands.

    Refused: the hand has started, the table plays with cards, or the table is full (10).
    A bot is a player of the drive (it scores and moves like anyone) marked by ``BotPlayer``.
    """
    from drive.models import Drive, Player

    drive = Drive.objects.select_for_update().get(pk=drive.pk)
    if drive.is_finished:
        raise DigitalError("This drive has finished.")
    try:
        table = TableHand.objects.select_for_update().select_related("hand").get(pk=table_id, hand__drive=drive)
    except TableHand.DoesNotExist:
        raise DigitalError("That table is not part of this drive.") from None
    if table.hand.status != Hand.Status.SEATING or drive.hands.filter(number__gt=table.hand.number).exists():
        raise DigitalError("Bots can join a table only between hands, before the next hand starts.")
    if table.play_mode != TableHand.PlayMode.DIGITAL:
        raise DigitalError(f"Table {table.number} plays with cards: switch it to the phones first.")
    seats = table.seats.count()
    if seats >= MAX_SEATS:
        raise DigitalError(f"Table {table.number} is full.")
    from drive.services import MAX_PLAYERS, name_key

    taken = {name_key(n) for n in drive.players.values_list("name", flat=True)}
    if len(taken) >= MAX_PLAYERS:
        raise DigitalError(f"This drive is full: it holds at most {MAX_PLAYERS} players, bots included.")
    number = 1
    while f"bot {number}" in taken:
        number += 1
    player = Player.objects.create(drive=drive, name=f"Bot {number}")
    BotPlayer.objects.create(player=player)
    Seat.objects.create(table=table, hand=table.hand, player=player, position=seats)
    table.bots = sorted({*(table.bots or []), seats})
    table.save(update_fields=["bots", "updated_at"])
    _drive_changed(drive.pk)
    return player
