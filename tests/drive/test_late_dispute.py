"""A dispute kept on a phone while it had no connection, and sent after the organiser closed its
hand with "Close anyway" (which counted the entry unconfirmed): the player's complaint is kept
for the organiser (``drive.LateEntry`` with its reason), named on the dashboard and on the
table's result page until they correct the result or set it aside; nothing counts or moves
meanwhile, and the phone is told so."""

from __future__ import annotations

import pytest
from django.test import Client

from drive import services
from drive.models import LateEntry
from scoring.models import Result, Score
from tests.factories import seated_drive, shown_for

pytestmark = pytest.mark.django_db


def phone(drive, player) -> Client:
    client = Client()
    client.cookies[f"ff_{drive.join_code}"] = player.token
    return client


def answers(declarer: int) -> dict:
    """The entry form's answers: ``declarer`` declared, nobody else holds a set."""
    data = {"declarer": str(declarer), "nine_card": "False", "dealer": "0"}
    for i in range(4):
        data[f"seat{i}_sets"] = "0"
        data[f"seat{i}_ice"] = "none"
    return data


def entered_then_closed(organiser):
    """Hand 1 at one table of four: seat 0 enters a result (seat 2 declared), nobody confirms,
    and the organiser closes the hand anyway. The players in seat order, and the result."""
    drive = seated_drive(organiser, 4)
    seats = [s.player for s in drive.hands.get().tables.get().seats.order_by("position")]
    data = {**answers(2), "client_key": "entry-1", "seen_revision": "0", **shown_for(seats[0])}
    assert phone(drive, seats[0]).post(f"/{drive.join_code}/enter", data).status_code == 302
    services.close_hand(drive, force=True)
    drive.refresh_from_db()
    return drive, seats, Result.objects.get()


def dispute(drive, player, reason="Cy declared, not Bo", revision: int = 1) -> str:
    """The dispute form as it was shown before the close (of the result's ``revision``), sent now:
    the page the phone lands on."""
    response = phone(drive, player).post(f"/{drive.join_code}/dispute", {
        **shown_for(player), "seen_revision": str(revision), "reason": reason}, follow=True)
    assert response.status_code == 200
    return response.content.decode()


def test_a_dispute_sent_after_the_close_is_kept_for_the_organiser_and_changes_nothing(organiser):
    drive, seats, result = entered_then_closed(organiser)
    scores = list(Score.objects.order_by("pk").values_list("player", "points", "counted"))
    for _ in range(2):  # sent, and sent again (its answer lost): kept once
        page = dispute(drive, seats[1])
        assert "Your dispute was for hand 1, which the organiser closed before it arrived" in page
        assert "the organiser has your dispute, and can still correct it" in page
    late = LateEntry.objects.get()
    assert (late.player, late.table.number, late.reason, late.settled) == (seats[1], 1, "Cy declared, not Bo", False)
    result.refresh_from_db()
    assert result.status == Result.Status.CONFIRMED and result.revision == 1
    assert list(Score.objects.order_by("pk").values_list("player", "points", "counted")) == scores


def test_the_organiser_reads_it_and_a_correction_settles_it(organiser, organiser_client):
    drive, seats, result = entered_then_closed(organiser)
    dispute(drive, seats[1])
    table = result.table
    page = organiser_client.get(f"/drives/{drive.pk}/").content.decode()
    assert "Sent after the hand was closed, not counted" in page
    assert f'href="/drives/{drive.pk}/results/{table.pk}">hand 1, Table 1</a>, a dispute from' in page
    assert "“<bdi>Cy declared, not Bo</bdi>”" in page
    page = organiser_client.get(f"/drives/{drive.pk}/results/{table.pk}").content.decode()
    assert "phone disputed this result at" in page and "after hand 1 was closed" in page
    assert "see its answers here" not in page  # its answers are those recorded
    response = organiser_client.post(f"/drives/{drive.pk}/results/{table.pk}", {
        **answers(3), "seen_revision": str(result.revision),
        "seen_status": result.status, "reason": "Bo's dispute: Cy declared"})
    assert response.status_code == 302
    result.refresh_from_db()
    assert result.winner == seats[3] and LateEntry.objects.get().settled
    assert "data-late-entries" not in organiser_client.get(f"/drives/{drive.pk}/").content.decode()
    # Sent again (its answer lost): the result it disputed is no longer the one recorded, nothing kept anew.
    page = dispute(drive, seats[1])
    assert "Your dispute was for hand 1" not in page and LateEntry.objects.count() == 1


def test_set_aside_the_result_stands_and_the_phone_is_told_so(organiser, organiser_client):
    drive, seats, result = entered_then_closed(organiser)
    dispute(drive, seats[2])
    table = result.table
    response = organiser_client.post(f"/drives/{drive.pk}/results/{table.pk}", {"set_aside": "1"}, follow=True)
    assert "the dispute sent late is set aside; the result as recorded stands" in response.content.decode()
    page = dispute(drive, seats[2])
    assert "the organiser has read it, and Table 1&#x27;s result stands as recorded" in page
    result.refresh_from_db()
    assert result.revision == 1 and not result.corrections.exists()


def test_only_a_reasoned_dispute_of_the_result_shown_by_a_player_of_the_table_is_kept(organiser):
    drive, seats, result = entered_then_closed(organiser)
    for player, reason in (
        (seats[1], "   "),  # no reason
        (seats[0], "I typed it wrong"),  # the enterer: a dispute of their own entry was never allowed
    ):
        page = dispute(drive, player, reason)
        assert "This was for hand 1, which is over" in page
    # A form shown to another player (the phone changed hands).
    response = phone(drive, seats[1]).post(f"/{drive.join_code}/dispute", {
        **shown_for(seats[2]), "seen_revision": str(result.revision), "reason": "Wrong"}, follow=True)
    assert "Your dispute was for hand 1" not in response.content.decode()
    assert not LateEntry.objects.exists()
    # A finished drive's results are final: nothing kept.
    services.end_drive(drive)
    drive.refresh_from_db()
    assert "Your dispute was for hand 1" not in dispute(drive, seats[1])
    assert not LateEntry.objects.exists()


def test_a_result_a_player_confirmed_before_the_close_is_not_disputed_late(organiser):
    """As before the close: once another player confirmed it, only the organiser changes it."""
    drive = seated_drive(organiser, 4)
    seats = [s.player for s in drive.hands.get().tables.get().seats.order_by("position")]
    phone(drive, seats[0]).post(f"/{drive.join_code}/enter", {**answers(2), "client_key": "entry-2",
                                                               "seen_revision": "0", **shown_for(seats[0])})
    phone(drive, seats[2]).post(f"/{drive.join_code}/confirm", {**shown_for(seats[2]), "seen_revision": "1"})
    services.close_hand(drive)
    drive.refresh_from_db()
    assert "This was for hand 1, which is over" in dispute(drive, seats[1])
    assert not LateEntry.objects.exists()
