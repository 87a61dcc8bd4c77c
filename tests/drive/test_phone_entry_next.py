"""What a phone says about an entry: why one is refused, who moves where once it is in, what
comes next, and nothing of a move that will not happen (the drive's total reached, suspense,
the last hand)."""

from __future__ import annotations

import html
import re

import pytest

from drive import services
from tests.drive.phones_support import entry_data, phone_for, seat_players, table_of_four, text
from tests.factories import declared, finish_all_tables, seated_drive

pytestmark = pytest.mark.django_db


def test_the_confirmer_is_told_who_moves_where(organiser):
    """The phone asked to confirm said only "Moves up: Hugo"; who goes down (the
    player on the mover's left) decides as much, and at the top and last tables someone stays."""
    drive = seated_drive(organiser, 12)
    for number, mover_seat, said in ((1, 1, "{0} stays at the top table · {1} moves down"),
                                     (2, 3, "{0} moves up · {1} moves down"),
                                     (3, 0, "{0} moves up · {1} stays at the last table")):
        table = drive.hands.get().tables.get(number=number)
        seated = seat_players(table)
        phone_for(drive, seated[0]).post(f"/{drive.join_code}/enter",
                                         entry_data(4, mover_seat, key=f"k{number}", table=number, by=seated[0]))
        page = " ".join(re.sub(r"<[^>]+>", " ", text(phone_for(drive, seated[1]).get(f"/{drive.join_code}/me"))).split())
        left = seated[(mover_seat + 1) % 4]
        assert said.format(seated[mover_seat].name, left.name) in page, page


def test_a_refusal_says_whether_it_is_of_the_answers_themselves(table_of_four):
    """The page drops a refusal of the answers once they are mended (static/js/preview.js);
    any other ("Ann sent the result first") stays: the JSON answer and the page say which."""
    drive, table, players = table_of_four
    first, second = phone_for(drive, players[0]), phone_for(drive, players[1])
    impossible = {**entry_data(4, 0, by=players[0]), "seat1_ice": "joker", "seat2_ice": "joker"}
    answer = first.post(f"/{drive.join_code}/enter", impossible, HTTP_ACCEPT="application/json")
    assert answer.status_code == 200 and answer.json()["ok"] is False and "Joker" in answer.json()["message"] and answer.json()["answers"] is True
    assert "data-about-answers" in text(first.post(f"/{drive.join_code}/enter", impossible))
    first.post(f"/{drive.join_code}/enter", entry_data(4, 2, key="a", by=players[0]))
    late = entry_data(4, 3, key="b", seen=0, by=players[1])
    answer = second.post(f"/{drive.join_code}/enter", late, HTTP_ACCEPT="application/json")
    assert "sent Table 1's result first" in answer.json()["message"] and answer.json()["answers"] is False
    page = second.post(f"/{drive.join_code}/enter", late).content.decode()
    assert "sent Table 1" in page and "data-about-answers" not in page


@pytest.mark.parametrize("hands, words", [(2, "tells you where to sit next"),
                                          (1, "shows the final standings: this is the drive's last hand")])
def test_a_done_tables_phone_says_what_comes_next_and_after_the_last_hand_no_seat(organiser, hands, words):
    """Found in a browser: in the drive's last hand a phone whose table was done said the page
    would tell them where to sit next, though nobody sits anywhere after it."""
    from tests.drive.phones_support import phone_for, text

    drive = seated_drive(organiser, 8, target="hands", target_hands=hands)
    finish_all_tables(drive, organiser, declarer_seat=1)
    player = drive.hands.get().tables.get(number=1).seats.get(position=0).player
    page = text(phone_for(drive, player).get(f"/{drive.join_code}/me"))
    assert "Your table is done" in page and words in page


def test_a_phone_says_nobody_moves_once_the_hands_results_reach_the_drives_total(organiser, organiser_client):
    """Found in a browser: in the hand whose results reached the drive's total (the close ends
    the drive) the dashboard said so and named no move, but the table's phones named who
    "moves down" and said the page would tell them where to sit next."""
    from drive.models import Drive
    from tests.drive.phones_support import phone_for, text

    drive = seated_drive(organiser, 8, target=Drive.Target.EITHER, target_hands=5, target_total=25)
    tables = list(drive.hands.get().tables.order_by("number"))
    services.organiser_result(drive, tables[0], declared(4, 0), organiser)  # 15 points: short of 25
    player = tables[0].seats.get(position=1).player
    page = text(phone_for(drive, player).get(f"/{drive.join_code}/me"))
    assert "data-mover" in page and "tells you where to sit next" in page
    services.organiser_result(drive, tables[1], declared(4, 0, nine=True), organiser)  # 25: reached
    dashboard = organiser_client.get(f"/drives/{drive.pk}/").content.decode()
    assert "The last hand: closing it ends the drive" in dashboard and "data-mover" not in dashboard
    for table in tables:
        page = text(phone_for(drive, table.seats.get(position=1).player).get(f"/{drive.join_code}/me"))
        assert "data-mover" not in page and "moves down" not in page and "moves up" not in page
        assert "shows the final standings: this is the drive's last hand" in page


def test_under_suspense_a_phone_keeps_the_reached_total_secret(organiser, organiser_client):
    """The standings of the drive's last hands are hidden from the phones (suspense): that a
    hand's results have reached the total is part of that secret. The dashboard says it; the
    phones say who moves, as by the number of hands."""
    from drive.models import Drive
    from tests.drive.phones_support import phone_for, text

    drive = seated_drive(organiser, 8, target=Drive.Target.EITHER, target_hands=3, target_total=25,
                         suspense_hands=2)
    finish_all_tables(drive, organiser)
    services.close_hand(drive)
    services.start_hand(drive)
    tables = list(drive.hands.get(number=2).tables.order_by("number"))
    services.organiser_result(drive, tables[0], declared(4, 0), organiser)
    services.organiser_result(drive, tables[1], declared(4, 0, nine=True), organiser)
    assert "The last hand: closing it ends the drive" in organiser_client.get(f"/drives/{drive.pk}/").content.decode()
    page = text(phone_for(drive, tables[1].seats.get(position=1).player).get(f"/{drive.join_code}/me"))
    assert "data-mover" in page and "tells you where to sit next" in page


def test_a_name_that_ends_a_sentence_with_its_own_full_stop_gets_no_second(table_of_four):
    """Found in a browser: "Entered by Ann B.." under the entry of a player named "Ann B."."""
    drive, table, players = table_of_four
    players[0].name = "Ann B."
    players[0].save(update_fields=["name"])
    assert phone_for(drive, players[0]).post(f"/{drive.join_code}/enter", entry_data(4, 2, by=players[0])).status_code == 302
    page = text(phone_for(drive, players[1]).get(f"/{drive.join_code}/me"))
    assert "Entered by <bdi>Ann B.</bdi></p>" in page


@pytest.mark.parametrize("players, said", [(8, True), (4, False)])
def test_the_phones_how_to_play_says_who_moves_only_where_there_is_a_table_to_move_to(organiser, organiser_client,
                                                                                     players, said):
    """Found in a browser: a home game's phones (one table) said the winner "moves UP a table";
    so did its printed table card."""
    drive = seated_drive(organiser, players)
    player = drive.hands.get().tables.get(number=1).seats.get(position=0).player
    page = text(phone_for(drive, player).get(f"/{drive.join_code}/me"))
    assert "How to play" in page
    assert (drive.game_rules.movement_words in page) is said
    card = html.unescape(organiser_client.get(f"/drives/{drive.pk}/print/tables").content.decode())
    assert "Sit clockwise" in card and (drive.game_rules.movement_words in card) is said
