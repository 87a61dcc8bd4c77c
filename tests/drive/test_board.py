"""The public board (the projector): standings and the QR code, suspense over the last hands, the
prize giving, the movement and seating, and query counts of the board and the phone's page."""

from __future__ import annotations

import re

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from drive import services
from drive.services import DriveError
from tests.drive.phones_support import phone_for, text
from tests.factories import declared, seated_drive

pytestmark = pytest.mark.django_db


def test_board_is_public_and_shows_standings_and_qr(client, organiser):
    drive = seated_drive(organiser, 8)
    page = text(client.get(f"/{drive.join_code}/board"))
    assert "<svg" in page and drive.join_code in page and "0 of 2 tables done" in page
    # Equal totals on different ranks puzzled the room (a new-user check): the board says why.
    assert "Level on points? More declarations first, then more nine-card ones." in page
    # Before any hand is scored nobody has a place to show (everyone "=1" said nothing).
    assert page.count('<td class="rank">–</td>') == 8 and '<td class="rank">=1</td>' not in page
    services.organiser_result(drive, drive.hands.get().tables.get(number=1), declared(4, 0), organiser)
    page = text(client.get(f"/{drive.join_code}/board"))
    assert page.count('<td class="rank">–</td>') == 4  # the other table's players: no hand counted yet


def test_board_suspense_hides_the_last_hands(client, organiser):
    drive = seated_drive(organiser, 4, target="hands", target_hands=3, suspense_hands=1)
    for number in (1, 2):
        services.organiser_result(drive, drive.hands.get(number=number).tables.get(), declared(4, 0), organiser)
        services.close_hand(drive)
        services.start_hand(drive)
    page = text(client.get(f"/{drive.join_code}/board"))
    assert "Standings after hand 2" in page
    # The phones show the same standings as the board (a tester saw a place on the board and
    # none on the phones).
    first = drive.players.order_by("name").first()
    phone = Client()
    phone.cookies[f"ff_{drive.join_code}"] = first.token
    on_phone = text(phone.get(f"/{drive.join_code}/me"))
    assert re.search(r"After hand 2: \d+ points? · [^<]+ of 4", on_phone), on_phone
    assert "the points of the hands after hand 2 are kept secret until the end" in on_phone
    services.organiser_result(drive, drive.hands.get(number=3).tables.get(), declared(4, 0), organiser)
    services.close_hand(drive)
    # The drive has finished, and the room learns the winners when the organiser reveals them.
    drive.refresh_from_db()
    assert drive.is_finished
    page = text(client.get(f"/{drive.join_code}/board"))
    assert "Standings after hand 2" in page and "the winners are revealed next" in page
    winner = drive.players.order_by("name").first()
    phone = Client()
    phone.cookies[f"ff_{drive.join_code}"] = winner.token
    on_phone = text(phone.get(f"/{drive.join_code}/me"))
    assert "The winners are revealed on the board." in on_phone
    assert "You won" not in on_phone and "You finished" not in on_phone
    # A game screen left open says the same, not that the phone's page shows a place it hides.
    from drive.selectors import elsewhere
    assert elsewhere(drive, winner).text == "The drive has finished: the winners are revealed on the board."
    services.show_prizes(drive, True)
    drive.refresh_from_db()
    assert elsewhere(drive, winner).text == "The drive has finished: your page shows your final place."
    page = text(client.get(f"/{drive.join_code}/board"))
    assert "Standings after hand" not in page and "Winner" in page
    on_phone = text(phone.get(f"/{drive.join_code}/me"))
    assert "You won" in on_phone or "You finished" in on_phone or "You share first place" in on_phone
    # Back to the standings on the board: the secret is out, so they are the final ones (they
    # were the frozen standings of hand 2 again), on the board and the phones.
    services.show_prizes(drive, False)
    drive.refresh_from_db()
    page = text(client.get(f"/{drive.join_code}/board"))
    assert "Final standings" in page and "Standings after hand" not in page and "revealed next" not in page
    assert "Winner" not in page
    on_phone = text(phone.get(f"/{drive.join_code}/me"))
    assert "The winners are revealed on the board." not in on_phone
    assert "You won" in on_phone or "You finished" in on_phone or "You share first place" in on_phone


def test_prize_giving_view(client, organiser, organiser_client):
    drive = seated_drive(organiser, 4, target="hands", target_hands=1)
    services.organiser_result(drive, drive.hands.get().tables.get(), declared(4, 0), organiser)
    services.close_hand(drive)
    organiser_client.post(f"/drives/{drive.pk}/prizes", {"show": "1"})
    page = text(client.get(f"/{drive.join_code}/board"))
    assert "Booby prize" in page and "Winner" in page
    # Totals say what they count; a name and its number never part at a line's end.
    winner = drive.players.get(pk=drive.hands.get().tables.get().result.mover_id)
    # Each winner's name with its points, kept together on a line (static/css/app.css).
    assert (f'Winner: <strong><span class="prize-entry"><bdi>{winner.name}</bdi> (15\xa0points)</span></strong>'
            in page)
    assert "Most declarations: <strong>" in page and f"<bdi>{winner.name}</bdi> (1\xa0declaration)" in page


def test_a_finished_drives_board_invites_no_one_to_join(client, organiser):
    """The join page of a finished drive says it has finished: its board hides the QR code and
    the code (on load; a board left open hides them when its live part says the drive has
    finished, by CSS on data-finished)."""
    drive = seated_drive(organiser, 4, target="hands", target_hands=1)
    page = text(client.get(f"/{drive.join_code}/board"))
    assert '<div class="join">' in page and "data-finished" not in page
    services.organiser_result(drive, drive.hands.get().tables.get(), declared(4, 0), organiser)
    services.close_hand(drive)
    page = text(client.get(f"/{drive.join_code}/board"))
    assert '<div class="join" hidden>' in page and "<h1 data-finished>" in page


def test_no_prizes_are_revealed_for_a_drive_ended_before_any_hand(client, organiser, organiser_client):
    drive = seated_drive(organiser, 4, start=False)
    services.end_drive(drive)
    drive.refresh_from_db()
    assert drive.is_finished and not drive.final_standings
    with pytest.raises(DriveError, match="No hand was played in this drive: there are no prizes to reveal."):
        services.show_prizes(drive, True)
    assert "Reveal the prizes" not in text(organiser_client.get(f"/drives/{drive.pk}/standings"))
    response = organiser_client.post(f"/drives/{drive.pk}/prizes", {"show": "1"}, follow=True)
    assert "there are no prizes to reveal" in text(response)
    drive.refresh_from_db()
    assert not drive.show_prizes
    assert "Booby prize" not in text(client.get(f"/{drive.join_code}/board"))


def _queries(client, url) -> int:
    with CaptureQueriesContext(connection) as ctx:
        assert client.get(url).status_code == 200
    return len(ctx)


def test_phone_and_board_queries_do_not_grow_with_players(organiser):
    counts = []
    for n in (8, 200):
        drive = seated_drive(organiser, n, name=f"d{n}")
        for table in drive.hands.get().tables.all():
            services.organiser_result(drive, table, declared(table.seats.count(), 0), organiser)
        player = drive.players.first()
        counts.append((_queries(phone_for(drive, player), f"/{drive.join_code}/me"),
                       _queries(Client(), f"/{drive.join_code}/board")))
    assert counts[0] == counts[1], counts


def test_board_shows_the_movement_after_a_hand(client, organiser):
    drive = seated_drive(organiser, 8)
    hand = drive.hands.get()
    for table in hand.tables.all():
        services.organiser_result(drive, table, declared(4, 0), organiser)
    up = hand.tables.get(number=2).seats.get(position=0).player.name
    down = hand.tables.get(number=1).seats.get(position=1).player.name
    stays = hand.tables.get(number=1).seats.get(position=0).player.name  # the top table's declarer
    services.close_hand(drive)
    page = text(client.get(f"/{drive.join_code}/board"))
    assert f'<span class="mv-up">↑<bdi>{up}</bdi></span>' in page
    assert f'<span class="mv-down">↓<bdi>{down}</bdi></span>' in page
    # Only who moved is named (ten tables of every name took half the projector,
    # leaving three standings rows a page); those who stay are told so on their phones.
    movement = page[page.index("data-movement"):]
    movement = movement[:movement.index("</div>")]
    assert "<strong>Table 1:</strong>" in movement and stays not in movement


def test_board_shows_the_first_hands_seating(client, organiser):
    """Hand 1's seating is on the projector too ("take your seats" with no tables was all it
    said), without arrows: nobody moved yet."""
    drive = seated_drive(organiser, 8, start=False)
    page = text(client.get(f"/{drive.join_code}/board"))
    movement = page[page.index("data-movement"):]
    movement = movement[:movement.index("</div>")]
    for table in drive.hands.get().tables.all():
        assert f"<strong>Table {table.number}:</strong>" in movement
        for seat in table.seats.all():
            assert f"><bdi>{seat.player.name}</bdi></span>" in movement
    assert "+" not in movement and "↑" not in movement


def test_a_drive_ended_before_its_hidden_hands_hides_nothing_on_a_game_screen_either(organiser):
    """Found by a review: ended by the organiser before its last hands (those hidden), the phone's
    page showed the final place and the game screen said the winners were still to be revealed."""
    from drive.selectors import elsewhere

    drive = seated_drive(organiser, 4, target="hands", target_hands=10, suspense_hands=3)
    services.organiser_result(drive, drive.hands.get().tables.get(), declared(4, 0), organiser)
    services.close_hand(drive)
    services.end_drive(drive)
    drive.refresh_from_db()
    player = drive.players.first()
    assert elsewhere(drive, player).text == "The drive has finished: your page shows your final place."
    phone = Client()
    phone.cookies[f"ff_{drive.join_code}"] = player.token
    assert "You finished" in text(phone.get(f"/{drive.join_code}/me")) or "You won" in text(phone.get(f"/{drive.join_code}/me"))
