"""Fixtures for digital play: a started drive with one digital table, and phones on sockets; the
browser tests' live server."""

from __future__ import annotations

import random

import pytest

from drive import services
from games import get_game
from tables.models import TableHand
from tests.factories import make_drive


@pytest.fixture(scope="module")
def server(module_server):
    """The game-screen browser tests' live server, one for the module (tests/conftest.py); the
    ``browser`` beside it is tests/conftest.py's too."""
    return module_server


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


def stored_hand(table_id: int):
    """The table's hand as stored now (Film Fantasy's engine)."""
    return get_game("film-fantasy").load_hand(TableHand.objects.get(pk=table_id).state)


def seated_players(table: TableHand) -> list:
    return [s.player for s in table.seats.select_related("player").order_by("position")]


def play_to_the_end(table: TableHand, players: list, seed: int, *, token: bool = False) -> None:
    """Every seat plays the greedy bot's move through ``digital.apply_action`` (as in an apply
    thread) until the table's hand is over; ``token``: each move with its player's token."""
    from games import get_game
    from tables import digital

    game, rng = get_game("film-fantasy"), random.Random(seed)
    for _ in range(2000):
        stored = TableHand.objects.get(pk=table.pk)
        state = game.load_hand(stored.state)
        if state.finished:
            return
        seat, move = next((s, m) for s in range(len(players)) if (m := game.bot_action(state, s, rng)) is not None)
        digital.apply_action(table.pk, seat, {**move, "version": stored.version}, player_id=players[seat].pk,
                             token=players[seat].token if token else None)
    raise AssertionError("the hand never ended")


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
