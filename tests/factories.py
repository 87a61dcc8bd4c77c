"""Small builders for drives in tests (no factory library needed)."""

from __future__ import annotations

import random
import re

from drive import services
from drive.models import Drive


def make_drive(organiser, players: int = 8, **fields) -> Drive:
    fields.setdefault("name", "Test drive")
    fields.setdefault("seed", 1234)
    drive = Drive.objects.create(organiser=organiser, **fields)
    if players:
        services.add_players(drive, [f"P{i:03d}" for i in range(1, players + 1)])
    return drive


def seated_drive(organiser, players: int = 8, start: bool = True, **fields) -> Drive:
    drive = make_drive(organiser, players, **fields)
    services.draw_seating(drive, random.Random(7))
    if start:
        services.start_hand(drive)
    return drive


def declared(players: int, declarer: int, nine: bool = False, sets: dict[int, int] | None = None) -> dict:
    """A summary: ``declarer`` declared; others hold ``sets[seat]`` regular sets."""
    sets = sets or {}
    return {
        "declarer": declarer,
        "nine_card": nine,
        "dealer": 0,
        "holdings": [{"sets": sets.get(i, 0), "ice": "none"} for i in range(players)],
    }


def finish_all_tables(drive, user, declarer_seat: int = 0) -> None:
    hand = drive.hands.order_by("-number").first()
    for table in hand.tables.all():
        n = table.seats.count()
        services.organiser_result(drive, table, declared(n, declarer_seat % n), user)


# What a phone's form says it was shown for (templates/phone/partials/shown_for.html, read by
# drive.results.Shown). Every test that posts a phone's entry, confirmation or dispute builds
# these fields here, so a field added to the forms is added to the tests once.
SHOWN_FIELDS = ("hand", "table", "player")


def shown_for(player, hand: int = 1, table: int = 1) -> dict:
    """The hidden fields of a form shown to ``player`` for ``hand`` and ``table``."""
    return dict(zip(SHOWN_FIELDS, (str(hand), str(table), str(player.pk)), strict=True))


def shown_on(page: str) -> dict:
    """The same fields as read from a phone's page (tests of a running server, whose phones
    know their token, not their player's id)."""
    found = {name: re.search(rf'name="{name}" value="(\d+)"', page) for name in SHOWN_FIELDS}
    return {name: match.group(1) for name, match in found.items() if match}
