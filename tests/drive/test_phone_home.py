"""A player's home page on the phone: where to sit and with whom, their place in the standings, and
where to move after a hand."""

from __future__ import annotations

import re

import pytest

from drive import services
from tests.drive.phones_support import phone_for, table_of_four, text
from tests.factories import declared, seated_drive

pytestmark = pytest.mark.django_db


def test_home_says_where_to_sit_and_with_whom(table_of_four):
    drive, table, players = table_of_four
    page = text(phone_for(drive, players[0]).get(f"/{drive.join_code}/me"))
    assert (f"Table 1 — with <bdi>{players[1].name}</bdi>, <bdi>{players[2].name}</bdi> and "
            f"<bdi>{players[3].name}</bdi>") in page


def test_home_shows_a_place_in_the_standings_only_once_a_hand_is_played(table_of_four, organiser):
    drive, table, players = table_of_four
    before = text(phone_for(drive, players[1]).get(f"/{drive.join_code}/me"))
    assert "of 4" not in before and "once you have played a hand" in before  # not "=1 of 4" for everyone
    services.organiser_result(drive, table, declared(4, 0), organiser)
    after = text(phone_for(drive, players[1]).get(f"/{drive.join_code}/me"))
    assert "once you have played a hand" not in after
    assert re.search(r"-?\d+ points · (joint )?\d(st|nd|rd|th) of 4", after), after  # ("=2 of 4" was terse)


def test_home_shows_the_movement_after_a_hand(organiser):
    drive = seated_drive(organiser, 8)
    hand = drive.hands.get()
    for table in hand.tables.all():
        services.organiser_result(drive, table, declared(4, 0), organiser)
    declarer_t2 = hand.tables.get(number=2).seats.get(position=0).player
    left_t1 = hand.tables.get(number=1).seats.get(position=1).player
    stayer = hand.tables.get(number=1).seats.get(position=2).player
    services.close_hand(drive)
    assert "Move UP to Table 1" in text(phone_for(drive, declarer_t2).get(f"/{drive.join_code}/me"))
    assert "Move DOWN to Table 2" in text(phone_for(drive, left_t1).get(f"/{drive.join_code}/me"))
    assert "Stay at Table 1" in text(phone_for(drive, stayer).get(f"/{drive.join_code}/me"))


@pytest.mark.parametrize("rank,tied,said", [(1, False, "1st"), (2, True, "joint 2nd"), (3, False, "3rd"),
                                            (11, False, "11th"), (12, True, "joint 12th"), (21, False, "21st"),
                                            (103, False, "103rd"), (113, False, "113th")])
def test_a_place_is_said_as_a_sentence_says_it(rank, tied, said):
    """Found by a new-user check: "5 points · =19 of 24" on the phone was terse."""
    from types import SimpleNamespace

    from drive.templatetags.drive_tags import place

    assert place(SimpleNamespace(rank=rank, tied=tied)) == said


def test_a_player_who_joins_during_the_last_hand_is_told_no_hand_is_left_and_counts_in_no_place(
        organiser, organiser_client):
    """A player added during the last hand was told "You will be seated at the next
    hand" (the dashboard likewise), and the others' "9th of 9" counted them though they had no
    place; with the standings kept secret the latecomer was shown "joint 9th" of them too."""
    drive = seated_drive(organiser, 8, target="hands", target_hands=1)
    late = services.add_players(drive, ["Late"])[0]
    home = text(phone_for(drive, late).get(f"/{drive.join_code}/me"))
    assert "You joined during the drive's last hand: there is no hand left to seat you at." in home
    assert "next hand" not in home
    dashboard = text(organiser_client.get(f"/drives/{drive.pk}/"))
    assert "Joined during the last hand, with no hand left to seat them at: <bdi>Late</bdi>." in dashboard
    hand = drive.hands.get()
    for table in hand.tables.all():
        services.organiser_result(drive, table, declared(4, 0), organiser)
    someone = hand.tables.get(number=1).seats.get(position=1).player
    assert re.search(r"(st|nd|rd|th) of 8 with a hand counted</p>",
                     text(phone_for(drive, someone).get(f"/{drive.join_code}/me")))  # Late is listed, unplaced
    services.close_hand(drive)
    assert re.search(r"You finished (joint )?\d+(st|nd|rd|th) of 8, with",
                     text(phone_for(drive, someone).get(f"/{drive.join_code}/me")))
    assert "You played no hand, so you have no place in its standings." in text(
        phone_for(drive, late).get(f"/{drive.join_code}/me"))


def test_a_place_during_a_hand_says_of_how_many_with_a_hand_counted(organiser):
    """QA: with one table's result confirmed, its players read "1st of 4" while the board listed
    all eight (the others unplaced, "–"): the count now says whom it is of, until all are placed."""
    drive = seated_drive(organiser, 8, target="hands", target_hands=3)
    first, second = drive.hands.get().tables.order_by("number")
    services.organiser_result(drive, first, declared(4, 0), organiser)
    someone = first.seats.get(position=0).player
    assert re.search(r"· (joint )?\d(st|nd|rd|th) of 4 with a hand counted</p>",
                     text(phone_for(drive, someone).get(f"/{drive.join_code}/me")))
    services.organiser_result(drive, second, declared(4, 0), organiser)
    assert re.search(r"· (joint )?\d(st|nd|rd|th) of 8</p>", text(phone_for(drive, someone).get(f"/{drive.join_code}/me")))


def test_with_the_standings_kept_secret_a_player_with_no_hand_by_then_is_given_no_place(organiser):
    drive = seated_drive(organiser, 8, target="hands", target_hands=3, suspense_hands=2)
    late = services.add_players(drive, ["Late"])[0]
    page = text(phone_for(drive, late).get(f"/{drive.join_code}/me"))
    assert "You will be seated at the next hand." in page
    for number in (1, 2):
        if number == 2:
            services.start_hand(drive)
        for table in drive.hands.order_by("-number").first().tables.all():
            services.organiser_result(drive, table, declared(table.seats.count(), 0), organiser)
        services.close_hand(drive)
    page = text(phone_for(drive, late).get(f"/{drive.join_code}/me"))  # played hand 2, after the secret began
    assert "As on the board, the standings stay as after hand 1 until the end, and you had played no hand by then." in page
    assert " of 8" not in page and " of 9" not in page
