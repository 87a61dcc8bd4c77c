"""Helpers shared by the phone tests (tests/drive/test_phone_*.py, test_board.py, test_concurrent_entries.py):
a page's text, a phone joined as a player, a table's players in seat order, an entry form's answers,
and a seated table of four."""

from __future__ import annotations

import html

import pytest
from django.test import Client

from drive.models import Player
from tests.factories import seated_drive, shown_for


def text(response) -> str:
    return html.unescape(response.content.decode())


def phone_for(drive, player) -> Client:
    client = Client()
    client.cookies[f"ff_{drive.join_code}"] = player.token
    return client


def seat_players(table) -> list[Player]:
    return [s.player for s in table.seats.order_by("position")]


def entry_data(players: int, declarer: int | str, nine=False, key="k1", seen=0, hand=1, table=1, *, by, **seat_ice) -> dict:
    """An entry form's answers, as shown to ``by`` for ``hand`` and ``table``."""
    data = {"declarer": str(declarer), "nine_card": str(nine), "dealer": "0", "client_key": key, "seen_revision": str(seen),
            **shown_for(by, hand, table)}
    for i in range(players):
        data[f"seat{i}_sets"] = "0"
        data[f"seat{i}_ice"] = seat_ice.get(f"s{i}", "none")
    return data


@pytest.fixture
def table_of_four(organiser):
    drive = seated_drive(organiser, 4)
    table = drive.hands.get().tables.get()
    return drive, table, seat_players(table)
