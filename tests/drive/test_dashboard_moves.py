"""After a close, the dashboard's seating for the next hand says who moved in, as the board and
the phones do: the organiser directs the room from it."""

from __future__ import annotations

import re

import pytest

from drive import services
from tests.factories import finish_all_tables, seated_drive

pytestmark = pytest.mark.django_db


def cards(page: str) -> dict[int, str]:
    return {int(m.group(1)): m.group(0) for m in re.finditer(r'<article[^>]*id="table-(\d+)".*?</article>', page, re.S)}


def seat_line(card: str, name: str) -> str:
    return re.search(rf"<li>(?:(?!</li>).)*<bdi>{name}</bdi>.*?</li>", card, re.S).group(0)


def test_the_next_hands_seating_on_the_dashboard_says_who_moved_up_or_down(organiser_client, organiser):
    drive = seated_drive(organiser, 8)
    hand = drive.hands.get()
    before = {t.number: [s.player.name for s in t.seats.order_by("position")] for t in hand.tables.all()}
    finish_all_tables(drive, organiser, declarer_seat=1)  # the second seat wins at each table
    services.close_hand(drive)
    up, down = before[2][1], before[1][2]  # Table 2's winner; the player on Table 1's winner's left
    page = organiser_client.get(f"/drives/{drive.pk}/").content.decode()
    seating = cards(page)
    assert "↑ up from Table 2" in seat_line(seating[1], up)
    assert "↓ down from Table 1" in seat_line(seating[2], down)
    stayed = [n for n in before[1] + before[2] if n not in (up, down)]
    assert all("data-moved" not in seat_line(seating[1] + seating[2], n) for n in stayed)
    assert page.count("data-moved") == 2
    # Once the hand starts, the seats are as everyone sits: nothing more is said of moving.
    services.start_hand(drive)
    assert "data-moved" not in organiser_client.get(f"/drives/{drive.pk}/").content.decode()
