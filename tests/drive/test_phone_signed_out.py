"""A phone that loses its player lands on the join page told why, once: signed out by the
organiser while on its home page, the game screen or an entry form (each reloads, or is sent,
when its socket is closed as signed out), or a confirmation sent from a page left open. Found
by QA: a phone signed out mid-hand on the game screen was sent to the join list with no word of
it, only "(private link only)" beside its name."""

from __future__ import annotations

import pytest
from django.test import Client

from drive.access import NOT_JOINED
from tests.drive.phones_support import entry_data, phone_for, table_of_four, text  # noqa: F401 (a fixture)
from tests.factories import shown_for
from tests.tables.conftest import digital_drive, seated_players, table_of

pytestmark = pytest.mark.django_db


def landed_on_join(response, drive) -> str:
    """The page a followed request ended on: the join page, its text."""
    assert response.redirect_chain and response.redirect_chain[-1][0] == f"/{drive.join_code}", response.redirect_chain
    return text(response)


def signed_out(organiser_client, drive, player) -> None:
    """The organiser's "Sign phone out" (the Phones page's form)."""
    organiser_client.post(f"/drives/{drive.pk}/phones/{player.pk}/revoke")


def test_a_phone_signed_out_on_its_home_page_is_told_why_on_the_join_page_once(organiser_client, table_of_four):
    drive, table, players = table_of_four
    ann = players[0]
    phone = Client()
    assert phone.post(f"/{drive.join_code}/join", {"player": ann.pk})["Location"] == f"/{drive.join_code}/me"
    assert phone.get(f"/{drive.join_code}/me").status_code == 200
    signed_out(organiser_client, drive, ann)
    # The live page's poll says nothing itself (its fetch would use the message up unseen)...
    assert phone.get(f"/{drive.join_code}/me?fragment=1")["Location"] == f"/{drive.join_code}"
    # ...the page it then reloads does (as the page reloaded when its socket is closed).
    page = landed_on_join(phone.get(f"/{drive.join_code}/me", follow=True), drive)
    assert page.count(NOT_JOINED) == 1
    assert f"<bdi>{ann.name}</bdi> <span class=\"small\">(private link only)</span>" in page
    assert NOT_JOINED not in text(phone.get(f"/{drive.join_code}"))  # said once


def test_a_game_screen_signed_out_mid_hand_lands_on_the_join_page_told_why(organiser_client, organiser):
    drive = digital_drive(organiser, 4)
    al = seated_players(table_of(drive))[0]
    phone = phone_for(drive, al)
    assert phone.get(f"/{drive.join_code}/play").status_code == 200
    signed_out(organiser_client, drive, al)
    page = landed_on_join(phone.get(f"/{drive.join_code}/play", follow=True), drive)
    assert page.count(NOT_JOINED) == 1
    assert NOT_JOINED not in text(phone.get(f"/{drive.join_code}"))


def test_an_entry_form_and_a_confirmation_of_a_signed_out_phone_say_why(organiser_client, table_of_four):
    drive, table, players = table_of_four
    ann, bob = players[0], players[1]
    ann_phone, bob_phone = phone_for(drive, ann), phone_for(drive, bob)
    assert ann_phone.get(f"/{drive.join_code}/enter").status_code == 200
    signed_out(organiser_client, drive, ann)
    # The form reloaded (its socket closed as signed out), or sent without its script.
    page = landed_on_join(ann_phone.get(f"/{drive.join_code}/enter", follow=True), drive)
    assert page.count(NOT_JOINED) == 1
    page = landed_on_join(ann_phone.post(f"/{drive.join_code}/enter", entry_data(4, 0, by=ann), follow=True), drive)
    assert page.count(NOT_JOINED) == 1
    # Sent by its script: the same reason, in JSON (unchanged).
    answer = ann_phone.post(f"/{drive.join_code}/enter", entry_data(4, 0, by=ann), HTTP_ACCEPT="application/json")
    assert answer.status_code == 200 and answer.json()["ok"] is False and answer.json()["message"] == f"Your entry was not sent. {NOT_JOINED}"
    # A confirmation tapped on a page left open.
    signed_out(organiser_client, drive, bob)
    confirm = bob_phone.post(f"/{drive.join_code}/confirm", {**shown_for(bob), "seen_revision": "1"}, follow=True)
    assert landed_on_join(confirm, drive).count(NOT_JOINED) == 1


def test_a_phone_with_no_cookie_of_the_drive_is_sent_to_join_it_with_no_word_of_leaving(table_of_four):
    """It may never have joined: "no longer joined" would be news to it."""
    drive, table, players = table_of_four
    for page in ("me", "play", "enter"):
        said = landed_on_join(Client().get(f"/{drive.join_code}/{page}", follow=True), drive)
        assert NOT_JOINED not in said and "Tap your name to join." in said, page


def test_a_phone_taken_out_is_told_so_not_that_it_was_signed_out(organiser_client, table_of_four):
    from drive import services

    drive, table, players = table_of_four
    phone = phone_for(drive, players[0])
    services.withdraw_player(drive, players[0])
    page = landed_on_join(phone.get(f"/{drive.join_code}/me", follow=True), drive)
    assert f"The organiser has taken <bdi>{players[0].name}</bdi> out of the drive." in page
    assert NOT_JOINED not in page


def test_a_player_taken_out_is_not_told_to_ask_to_play_again_once_the_drive_has_finished(organiser):
    """A phone of a player the organiser had taken out read "Ask the
    organiser if you want to play again." above "This drive has finished."."""
    from drive import services
    from tests.factories import finish_all_tables, seated_drive

    drive = seated_drive(organiser, 4)
    gone = drive.players.order_by("pk").first()
    finish_all_tables(drive, organiser)
    services.withdraw_player(drive, gone)
    services.close_hand(drive)
    services.end_drive(drive)
    phone = Client()
    phone.cookies[f"ff_{drive.join_code}"] = gone.token
    page = phone.get(f"/{drive.join_code}/me", follow=True).content.decode()
    assert f"The organiser took <bdi>{gone.name}</bdi> out of the drive before it ended." in page
    assert "play again" not in page and "This drive has finished." in page
