"""Small builders for drives in tests (no factory library needed)."""

from __future__ import annotations

import random

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
