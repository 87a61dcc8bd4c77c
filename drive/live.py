"""What the live screens receive when a drive changes: built once per change, after commit.

``drive_changed(drive_id)`` is called by every service that changes what the room sees. Within
one transaction it registers a single ``on_commit`` callback per drive; after the commit a
worker thread reads the committed state once (``selectors.drive_view``), renders the board's,
the dashboard's and every phone's fragments once, and sends one message to each group (group
names: ``drive.broadcast``). Sockets only forward what they receive (a phone forwards its own
fragment).

Changes that arrive while a drive's update is being built are coalesced: one more update runs
when the current one ends, and it reflects all of them. So a burst of results at the end of a
hand costs a few renders, not one per result, and no request waits for rendering.
"""

from __future__ import annotations

import logging
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from django.conf import settings
from django.db import connection, transaction
from django.template.loader import get_template

from drive import broadcast, pages, render, selectors
from drive.models import Drive
from tables.models import Hand, TableHand

INSTRUCTION_TEMPLATE = "phone/partials/instruction.html"  # inside the phone's, and sent alone at a close


def drive_changed(drive_id: int, *, gather: bool = False) -> None:
    """Schedule one live update of this drive for when the current transaction commits.

    ``gather``: the change has already been shown by its own message (``table_changed``), so
    the full update may wait ``LIVE_GATHER_SECONDS`` for the rest of a burst of results to
    commit and show them all in one build. Any other change cuts the wait short."""
    # One callback per drive per transaction. Django drops pending callbacks on rollback, so
    # looking at its own list never leaves a stale "already scheduled" mark behind.
    if connection.in_atomic_block:
        for entry in connection.run_on_commit:
            if getattr(entry[1], "live_drive_id", None) == drive_id:
                entry[1].live_gather = entry[1].live_gather and gather
                return

    def send() -> None:
        _schedule(drive_id, send.live_gather)

    send.live_drive_id = drive_id  # type: ignore[attr-defined]
    send.live_gather = gather  # type: ignore[attr-defined]
    transaction.on_commit(send)


def table_changed(table: Any, *, seated: list[int] | None = None, current: bool = False,
                  places: bool = True) -> None:
    """A table's result changed (entered, confirmed, disputed, corrected, recorded by the engine):
    the drive's full update as ``drive_changed``, and before it a small message to the board
    and the dashboard with what changed at this table (its status, the hand's progress, its
    players' totals, and when they changed everybody's place), which their pages apply at once.
    The full update that follows (built by the worker) replaces it, and pages ignore a message
    older than the update they show (``commit`` against the update's ``read``).

    ``places``: False when the change leaves every counted score as it was (a phone's entry or
    dispute: only a confirmed result counts), so nobody's total or place changes. Its message
    is then read inside the transaction, cheaply (the hand's statuses: no totals, no ranking),
    and sent the moment the transaction commits. Otherwise the places have
    changed, and the message, with everybody's place (``selectors.standings``, the one
    ranking), is read after the commit in the result-message thread (``_messages``): inside
    the transaction that read would hold the drive's lock, and SQLite's one writer, for every
    other result of a burst. Read later, it holds at least what committed.

    What the caller has already read, to spare the message its queries: ``seated``, the ids of
    the table's players; ``current``, True when the table's hand is the drive's latest."""
    drive_changed(table.hand.drive_id, gather=True)
    if places:
        _message_after_commit(table, seated=seated, current=current)
        return
    delta = result_deltas([(table, seated, current)], committed=False, places=False)[0]
    transaction.on_commit(lambda: send_result_delta(delta), robust=True)


def hand_moved(hand: Any) -> None:
    """A close drew the next hand's seating, inside its transaction: every seated player's
    movement instruction (``selectors.moves_into``, the phone fragment's own partial) is read
    now and goes to the phones the moment the transaction commits, each phone its own
    (``broadcast.send_instructions``), ahead of the full update, which needs the whole drive
    read and every fragment rendered, and replaces it."""
    template = get_template(INSTRUCTION_TEMPLATE)
    tables = list(hand.tables.order_by().prefetch_related("seats"))
    moves = selectors.moves_into(hand.drive, hand, tables)
    # Stamped as read, before the commit: the full update, read after it, is newer.
    message = {"type": "drive.instruction", "drive": hand.drive_id, "hand": hand.number, "stamp": _stamp(),
               "instructions": {str(pid): template.render({"move": move}) for pid, move in moves.items()}}
    transaction.on_commit(lambda: send_instructions(message), robust=True)


def hand_started(hand: Any) -> None:
    """The organiser started a hand: once it commits, the drive's game screens of digital tables
    are told (``broadcast.send_game_screens``), so one still showing the hand before looks again
    at once: its cards if its player's table is on the phones, else where to go."""
    message = {"type": "drive.started", "drive": hand.drive_id, "hand": hand.number}
    transaction.on_commit(lambda: broadcast.send_game_screens(hand.drive_id, message), robust=True)


def drive_ended(drive_id: int) -> None:
    """The drive finished (its last close, or the organiser ended it): once it commits, its
    game screens look again, as at a hand's start, and say so with a link to the final place
    (not a screen left on the last hand still showing it, or "Go to hand 2")."""
    message = {"type": "drive.ended", "drive": drive_id}
    transaction.on_commit(lambda: broadcast.send_game_screens(drive_id, message), robust=True)


def send_instructions(message: dict[str, Any]) -> None:
    """A close's instructions, sent at its commit: a name of its own, where the benchmarks'
    settings (bench/routes.py) time when each close's instructions left."""
    broadcast.send_instructions(message)


def table_finished(table: Any) -> None:
    """A digital table's hand ended: the engine recorded its result inside the move's
    transaction, under the table's lock, in the thread that applies moves. As
    ``table_changed``: the table's lock, and the phones' last view, do not wait for its
    message."""
    drive_changed(table.hand.drive_id, gather=True)
    _message_after_commit(table)


def _message_after_commit(table: Any, *, seated: list[int] | None = None, current: bool = False) -> None:
    """Once the transaction commits, the table's result message is read and sent by the
    result-message thread; tests (``LIVE_UPDATES_INLINE``) read and send it in the committing
    thread."""
    if getattr(settings, "LIVE_UPDATES_INLINE", False):
        transaction.on_commit(lambda: _read_and_send([(table, seated, current)]), robust=True)
        return

    def queue() -> None:
        with _pending_lock:
            _pending.append((table, seated, current))
        _messages.submit(_drain)

    transaction.on_commit(queue, robust=True)


def _drain() -> None:
    """Every result message queued so far, read and sent in the order their commits queued them.
    A burst's messages queued meanwhile share one read of what they have in common (the
    ranking, the hands' statuses: ``result_deltas``)."""
    with _pending_lock:
        batch = list(_pending)
        _pending.clear()
    if not batch:
        return  # an earlier drain took this one's message
    try:
        _read_and_send(batch)
    except Exception:  # the full update that follows shows the results all the same
        log.exception("result messages of tables %s not sent", [t.pk for t, *_ in batch])
    finally:
        connection.close()


def _read_and_send(batch: list[tuple[Any, list[int] | None, bool]]) -> None:
    stamp = _stamp()  # before the read: a full update read after this is newer than these messages
    for delta in result_deltas(batch):
        send_result_delta(delta, stamp)


def result_deltas(batch: list[tuple[Any, list[int] | None, bool]], *, committed: bool = True,
                  places: bool = True) -> list[dict[str, Any]]:
    """The result messages of ``batch`` (each: a table, its seated players' ids or None, whether
    its hand is the drive's latest), in its order, read once for what they share: each drive's
    ranking, latest hand, each hand's tables' statuses. Read after the commits (``committed``),
    each table's status is as stored. ``places`` False: nobody in ``totals`` or ``ranks``
    (nothing counted changed: the pages keep the totals and places they show)."""
    ranked_of: dict[int, list] = {}
    latest_of: dict[int, int] = {}
    hands: dict[int, dict[int, str]] = {}
    out = []
    for table, seated, current in batch:
        hand = table.hand
        drive = hand.drive
        if not places:
            ranked, rows = None, []
        else:
            if seated is None:
                seated = list(table.seats.order_by().values_list("player_id", flat=True))
            seated_ids = set(seated)
            if hand.drive_id not in ranked_of:
                ranked_of[hand.drive_id] = selectors.standings(drive)
            ranked = ranked_of[hand.drive_id]
            rows = [r.row for r in ranked if r.row.player_id in seated_ids]
        if current:
            latest = hand.number
        else:
            if hand.drive_id not in latest_of:
                latest_of[hand.drive_id] = selectors.latest_hand_number(drive)
            latest = latest_of[hand.drive_id]
        frozen_at = selectors.suspense_from(drive)
        if hand.pk not in hands:
            # (No ordering: the models' default ones would join up to the drive for nothing.)
            hands[hand.pk] = dict(hand.tables.order_by().values_list("pk", "status"))
        stored = hands[hand.pk]
        status = stored.get(table.pk, table.status) if committed else table.status
        done = selectors.progress_of([status if pk == table.pk else other for pk, other in stored.items()])
        delta = {
            "type": "drive.result", "drive": hand.drive_id, "hand": hand.number, "table": table.number,
            # A correction of an earlier hand changes totals, not the current hand's progress.
            "current": hand.number >= latest,
            "status": status, "status_label": TableHand.Status(status).label,
            "progress": {"done": done.done, "total": done.total, "entered": done.entered,
                         "disputed": done.disputed},
            "totals": {str(r.player_id): {"total": r.total, "facts": list(r.facts), "hands": r.hands_played}
                       for r in rows},
            # The board keeps its standings secret while the drive is in its suspense hands (as
            # selectors.drive_view): no totals for it then, whichever hand the result belongs to.
            "board_totals": frozen_at is None or latest <= frozen_at,
        }
        # Everybody's place: ranked here, the one ranking (scoring.standings), never in the page;
        # none when nobody's place changed (the page keeps the places it shows).
        delta["ranks"] = [[str(r.row.player_id), r.label] for r in ranked] if ranked is not None else []
        out.append(delta)
    return out


def send_result_delta(delta: dict[str, Any], commit: int | None = None) -> None:
    message = {**delta, "commit": _stamp() if commit is None else commit}
    # The board and the dashboard: each socket takes what its audience may see.
    broadcast.send_result(delta["drive"], message)


log = logging.getLogger(__name__)
_worker = ThreadPoolExecutor(max_workers=4, thread_name_prefix="live-updates")  # one drive at a time each
_messages = ThreadPoolExecutor(max_workers=1, thread_name_prefix="result-messages")  # one at a time, in order
_pending: list[tuple[Any, list[int] | None, bool]] = []  # committed results whose message is not read yet
_pending_lock = threading.Lock()
_lock = threading.Lock()
_idle = threading.Condition(_lock)
_state: dict[int, str] = {}  # drive id -> "queued" | "running" | "again"
_hurry: dict[int, threading.Event] = {}  # set: the next build of that drive must not wait


_phones_shown: dict[int, dict[str, str]] = {}  # drive id -> player id -> the fragment last sent


def _changed_only(drive_id: int, parts: dict[str, str], listening: frozenset[int] | None = None) -> dict[str, str]:
    """The fragments that differ from what this process last sent each phone. A result
    entered at one table changes its four phones, not the other 196; a socket that connects
    gets its own current fragment at once (``LiveConsumer``), so nothing depends on a resend.
    ``listening``: the phones built for (``broadcast.phones_listening``); what the others were
    sent is forgotten, so each gets its next fragment whatever it holds since connecting."""
    if broadcast.several_processes():
        # Several server processes (Redis): each would remember only what it sent itself, and
        # skip a fragment another process has since replaced. All of them go.
        return parts
    with _lock:
        shown = _phones_shown.setdefault(drive_id, {})
        if listening is not None:
            for gone in [pid for pid in shown if int(pid) not in listening]:
                del shown[gone]
        changed = {pid: html for pid, html in parts.items() if shown.get(pid) != html}
        shown.update(changed)
    return changed


def forget_phones(drive_id: int | None = None) -> None:
    """Send every phone its fragment with the next update (tests; a send that failed)."""
    with _lock:
        if drive_id is None:
            _phones_shown.clear()
        else:
            _phones_shown.pop(drive_id, None)


def _forget_local() -> None:
    """A build falls back to this process (drive.render): what it remembers from earlier
    fallbacks is older than what the render process has sent since."""
    forget_phones()
    _views.clear()


render.on_fallback.append(_forget_local)


def gather_seconds() -> float:
    return float(getattr(settings, "LIVE_GATHER_SECONDS", 1.0))


def _schedule(drive_id: int, gather: bool = False) -> None:
    if getattr(settings, "LIVE_UPDATES_INLINE", False):
        # Tests: build in the committing thread, so a test sees the update when its write
        # returns, with no worker to wait for. Servers use the worker thread.
        publish(drive_id)
        return
    with _lock:
        hurry = _hurry.setdefault(drive_id, threading.Event())
        if not gather:
            hurry.set()
        state = _state.get(drive_id)
        if state == "running":
            _state[drive_id] = "again"  # the running build may have read the state before this commit
            return
        if state in ("queued", "again"):
            return
        _state[drive_id] = "queued"
    _worker.submit(_run, drive_id)


def _run(drive_id: int) -> None:
    while True:
        with _lock:
            hurry = _hurry.setdefault(drive_id, threading.Event())
        hurry.wait(gather_seconds())  # at once unless every change waiting was a shown result
        with _lock:
            _hurry[drive_id] = threading.Event()  # changes from now on decide the next build's wait
            _state[drive_id] = "running"
        try:
            publish(drive_id)
        except Exception:  # a failed update must not stop later ones; pages catch up on reconnect
            log.exception("live update of drive %s failed", drive_id)
        finally:
            try:
                connection.close()  # give the connection back (pool / SQLite file) between bursts
            except Exception:
                log.exception("closing the live worker's connection failed")
        with _lock:
            if _state.get(drive_id) == "again":
                continue
            del _state[drive_id]
            _hurry.pop(drive_id, None)
            _idle.notify_all()
            return


def wait_idle(timeout: float = 10.0) -> bool:
    """Block until no result message and no update is queued or running (tests, a command's end,
    a clean shutdown: an interpreter that exits meanwhile fails their sends)."""
    try:
        _messages.submit(lambda: None).result(timeout)  # one thread, in order: those queued before are sent
    except TimeoutError:
        return False
    with _idle:
        return _idle.wait_for(lambda: not _state, timeout=timeout)


def _stamp() -> int:
    return time.time_ns()


def message(parts: dict[str, Any], audience: str, read: int | None = None, drive: int | None = None) -> dict[str, Any]:
    """``read``: when the state shown was read (every commit before it is in it). It is also
    the stamp by which a page orders what it is sent (``static/js/live.js``): an update read
    before the snapshot a page got on connecting is older than it, however late it was
    rendered (a busy machine can take seconds), and is ignored."""
    return {"type": "drive.update", "audience": audience, "stamp": read if read is not None else _stamp(),
            "parts": parts, "read": read, "drive": drive}


# In the process that builds (the render process, or the server's thread): the views of the
# update whose phones have been built and whose screens come next, by drive.
_views: dict[int, tuple[int, Any, Any]] = {}


def _read(drive_id: int) -> tuple[int, Any, Any] | None:
    read = _stamp()
    drive = Drive.objects.filter(pk=drive_id).first()
    if drive is None:
        return None
    private = selectors.drive_view(drive)
    public = selectors.drive_view(drive, public=True) if drive.suspense_hands else private
    return read, private, public


def build_phones(drive_id: int, listening: frozenset[int] | None = None) -> list[tuple[str, dict[str, Any]]] | None:
    """The first half of one update: read the drive, and the phones' messages (None: the drive
    is gone); ``listening``: only these players' phones (None: all). Pure reading and
    rendering: it runs in the render process (``drive.render``) when the server has one, so
    the server's interpreter stays free for the sockets meanwhile."""
    views = _read(drive_id)
    if views is None:
        _views.pop(drive_id, None)
        return None
    messages = phone_messages(views[2], listening, views[0])
    _views[drive_id] = views
    return messages


def build_screens(drive_id: int) -> list[tuple[str, dict[str, Any]]] | None:
    """The second half: the dashboard's and the board's messages, from the views read by
    ``build_phones`` (read again if this process has not got them)."""
    views = _views.pop(drive_id, None) or _read(drive_id)
    if views is None:
        return None
    read, private, public = views
    return [
        (broadcast.drive_group(drive_id, "organiser"), message(pages.dashboard_parts(private), "organiser", read, drive_id)),
        (broadcast.drive_group(drive_id, "board"), message(pages.board_parts(public), "board", read, drive_id)),
    ]


def publish(drive_id: int) -> None:
    """Build and send one update of the drive: the phones first, then the room's screens.

    Phones first: after a close each player needs to know where to go next, and the board and
    the dashboard have already shown every result by its own message (``table_changed``). Each
    phone gets only its own fragment, and only when it changed (``_changed_only``). In the
    render process the screens are rendered while the server sends the phones."""
    listening = broadcast.phones_listening(drive_id)
    calls = [(build_phones, drive_id, listening), (build_screens, drive_id)]
    for index, messages in enumerate(render.run_in_order(calls)):
        if messages and not broadcast.send_many(messages, wait=True, bulk=True) and index == 0:
            render.run(forget_phones, drive_id)  # not sent: they must all go next time


def phone_messages(view: selectors.DriveView, listening: frozenset[int] | None = None,
                   read: int | None = None) -> list[tuple[str, dict[str, Any]]]:
    """Every phone's fragment that changed (of the ``listening`` players' phones only, when
    given), rendered once, each in a small message to its player's group, stamped ``read``
    (when ``view`` was read; ``message``)."""
    stamp = read if read is not None else _stamp()
    players = view.players if listening is None else [p for p in view.players if p.pk in listening]
    parts = _changed_only(view.drive.pk, pages.phone_parts(view, players), listening)
    return [
        (broadcast.player_group(int(pid)), {"type": "drive.update", "stamp": stamp, "parts": {"phone": html}})
        for pid, html in parts.items()
    ]
