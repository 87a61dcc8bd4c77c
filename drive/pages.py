"""The live parts of the drive's pages, rendered from one read of the drive
(``selectors.DriveView``): the board's, the dashboard's (with its players' count and list) and
each phone's. A page renders its part with the same context the push does (``drive.live`` sends
them when the drive changes), so what is pushed is what a reload shows.
"""

from __future__ import annotations

import html
from typing import Any

from django.template.loader import get_template
from django.utils.safestring import SafeString

from drive import charts, ending, seating, selectors
from tables.models import Hand

BOARD_TEMPLATE = "board/partials/live.html"
DASHBOARD_TEMPLATE = "drive/partials/live.html"
PLAYERS_TEMPLATES = {"players-count": "drive/partials/players_count.html", "players": "drive/partials/players.html"}
PHONE_TEMPLATE = "phone/partials/live.html"


def board_parts(view: selectors.DriveView) -> dict[str, str]:
    chart = charts.leaders_chart(view.drive, view.ranked, up_to=view.frozen_at)
    html = get_template(BOARD_TEMPLATE).render({"v": view, "drive": view.drive, "chart": chart, "Hand": Hand})
    return {"board": html}


def closing_ends(view: selectors.DriveView) -> bool:
    """Whether closing the hand in play ends the drive, as ``view`` may say it: its number of
    hands reached, or its total reached by the results counted so far (a correction before the
    close may still change that). The dashboard and the phones say the same (else a
    phone would name who "moves down" after the hand that reached the total, and say its page would
    tell where to sit next). A view under suspense (``frozen_at``: the phones' and the board's
    standings held back) says it by the number of hands only: that the total has been reached
    is kept secret with the standings. Read once per view."""
    known = view.__dict__.get("_closing_ends")
    if known is None:
        hand = view.hand
        known = bool(hand and (view.drive.is_last_hand(hand.number) or (
            hand.status == Hand.Status.PLAYING and view.frozen_at is None
            and ending.target_reached(view.drive, hand.number, [r.row for r in view.ranked], len(view.tables)))))
        view.__dict__["_closing_ends"] = known
    return known


def dashboard_context(view: selectors.DriveView) -> dict[str, Any]:
    """The context of the dashboard's live part: the page and the push render the same thing."""
    disputes = [t for t in view.tables if t.status == "disputed"]
    bell_tables = [t.number for t in view.tables if t.on_the_phones]
    return {
        "drive": view.drive, "hand": view.hand, "tables": view.tables, "progress": view.progress,
        "ranked": view.ranked[:10], "ranked_more": max(len(view.ranked) - 10, 0), "Hand": Hand,
        # Nobody has a place (no hand played): "End the drive now" warns of no standings (dashboard.html).
        "no_hand_played": not view.placed,
        # Each hand before this one has a page of its own, where its results are corrected.
        "earlier_hands": list(range(1, view.hand.number + view.drive.is_finished)) if view.hand else [],
        "disputes": disputes,
        # The next hand's seating, shown after a close: who moved in, up or down (the board and
        # the phones say it too); none once the hand has started, nor at the first hand.
        "moved_in": view.moves if view.hand and view.hand.status == Hand.Status.SEATING and view.hand.number > 1 else {},
        # Results phones sent after their hand's close (kept offline): to apply or set aside.
        "late_entries": view.late_entries,
        "dispute_words": seating.table_words([t.number for t in disputes]),
        "waiting": view.waiting(),
        "players": view.players,
        # The players still in the drive, and those who left (listed too, marked "left").
        "players_here": sum(p.active and not p.is_bot for p in view.players),
        "bots_here": sum(p.active and p.is_bot for p in view.players),
        "players_left": sum(not p.active for p in view.players),
        # Digital tables still playing: closing the hand rings the bell on them (asked first,
        # unless tables with cards are still waiting: then the close is refused, nothing rung).
        "bell_tables": bell_tables,
        "bell_words": seating.table_words(bell_tables),
        "cards_waiting": sum(not t.is_done and not t.on_the_phones for t in view.tables),
        # Closing this hand ends the drive: its number of hands reached, or its total reached by
        # the results counted so far (the second is warned of too).
        "last_hand": closing_ends(view),
        # The two "swap" lists hold every seated player: built once, in Python, for both, escaped
        # as format_html_join would without its cost per option (400). A browser jumps to the
        # option starting with the letter typed: the name comes first, as it is (no invisible
        # mark, which a search for "Kit (T1)" would not find).
        # Who sits where, as this page shows it: the swap refuses a seating changed since.
        "seating_stamp": seating.stamp([[str(s.player_id) for s in t.seats.all()] for t in view.tables]),
        "swap_options": SafeString("".join(
            f'<option value="{seat.player_id}">{html.escape(seat.player.name)} (T{t.number})</option>'
            for t in view.tables for seat in t.seats.all())),
    }


def dashboard_parts(view: selectors.DriveView) -> dict[str, str]:
    """The dashboard's live part, and its players' count and list (a phone may add its own
    name): the box where the organiser types names is not pushed, so nothing typed is wiped."""
    context = dashboard_context(view)
    return {"dashboard": get_template(DASHBOARD_TEMPLATE).render(context),
            **{part: get_template(template).render(context) for part, template in PLAYERS_TEMPLATES.items()}}


def phone_parts(view: selectors.DriveView, players=None) -> dict[str, str]:
    template = get_template(PHONE_TEMPLATE)
    return {
        str(p.pk): template.render({"me": view.phone(p), "v": view, "drive": view.drive, "Hand": Hand})
        for p in (players if players is not None else view.players)
    }
