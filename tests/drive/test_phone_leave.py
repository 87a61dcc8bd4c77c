""""Leave this phone": what leaving frees, signs out and keeps (a name typed by mistake leaves the
drive; a player who has played keeps their scores; a finished drive's phone stays its player's)."""

from __future__ import annotations

import pytest
from django.test import Client

from drive import selectors, services
from drive.models import Player
from tests.drive.phones_support import phone_for, text
from tests.factories import declared, finish_all_tables, make_drive, seated_drive

pytestmark = pytest.mark.django_db


def test_leaving_the_phone_frees_the_name_and_stops_the_old_cookie(client, organiser):
    """A wrong tap ("I'm Bob" on Ann's phone): "Not Bob? Leave this phone" lets Bob take his name
    on his own phone; the player is signed out as by the organiser (a new token: another copy
    of the old cookie opens nothing). A name from the organiser's list stays in the drive."""
    drive = make_drive(organiser, 3)
    bob = drive.players.get(name="P002")
    client.post(f"/{drive.join_code}/join", {"player": bob.pk})
    copy = phone_for(drive, Player.objects.get(pk=bob.pk))
    assert copy.get(f"/{drive.join_code}/me").status_code == 200
    response = client.post(f"/{drive.join_code}/forget", follow=True)
    assert "This phone is no longer <bdi>P002</bdi>'s." in text(response)
    assert not client.cookies[f"ff_{drive.join_code}"].value
    left = Player.objects.get(pk=bob.pk)
    assert left.active and left.phone_joined_at is None and left.token != bob.token
    assert copy.get(f"/{drive.join_code}/me").status_code == 302
    assert client.get(f"/{drive.join_code}/me").status_code == 302
    bobs_phone = Client()
    assert bobs_phone.post(f"/{drive.join_code}/join", {"player": bob.pk})["Location"] == f"/{drive.join_code}/me"
    assert "P002" in text(bobs_phone.get(f"/{drive.join_code}/me"))


def test_a_finished_drives_phone_offers_no_leave_and_keeps_its_player(client, organiser):
    """Once the drive has finished nobody can join it: "Leave this phone" would only sign the
    phone out and lose the player's final place (the join page then says "This drive has
    finished", and the name could never be picked again). Neither page offers it, and a stale
    page's POST is refused with the reason, the phone still the player's."""
    drive = seated_drive(organiser, 4)
    ann = drive.players.get(name="P001")
    phone = phone_for(drive, ann)
    finish_all_tables(drive, organiser)
    services.close_hand(drive)
    services.end_drive(drive)
    me = text(phone.get(f"/{drive.join_code}/me"))
    assert "The drive has finished." in me and "Leave this phone" not in me
    join = text(phone.get(f"/{drive.join_code}"))
    assert "This phone is <bdi>P001</bdi>'s." in join and "Leave this phone" not in join
    assert "nobody can join now" in join
    response = phone.post(f"/{drive.join_code}/forget", follow=True)
    assert response.redirect_chain[-1][0] == f"/{drive.join_code}/me"
    assert "The drive has finished: this phone stays <bdi>P001</bdi>'s" in text(response)
    kept = Player.objects.get(pk=ann.pk)
    assert kept.token == ann.token and kept.active
    assert phone.get(f"/{drive.join_code}/me").status_code == 200


def test_a_self_added_player_who_leaves_before_playing_leaves_the_drive(client, organiser):
    """A mistaken or made-up name typed on a phone is not seated once the phone leaves it."""
    drive = make_drive(organiser, 4, allow_self_join=True)
    client.post(f"/{drive.join_code}/join", {"new_name": "Ghost 3"})
    ghost = drive.players.get(name="Ghost 3")
    assert ghost.added_by_phone and ghost.phone_joined_at is not None
    # Its confirmation says so (found in a browser: it said the name was free to pick again).
    assert "the name you typed leaves the drive (no hand was played under it)" in text(client.get(f"/{drive.join_code}/me"))
    listed = phone_for(drive, drive.players.get(name="P001"))
    assert "the name is free to pick again" in text(listed.get(f"/{drive.join_code}/me"))
    response = client.post(f"/{drive.join_code}/forget", follow=True)
    assert "<bdi>Ghost 3</bdi> has left this phone and the drive (no hand was played under that name)." in text(response)
    ghost.refresh_from_db()
    assert not ghost.active and ghost.phone_joined_at is None
    hand = services.draw_seating(drive)
    assert not hand.seats.filter(player=ghost).exists() and hand.seats.count() == 4
    assert "Ghost 3" not in text(Client().get(f"/{drive.join_code}"))


def test_a_name_typed_on_the_wrong_phone_and_left_can_be_typed_again_on_the_right_one(client, organiser):
    """Ann typed her name on Bob's phone and left it there (so it left the drive, unplayed):
    typed again on her own phone it comes back, rather than "Already in this drive". A name
    that has played stays refused; so does one the organiser added."""
    drive = make_drive(organiser, 4, allow_self_join=True)
    client.post(f"/{drive.join_code}/join", {"new_name": "Ann"})
    client.post(f"/{drive.join_code}/forget")
    ann = drive.players.get(name="Ann")
    assert not ann.active
    anns_phone = Client()
    response = anns_phone.post(f"/{drive.join_code}/join", {"new_name": "ann"}, follow=True)
    assert "Ann" in text(response) and drive.players.filter(name__iexact="ann").count() == 1
    ann.refresh_from_db()
    assert ann.active and ann.phone_joined_at is not None and ann.name == "Ann"
    assert anns_phone.get(f"/{drive.join_code}/me").status_code == 200
    services.withdraw_player(drive, drive.players.get(name="P001"))  # the organiser's: not a phone's name
    refused = Client().post(f"/{drive.join_code}/join", {"new_name": "P001"}, follow=True)
    assert "Already in this drive" in text(refused) and not drive.players.get(name="P001").active


def test_a_self_added_name_the_organiser_took_out_stays_out_when_typed_again(client, organiser):
    """Found by probing: a name a phone added, taken out by the organiser (a rude name, say),
    came back as soon as any phone typed it again, with the same token on both phones. Only a
    name its phone left comes back so; one the organiser took out is refused, saying why."""
    drive = make_drive(organiser, 4, allow_self_join=True)
    client.post(f"/{drive.join_code}/join", {"new_name": "Rude Word"})
    rude = drive.players.get(name="Rude Word")
    services.withdraw_player(drive, rude)
    again = Client()
    response = again.post(f"/{drive.join_code}/join", {"new_name": "rude word"}, follow=True)
    assert "Already in this drive: <bdi>Rude Word</bdi>, who has left it." in text(response)
    rude.refresh_from_db()
    assert not rude.active and drive.players.count() == 5
    assert again.get(f"/{drive.join_code}/me").status_code != 200  # the new phone holds nobody
    # Nor once its phone is signed out, by the organiser or by its own "Leave this phone".
    client.post(f"/{drive.join_code}/forget")
    services.revoke_phone(drive, rude)
    response = again.post(f"/{drive.join_code}/join", {"new_name": "Rude Word"}, follow=True)
    assert "who has left it" in text(response)
    rude.refresh_from_db()
    assert not rude.active and drive.players.count() == 5


def test_a_self_added_player_seated_for_a_hand_not_started_leaves_it_too(client, organiser):
    drive = seated_drive(organiser, 4, start=False, allow_self_join=True)
    client.post(f"/{drive.join_code}/join", {"new_name": "Ghost 3"})
    ghost = drive.players.get(name="Ghost 3")
    assert drive.hands.get().seats.filter(player=ghost).exists()  # seated at once, between hands
    client.post(f"/{drive.join_code}/forget")
    assert not drive.hands.get().seats.filter(player=ghost).exists()
    assert not Player.objects.get(pk=ghost.pk).active


def test_a_player_who_has_played_keeps_their_scores_and_is_just_unjoined(client, organiser):
    drive = make_drive(organiser, 3, allow_self_join=True)
    client.post(f"/{drive.join_code}/join", {"new_name": "Dee"})
    dee = drive.players.get(name="Dee")
    services.draw_seating(drive)
    services.start_hand(drive)
    services.organiser_result(drive, drive.hands.get().tables.get(), declared(4, 0), organiser)
    services.close_hand(drive)
    scores = list(dee.scores.values_list("points", flat=True))
    assert scores
    response = client.post(f"/{drive.join_code}/forget", follow=True)
    assert "This phone is no longer <bdi>Dee</bdi>'s." in text(response)
    dee.refresh_from_db()
    assert dee.active and dee.phone_joined_at is None
    assert list(dee.scores.values_list("points", flat=True)) == scores
    assert Client().post(f"/{drive.join_code}/join", {"player": dee.pk})["Location"] == f"/{drive.join_code}/me"


def test_leaving_a_phone_that_holds_nobody_changes_nothing(client, organiser):
    from tests.security.conftest import snapshot

    drive = make_drive(organiser, 3)
    before = snapshot()
    client.cookies[f"ff_{drive.join_code}"] = "forged-token"
    assert client.post(f"/{drive.join_code}/forget")["Location"] == f"/{drive.join_code}"
    assert Client().post(f"/{drive.join_code}/forget").status_code == 302
    assert client.get(f"/{drive.join_code}/forget").status_code == 405
    assert snapshot() == before


def test_a_self_added_player_who_left_before_playing_any_hand_is_in_no_standings(client, organiser):
    """A name typed on a phone, seated for a hand and gone before playing
    it (the phone left, the organiser took the name out, the table closed as not played),
    lingered on the board and the standings as "Ghost (left)" on 0 points. A table recorded as
    not played is no hand played: who left having played none is in no standings. One who left
    after playing a hand keeps their row, marked left."""
    drive = seated_drive(organiser, 8, allow_self_join=True, target="hands", target_hands=5)
    client.post(f"/{drive.join_code}/join", {"new_name": "Ghost"})
    ghost = drive.players.get(name="Ghost")
    finish_all_tables(drive, organiser)
    services.close_hand(drive)  # Ghost is seated for hand 2
    services.start_hand(drive)
    table = drive.hands.get(number=2).tables.get(seats__player=ghost)
    client.post(f"/{drive.join_code}/forget")  # seated in a hand under way: the name stays, unjoined
    assert services.withdraw_player(drive, ghost).stays  # (its table's result may yet count for it)
    someone = drive.hands.get(number=2).tables.exclude(pk=table.pk).get().seats.first().player
    services.withdraw_player(drive, someone)  # played hand 1, leaves during hand 2
    other = drive.hands.get(number=2).tables.exclude(pk=table.pk).get()
    services.organiser_result(drive, other, declared(other.seats.count(), 0), organiser)
    services.close_hand(drive, force=True)  # Ghost's table: not played
    assert "not_played" in table.result.summary
    organiser_client = Client()
    organiser_client.force_login(organiser)
    standings = text(organiser_client.get(f"/drives/{drive.pk}/standings"))
    board = text(Client().get(f"/{drive.join_code}/board"))
    csv_text = organiser_client.get(f"/drives/{drive.pk}/export/standings.csv").content.decode("utf-8-sig")
    for shown in (standings, board, csv_text):
        assert "Ghost" not in shown
        assert someone.name in shown  # played a hand: still listed
    assert f"<bdi>{someone.name}</bdi> <span" in board and "left" in board
    assert "Ghost" not in organiser_client.get(f"/drives/{drive.pk}/print/scorecards").content.decode()
    # Places: the seven still in the drive and the one who left after playing, Ghost none.
    assert services.places_held(drive) == len(selectors.standings(drive)) == 8


def _ghost_seated_at_a_table_not_played(client, organiser):
    """Ghost types their name on a phone and is seated for hand 2, whose table closes as not played."""
    drive = seated_drive(organiser, 8, allow_self_join=True, target="hands", target_hands=5)
    client.post(f"/{drive.join_code}/join", {"new_name": "Ghost"})
    ghost = drive.players.get(name="Ghost")
    finish_all_tables(drive, organiser)
    services.close_hand(drive)
    services.start_hand(drive)
    table = drive.hands.get(number=2).tables.get(seats__player=ghost)
    other = drive.hands.get(number=2).tables.exclude(pk=table.pk).get()
    services.organiser_result(drive, other, declared(other.seats.count(), 0), organiser)
    services.close_hand(drive, force=True)
    assert "not_played" in table.result.summary
    return drive, Player.objects.get(pk=ghost.pk)


def test_a_name_a_phone_typed_whose_only_table_was_not_played_leaves_the_drive_with_the_phone(client, organiser):
    """A table recorded as not played is no hand played: "Leave this phone" takes the name the
    phone typed in out of the drive, as before any hand (it would be seated at hand 3 with no phone)."""
    drive, ghost = _ghost_seated_at_a_table_not_played(client, organiser)
    assert services.leaving_leaves_drive(ghost)
    client.post(f"/{drive.join_code}/forget")
    assert not Player.objects.get(pk=ghost.pk).active
    assert ghost.pk not in {r.row.player_id for r in selectors.standings(drive)}


def test_one_taken_out_whose_only_table_was_not_played_is_told_so_and_holds_no_place(client, organiser):
    drive, ghost = _ghost_seated_at_a_table_not_played(client, organiser)
    held = services.places_held(drive)
    assert not services.withdraw_player(drive, ghost).stays
    assert services.places_held(drive) == held - 1 == len(selectors.standings(drive))
