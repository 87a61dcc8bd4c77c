"""What the live screens receive when a drive changes: built once per change, after commit.

``drive_changed(drive_id)`` is called by every service that changes what the room sees. Within
one transaction it registers a single ``on_commit`` callback per drive; the callback reads the
committed state once (``selectors.drive_view``), renders the board's, the dashboard's and every
phone's fragments once, and sends one message to each group (group names: ``drive.broadcast``).
Sockets only forward what they receive (a phone forwards its own fragment).
"""

from __future__ import annotations

import time
from typing import Any

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
        publish(drive_id)

    send.live_drive_id = drive_id  # type: ignore[attr-defined]
    transaction.on_commit(send)


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
    drive = Drive.objects.filter(pk=drive_id).first()
    if drive is None:
        return
    private = selectors.drive_view(drive)
    public = selectors.drive_view(drive, public=True) if drive.suspense_hands else private
    broadcast.send_now(broadcast.drive_group(drive_id, "organiser"), message(dashboard_parts(private), "organiser"))
    broadcast.send_now(broadcast.drive_group(drive_id, "board"), message(board_parts(public), "board"))
    broadcast.send_now(broadcast.drive_group(drive_id, "phones"), message(phone_parts(public), "phones"))
