"""A result kept on a phone while it had no connection, and sent after the organiser closed its
hand with "Close anyway": kept, not counted (its answers are never lost to the organiser, to be
asked for again across the hall); the dashboard names it until the organiser applies it to that
table's result (its answers filled in beside those recorded, saved as a correction) or sets it
aside; the phone is told so."""

from __future__ import annotations

import re

import pytest
from django.test import Client

from drive import services
from drive.models import LateEntry
from scoring.models import Result, Score
from tests.factories import declared, seated_drive, shown_for

pytestmark = pytest.mark.django_db


def phone(drive, player) -> Client:
    client = Client()
    client.cookies[f"ff_{drive.join_code}"] = player.token
    return client


def entry(key: str, by, declarer: int = 2, hand: int = 1) -> dict:
    """An entry form's answers as shown to ``by`` for Table 1 of ``hand``: ``declarer`` declared."""
    data = {"declarer": str(declarer), "nine_card": "False", "dealer": "0", "client_key": key, "seen_revision": "0",
            **shown_for(by, hand=hand)}
    for i in range(4):
        data[f"seat{i}_sets"] = "0"
        data[f"seat{i}_ice"] = "none"
    return data


def checked(page: str, name: str) -> str | None:
    """The value of the radio button ``name`` checked on a page."""
    for tag in re.findall(r"<input[^>]*>", page):
        if f'name="{name}"' in tag and re.search(r"\schecked\b", tag):
            return re.search(r'value="([^"]*)"', tag).group(1)
    return None


def send(drive, player, data) -> dict:
    return phone(drive, player).post(f"/{drive.join_code}/enter", data, HTTP_ACCEPT="application/json").json()


def closed_with_a_table_not_played(organiser):
    """Hand 1 of one table of four, closed with "Close anyway" before any result came: recorded
    as not played. Its players in seat order."""
    drive = seated_drive(organiser, 4)
    seats = [s.player for s in drive.hands.get().tables.get().seats.order_by("position")]
    services.close_hand(drive, force=True)
    drive.refresh_from_db()
    return drive, seats


def test_an_entry_sent_after_its_hands_close_is_kept_for_the_organiser_and_counts_for_nothing(organiser):
    drive, seats = closed_with_a_table_not_played(organiser)
    scores = list(Score.objects.order_by("pk").values_list("player", "points", "counted"))
    for _ in range(2):  # sent, and sent again (its answer lost): one entry kept
        answer = send(drive, seats[0], entry("late-1", seats[0]))
        assert answer["ok"] is False and answer["stale"] is True and answer["late"] is True, answer
        assert answer["message"].startswith("This was for hand 1, which the organiser closed before it arrived"), answer
        assert "the organiser has your answers, and can apply them to Table 1's result." in answer["message"]
    late = LateEntry.objects.get()
    assert (late.player, late.table.hand.number, late.table.number, late.settled) == (seats[0], 1, 1, False)
    assert late.summary["declarer"] == 2
    # Nothing counted, nothing moved: the table stands as not played.
    result = Result.objects.get()
    assert result.source == Result.Source.NOT_PLAYED and result.revision == 1
    assert list(Score.objects.order_by("pk").values_list("player", "points", "counted")) == scores


def test_the_organiser_sees_it_applies_it_as_a_correction_and_it_goes(organiser, organiser_client):
    drive, seats = closed_with_a_table_not_played(organiser)
    send(drive, seats[0], entry("late-2", seats[0]))
    late = LateEntry.objects.get()
    table = late.table
    page = organiser_client.get(f"/drives/{drive.pk}/").content.decode()
    assert "data-late-entries" in page and "Sent after the hand was closed, not counted" in page
    assert f'href="/drives/{drive.pk}/results/{table.pk}?late={late.pk}">hand 1, Table 1</a>' in page
    assert f"from <bdi>{seats[0].name}</bdi>’s phone" in page
    # Its link: the form holds the phone's answers (P… declared), beside those recorded, and the reason.
    page = organiser_client.get(f"/drives/{drive.pk}/results/{table.pk}?late={late.pk}").content.decode()
    assert "The answers below are those" in page and "they do not count yet" in page
    assert checked(page, "declarer") == "2"
    assert f"Sent from {seats[0].name}&#x27;s phone at" in page
    # Saved as a correction: applied, and the dashboard no longer names it.
    result = Result.objects.get()
    answers = {k: v for k, v in entry("late-2", seats[0]).items() if k not in ("client_key", "hand", "table", "player")}
    response = organiser_client.post(f"/drives/{drive.pk}/results/{table.pk}", {
        **answers, "seen_revision": str(result.revision), "seen_status": result.status,
        "reason": f"Sent from {seats[0].name}'s phone after the hand was closed"})
    assert response.status_code == 302
    result.refresh_from_db()
    assert result.winner == seats[2] and result.corrections.get().changed
    assert Score.objects.get(player=seats[2]).points == 15
    assert LateEntry.objects.get().settled
    assert "data-late-entries" not in organiser_client.get(f"/drives/{drive.pk}/").content.decode()
    assert "data-late-entry" not in organiser_client.get(f"/drives/{drive.pk}/results/{table.pk}").content.decode()


def test_the_organiser_may_set_it_aside_and_the_result_stands(organiser, organiser_client):
    drive, seats = closed_with_a_table_not_played(organiser)
    send(drive, seats[1], entry("late-3", seats[1]))
    table = LateEntry.objects.get().table
    # The table's own page names it too (its "Correct" link from the hand's page).
    page = organiser_client.get(f"/drives/{drive.pk}/results/{table.pk}").content.decode()
    assert "data-late-entry" in page and "see its answers here" in page and "Set it aside" in page
    response = organiser_client.post(f"/drives/{drive.pk}/results/{table.pk}", {"set_aside": "1"}, follow=True)
    assert "the result sent late is set aside; the result as recorded stands" in response.content.decode()
    assert LateEntry.objects.get().settled
    result = Result.objects.get()
    assert result.source == Result.Source.NOT_PLAYED and result.revision == 1 and not result.corrections.exists()
    assert "data-late-entries" not in organiser_client.get(f"/drives/{drive.pk}/").content.decode()
    # Sent again (its answer lost): said as it now stands.
    answer = send(drive, seats[1], entry("late-3", seats[1]))
    assert "the organiser has seen your answers, and Table 1's result stands as recorded" in answer["message"]
    assert LateEntry.objects.get().settled


def test_one_late_entry_of_a_player_waits_for_a_table_however_many_keys_are_sent(organiser, organiser_client):
    """Each late entry is a row the organiser's dashboard names until it is settled: a phone
    sending one again and again, each time with another key (a hand-made loop; the page's own
    queue sends one), would grow the dashboard, and the database, without end. One waits per
    player and table; any other is told the organiser has that player's answers already, and
    nothing is kept. Its own resends are answered as ever, and another player's is kept."""
    drive, seats = closed_with_a_table_not_played(organiser)
    send(drive, seats[0], entry("late-first", seats[0]))
    for i in range(30):
        answer = send(drive, seats[0], entry(f"late-again-{i}", seats[0], declarer=i % 4))
        assert answer["ok"] is False and answer["late"] is True, answer
        assert "the organiser has the answers you sent for Table 1 already" in answer["message"], answer
    late = LateEntry.objects.get()
    assert (late.client_key, late.summary["declarer"], late.settled) == ("late-first", 2, False)
    answer = send(drive, seats[0], entry("late-first", seats[0]))  # its answer lost: sent again
    assert "the organiser has your answers, and can apply them to Table 1's result." in answer["message"]
    send(drive, seats[1], entry("late-other", seats[1]))
    assert sorted(LateEntry.objects.values_list("client_key", flat=True)) == ["late-first", "late-other"]
    # Set aside, another may come: one waits again.
    organiser_client.post(f"/drives/{drive.pk}/results/{late.table.pk}", {"set_aside": "1"})
    send(drive, seats[0], entry("late-after", seats[0]))
    assert LateEntry.objects.filter(player=seats[0], settled=False).get().client_key == "late-after"
    assert Result.objects.get().source == Result.Source.NOT_PLAYED


def test_an_entry_with_the_answers_recorded_is_told_so_and_not_kept(organiser):
    """The close accepted another player's entry unconfirmed, with the same answers: nothing for
    the organiser to do."""
    drive = seated_drive(organiser, 4)
    seats = [s.player for s in drive.hands.get().tables.get().seats.order_by("position")]
    assert send(drive, seats[1], entry("first", seats[1]))["ok"]
    services.close_hand(drive, force=True)
    answer = send(drive, seats[0], entry("late-4", seats[0]))
    assert answer["late"] is True and "Table 1's result as recorded has these very answers" in answer["message"]
    assert not LateEntry.objects.exists()
    # Other answers than those recorded: kept.
    answer = send(drive, seats[0], entry("late-5", seats[0], declarer=3))
    assert "the organiser has your answers" in answer["message"] and LateEntry.objects.count() == 1


def test_only_the_players_own_form_of_a_table_they_sat_at_is_kept(organiser):
    drive, seats = closed_with_a_table_not_played(organiser)
    # A form shown to another player (the phone changed hands): refused as before, nothing kept.
    answer = send(drive, seats[0], entry("late-6", seats[1]))
    assert "late" not in answer and not LateEntry.objects.exists()
    # A form for a table the player did not sit at.
    answer = send(drive, seats[0], {**entry("late-7", seats[0]), "table": "2"})
    assert "late" not in answer and not LateEntry.objects.exists()
    # Impossible answers (the phone could not check them offline): the refusal as before.
    impossible = {**entry("late-8", seats[0]), "nine_card": "True", "seat1_ice": "joker"}
    answer = send(drive, seats[0], impossible)
    assert "late" not in answer and "tell the organiser" in answer["message"] and not LateEntry.objects.exists()


def test_the_room_never_sees_it_and_a_finished_drive_keeps_none(organiser, client):
    drive, seats = closed_with_a_table_not_played(organiser)
    send(drive, seats[0], entry("late-9", seats[0]))
    assert "Sent after the hand was closed" not in client.get(f"/{drive.join_code}/board").content.decode()
    assert "Sent after the hand was closed" not in phone(drive, seats[1]).get(f"/{drive.join_code}/me").content.decode()
    services.end_drive(drive)
    drive.refresh_from_db()
    answer = send(drive, seats[0], entry("late-10", seats[0], declarer=1))
    assert "late" not in answer and LateEntry.objects.count() == 1


def test_a_correction_saved_from_the_hands_page_settles_it_too(organiser):
    drive, seats = closed_with_a_table_not_played(organiser)
    send(drive, seats[0], entry("late-11", seats[0]))
    table = LateEntry.objects.get().table
    result = Result.objects.get()
    services.organiser_result(drive, table, declared(4, 1), organiser, reason="From the score sheet",
                              seen_revision=result.revision, seen_status=result.status)
    assert LateEntry.objects.get().settled
