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

from drive import broadcast, selectors
from drive.models import Drive
from tables.models import Hand

BOARD_TEMPLATE = "board/partials/live.html"
DASHBOARD_TEMPLATE = "drive/partials/live.html"
PHONE_TEMPLATE = "phone/partials/live.html"


def drive_changed(drive_id: int) -> None:
    """Schedule one live update of this drive for when the current transaction commits."""
    # One callback per drive per transaction. Django drops pending callbacks on rollback, so
    # looking at its own list never leaves a stale "already scheduled" mark behind.
    if connection.in_atomic_block:
        for entry in connection.run_on_commit:
            if getattr(entry[1], "live_drive_id", None) == drive_id:
                return

    def send() -> None:
        _schedule(drive_id)

    send.live_drive_id = drive_id  # type: ignore[attr-defined]
    transaction.on_commit(send)


log = logging.getLogger(__name__)
_worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="live-updates")
_lock = threading.Lock()
_idle = threading.Condition(_lock)
_state: dict[int, str] = {}  # drive id -> "queued" | "running" | "again"
_phones_worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="live-phones")
_phones_latest: dict[int, Any] = {}  # drive id -> newest view whose phones are not sent yet
_phones_busy: set[int] = set()


def _queue_phones(drive_id: int, view: Any) -> None:
    """Send the phones' fragments of ``view``; if the phones' sender is busy with this drive,
    only the newest view waits (an older one would be overtaken anyway)."""
    if getattr(settings, "LIVE_UPDATES_INLINE", False):
        send_phones(view)
        return
    with _lock:
        fresh = drive_id not in _phones_latest and drive_id not in _phones_busy
        _phones_latest[drive_id] = view
    if fresh:
        _phones_worker.submit(_run_phones, drive_id)


def _run_phones(drive_id: int) -> None:
    while True:
        with _lock:
            view = _phones_latest.pop(drive_id, None)
            if view is None:
                _phones_busy.discard(drive_id)
                _idle.notify_all()
                return
            _phones_busy.add(drive_id)
        try:
            send_phones(view)
        except Exception:
            log.exception("phones' update of drive %s failed", drive_id)
        finally:
            connection.close()  # rendering may have read a related row: give the connection back


def _schedule(drive_id: int) -> None:
    if getattr(settings, "LIVE_UPDATES_INLINE", False):
        # Tests: build in the committing thread (SQLite's shared in-memory test database locks
        # whole tables across threads). Servers use the worker thread.
        publish(drive_id)
        return
    with _lock:
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
            _state[drive_id] = "running"
        try:
            publish(drive_id)
        except Exception:  # a failed update must not stop later ones; pages catch up on reconnect
            log.exception("live update of drive %s failed", drive_id)
        finally:
            connection.close()  # give the connection back (pool / SQLite file) between bursts
        with _lock:
            if _state.get(drive_id) == "again":
                continue
            del _state[drive_id]
            _idle.notify_all()
            return


def wait_idle(timeout: float = 10.0) -> bool:
    """Block until no update is queued or running (tests, and a clean shutdown)."""
    with _idle:
        return _idle.wait_for(lambda: not _state and not _phones_latest and not _phones_busy, timeout=timeout)


def _stamp() -> int:
    return time.time_ns()


def board_parts(view: selectors.DriveView) -> dict[str, str]:
    chart = selectors.leaders_chart(view.drive, view.ranked, up_to=view.frozen_at)
    html = get_template(BOARD_TEMPLATE).render({"v": view, "drive": view.drive, "chart": chart, "Hand": Hand})
    return {"board": html}


def dashboard_context(view: selectors.DriveView) -> dict[str, Any]:
    """The context of the dashboard's live part: the page and the push render the same thing."""
    return {
        "drive": view.drive, "hand": view.hand, "tables": view.tables, "progress": view.progress,
        "ranked": view.ranked[:10], "Hand": Hand,
        "disputes": [t for t in view.tables if t.status == "disputed"],
        "waiting": view.waiting(),
    }


def dashboard_parts(view: selectors.DriveView) -> dict[str, str]:
    return {"dashboard": get_template(DASHBOARD_TEMPLATE).render(dashboard_context(view))}


def phone_parts(view: selectors.DriveView, players=None) -> dict[str, str]:
    template = get_template(PHONE_TEMPLATE)
    return {
        str(p.pk): template.render({"me": view.phone(p), "v": view, "drive": view.drive, "Hand": Hand})
        for p in (players if players is not None else view.players)
    }


def message(parts: dict[str, Any], audience: str) -> dict[str, Any]:
    return {"type": "drive.update", "audience": audience, "stamp": _stamp(), "parts": parts}


def publish(drive_id: int) -> None:
    """Build and send one update of the drive: the room's screens, then (handed to the phones'
    sender) every phone.

    Each phone gets only its own fragment, in its own group: one message of every player's
    fragment would be copied to every phone (200 phones x 200 fragments). The phones' part runs
    on its own thread, so the board and the dashboard never wait behind 200 phone sends."""
    drive = Drive.objects.filter(pk=drive_id).first()
    if drive is None:
        return
    private = selectors.drive_view(drive)
    public = selectors.drive_view(drive, public=True) if drive.suspense_hands else private
    broadcast.send_many([
        (broadcast.drive_group(drive_id, "organiser"), message(dashboard_parts(private), "organiser")),
        (broadcast.drive_group(drive_id, "board"), message(board_parts(public), "board")),
    ])
    _queue_phones(drive_id, public)


def send_phones(view: selectors.DriveView) -> None:
    """Every phone's fragment, rendered once. How they travel depends on the layer: in memory a
    message is copied for every receiver, so each phone gets its own small message in its own
    group; through Redis each group send costs round trips, so one message carrying every
    fragment goes to the drive's phones group and each socket forwards only its own part."""
    stamp = _stamp()
    parts = phone_parts(view)
    if broadcast.one_message_for_all_phones():
        broadcast.send_many([(broadcast.drive_group(view.drive.pk, "phones"),
                              {"type": "drive.update", "stamp": stamp, "parts": parts})])
        return
    broadcast.send_many([
        (broadcast.player_group(int(pid)), {"type": "drive.update", "stamp": stamp, "parts": {"phone": html}})
        for pid, html in parts.items()
    ])
