"""Bots play from the server, at a human pace, through the same locked path as the phones.

After every accepted action, and when a hand is dealt, ``schedule_table``
starts one asyncio task per bot seat of that table in this process's event loop (the ASGI
server's loop: remembered when a socket connects, or taken from asgiref's record of it when the
caller is a sync view running under the server). The task waits ``bot_delay()`` seconds, asks
the engine's greedy bot for the seat's action on the stored state and applies it with
``digital.apply_action`` (row lock, version check, client key ``bot-<seat>-<version>``), then
goes on while the seat has something to do. A stale refusal (a human moved first) just means
"look again".

Survival: the tasks live in the server process, not in a socket, so bots keep playing with no
phone connected. They do not survive a restart of the server: the hand itself does (it is in
the database), and its bots resume as soon as any socket of that table (a phone or the
organiser's view) connects or looks again (a sync), any action is applied there, or the
organiser's dashboard connects (``resume_drive``: every table of the drive). A move
that fails with an error (the database locked or away for a moment) is tried again after the
delay, as a refused one is; after ``MAX_REFUSED`` in a row the bot waits for one of those. With several server processes the
bots run in the process that applied the last action; a move scheduled twice is applied once
(same client key; and the version check refuses the second).

Where no server loop is known (a management command, a sync test) a small daemon thread with
its own loop runs the bots.

The answer clock runs on the same loop: a decision the game times (``Game.awaited``: a seat asked
to answer another's move, say) has a deadline in the
hand's state, set with the move that asked. After each move the process that applied it sets
one timer per table for that deadline (``table_moved``; a move that leaves none cancels it);
when it fires, ``clock_step`` applies the game's default answer through ``apply_action``
(``clock=True``, which checks the stored deadline under the row lock, so a timer that outlived
its decision, or fired in a second process too, changes nothing). After a restart the timer is
set again where the bots resume: when a socket of the table connects or looks again, or the
organiser's dashboard connects.
"""

from __future__ import annotations

import asyncio
import contextvars
import logging
import os
import random
import threading
import time
from typing import Any

from asgiref.sync import SyncToAsync
from django.conf import settings

from common import layer
from common.db import database_sync_to_async, write_sync_to_async
from games import get_game
from tables import digital
from tables.frames import bot_key, clock_key
from tables.models import TableHand

log = logging.getLogger(__name__)

DEFAULT_DELAY = (0.8, 2.0)
MAX_REFUSED = 50  # refusals in a row before a bot gives up until the table moves again

_worker: asyncio.AbstractEventLoop | None = None
_worker_lock = threading.Lock()
_pending: set[tuple[int, int]] = set()  # (table, seat) with a task running in this process
_again: set[tuple[int, int]] = set()  # …that must look again: the table moved while it worked
_timers: dict[int, tuple[float, asyncio.TimerHandle]] = {}  # table -> (deadline, its timer), on the loop


def bot_delay() -> tuple[float, float]:
    """Seconds a bot waits before each move, (shortest, longest): settings.BOT_DELAY_SECONDS."""
    value: Any = getattr(settings, "BOT_DELAY_SECONDS", DEFAULT_DELAY)
    if isinstance(value, (int, float)):
        return float(value), float(value)
    lo, hi = value
    return float(lo), float(hi)


# --- which loop runs the bots ------------------------------------------------------------------


def _usable(loop: asyncio.AbstractEventLoop | None) -> bool:
    return loop is not None and not loop.is_closed() and loop.is_running()


def _target_loop() -> asyncio.AbstractEventLoop:
    try:
        running = asyncio.get_running_loop()
    except RuntimeError:
        running = None
    if running is not None and running is not _worker:
        return running
    server = layer.server_loop()
    if server is not None:
        return server
    if getattr(SyncToAsync.threadlocal, "main_event_loop_pid", None) == os.getpid():
        main = getattr(SyncToAsync.threadlocal, "main_event_loop", None)
        if _usable(main):
            return main
    return _worker_loop()


def _worker_loop() -> asyncio.AbstractEventLoop:
    global _worker
    with _worker_lock:
        if not _usable(_worker):
            loop = asyncio.new_event_loop()
            started = threading.Event()
            loop.call_soon(started.set)
            threading.Thread(target=loop.run_forever, name="bots", daemon=True).start()
            started.wait(5)
            _worker = loop
        return _worker  # type: ignore[return-value]


# --- scheduling ----------------------------------------------------------------------------------


def schedule_table(table_id: int, seats: list[int] | None = None) -> None:
    """Let the bots of a table look at it again (after an action, the deal, or a socket joining).

    ``seats``: the table's bot seats if the caller knows them; else they are read, with the
    answer clock's deadline, when the task runs. Safe from any thread."""
    loop = _target_loop()
    # A fresh context: the caller's (e.g. asgiref's "inside sync_to_async" marker) must not leak
    # into the bots' tasks, which would then refuse to run their own database calls.
    loop.call_soon_threadsafe(_start, table_id, seats, context=contextvars.Context())


def resume_drive(drive_id: int) -> None:
    """The bots and answer clocks of every table of the drive playing on the phones look again:
    the organiser's dashboard connected. After a restart a table whose seats bots play for
    people who left, or whose timed answer waits for a phone that is away, picks up then, not
    only once one of its own pages connects. Safe from any thread."""
    _target_loop().call_soon_threadsafe(lambda: asyncio.ensure_future(_resume_drive(drive_id)),
                                        context=contextvars.Context())


async def _resume_drive(drive_id: int) -> None:
    try:
        tables = await database_sync_to_async(lambda: list(TableHand.objects.filter(
            hand__drive_id=drive_id, status=TableHand.Status.PLAYING, state__isnull=False).values_list("pk", flat=True)))()
    except Exception:
        log.exception("tables of drive %s not read", drive_id)
        return
    for table_id in tables:
        await _read_then_start(table_id)


def table_moved(table_id: int, seats: list[int], deadline: float | None = None) -> None:
    """``digital.moved_listeners``' entry (``tables.apps``): the table's bots look at it (a
    table with none: nothing to wake the loop for), and its answer clock is set to ``deadline``
    (None: no answer is timed now)."""
    if seats:
        schedule_table(table_id, seats)
    if deadline is not None or table_id in _timers:
        _target_loop().call_soon_threadsafe(_set_clock, table_id, deadline, context=contextvars.Context())


def _set_clock(table_id: int, deadline: float | None) -> None:
    """On the loop: one timer per table, for its current deadline."""
    held = _timers.get(table_id)
    if held is not None:
        if held[0] == deadline:
            return
        held[1].cancel()
        del _timers[table_id]
    if deadline is not None:
        loop = asyncio.get_running_loop()
        handle = loop.call_later(max(0.0, deadline - time.time()), _clock_fired, table_id, deadline)
        _timers[table_id] = (deadline, handle)


def _clock_fired(table_id: int, deadline: float) -> None:
    if _timers.get(table_id, (None,))[0] == deadline:
        del _timers[table_id]
    asyncio.ensure_future(_time_out(table_id))


async def _time_out(table_id: int) -> None:
    try:
        await write_sync_to_async(clock_step)(table_id)
    except Exception:  # the database away for a moment: the next look at the table (a socket's) sets it again
        log.warning("table %s: a timed-out answer was not applied", table_id, exc_info=True)


def clock_step(table_id: int) -> str:
    """The answer clock of a table: the game's default answer for the seat whose time has run
    out, if it has: "applied", "early" (its time has not run out), "idle" (nothing is timed)."""
    table = TableHand.objects.filter(pk=table_id).only("state", "version", "status").order_by().first()
    if table is None or table.state is None or table.status != TableHand.Status.PLAYING:
        return "idle"
    state = digital.load_state(table)
    awaited = get_game(table.state["game"]).awaited(state)
    deadline = getattr(state, "deadline", None)
    if awaited is None or deadline is None:
        return "idle"
    if time.time() < deadline:
        return "early"
    message = {**awaited.action, "version": table.version, "key": clock_key(table.version)}
    try:
        applied = digital.apply_action(table_id, awaited.seat, message, clock=True)
    except digital.DigitalError as exc:  # answered meanwhile, or another process's clock was first
        log.debug("table %s: clock: %s", table_id, exc)
        return "idle"
    return "idle" if applied.duplicate else "applied"


def playing(table_id: int) -> bool:
    """Whether a bot of this table has a task in this process (tests: a bot that gave up has
    none, until the table moves or a socket of it looks again)."""
    return any(table == table_id for table, _seat in _pending)


def playing_seats() -> set[tuple[int, int]]:
    """The (table, seat) of every bot with a task in this process (tests wait for an earlier
    test's to end)."""
    return set(_pending)


def _start(table_id: int, seats: list[int] | None) -> None:
    if seats is None:
        asyncio.ensure_future(_read_then_start(table_id))
        return
    for seat in seats:
        key = (table_id, seat)
        if key in _pending:
            _again.add(key)
        else:
            _pending.add(key)
            asyncio.ensure_future(_play_seat(table_id, seat))


async def _read_then_start(table_id: int) -> None:
    try:
        seats, deadline = await database_sync_to_async(_bot_seats)(table_id)
    except Exception:
        log.exception("bots of table %s not read", table_id)
        return
    _start(table_id, seats)
    if deadline is not None:
        _set_clock(table_id, deadline)


def _bot_seats(table_id: int) -> tuple[list[int], float | None]:
    """A playing table's bot seats and its answer deadline (None: none)."""
    table = (TableHand.objects.filter(pk=table_id, status=TableHand.Status.PLAYING)
             .only("bots", "state").order_by().first())
    if table is None or table.state is None:
        return [], None
    deadline = getattr(digital.load_state(table), "deadline", None)
    return list(table.bots or []), deadline


async def _play_seat(table_id: int, seat: int) -> None:
    key = (table_id, seat)
    refused = 0
    try:
        while refused < MAX_REFUSED:
            lo, hi = bot_delay()
            await asyncio.sleep(random.uniform(lo, hi) if hi > 0 else 0)
            _again.discard(key)
            try:
                outcome = await write_sync_to_async(bot_step)(table_id, seat)
            except Exception:  # an error of the moment (the database locked or away): try again, as
                # after a refusal; a task that ended here left a table waiting for this bot stuck
                log.warning("bot at table %s seat %s: its move failed; trying again", table_id, seat, exc_info=True)
                outcome = "stale"
            if outcome == "idle" and key not in _again:
                break
            refused = refused + 1 if outcome == "stale" else 0
    except Exception:
        log.exception("bot at table %s seat %s stopped", table_id, seat)
    finally:
        _pending.discard(key)
        _again.discard(key)


def bot_step(table_id: int, seat: int) -> str:
    """One move of a bot seat, if it has one: "applied", "stale" (the table moved first) or "idle"."""
    table = TableHand.objects.filter(pk=table_id).only("state", "version", "status", "bots").order_by().first()
    if table is None or table.state is None or table.status != TableHand.Status.PLAYING or seat not in table.bots:
        return "idle"
    state = digital.load_state(table)
    action = get_game(table.state["game"]).bot_action(state, seat, random.Random())
    if action is None:
        return "idle"
    message = {**action, "version": table.version, "key": bot_key(seat, table.version)}
    try:
        applied = digital.apply_action(table_id, seat, message, bot=True)
    except digital.DigitalError as exc:  # (also its key already used with another move: another process's bot)
        log.debug("bot at table %s seat %s: %s", table_id, seat, exc)
        return "stale"
    # A repeat of its key moved nothing: counted as a refusal, so a bot never loops on one.
    return "stale" if applied.duplicate else "applied"
