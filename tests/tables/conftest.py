"""Fixtures for digital play: a started drive with one digital table, and phones on sockets."""

from __future__ import annotations

import random

import pytest

from drive import services
from tables.models import TableHand
from tests.factories import make_drive


@pytest.fixture(autouse=True)
def quick_bots(settings):
    settings.BOT_DELAY_SECONDS = 0


def digital_drive(organiser, players: int = 4, start: bool = True, **fields):
    """A drive of ``players`` at one digital table (``players`` <= 10), hand 1 started (dealt)."""
    fields.setdefault("preferred_table_size", min(players, 10))
    drive = make_drive(organiser, players, play_mode="digital", **fields)
    services.draw_seating(drive, random.Random(7))
    if start:
        services.start_hand(drive)
    return drive


def table_of(drive, number: int = 1) -> TableHand:
    return TableHand.objects.get(hand=drive.hands.order_by("-number").first(), number=number)


def seated_players(table: TableHand) -> list:
    return [s.player for s in table.seats.select_related("player").order_by("position")]


@pytest.fixture
def four_at_a_table(transactional_db, organiser):
    drive = digital_drive(organiser, 4)
    table = table_of(drive)
    return drive, table, seated_players(table)


@pytest.fixture(autouse=True)
def no_live_screens(monkeypatch):
    """The drive's live screens (drive.live) rebuild in a worker thread after every commit; on the
    shared-cache in-memory test database their reads can lock tables under our writers. These
    tests are about the tables, so the live screens stay quiet here (they have their own tests)."""
    try:
        from drive import live
    except ImportError:
        return
    monkeypatch.setattr(live, "drive_changed", lambda drive_id, **kwargs: None)
