"""Players' phones: joining, the home page, entering, confirming and disputing results."""

from __future__ import annotations

import html
import re

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from drive import services
from drive.services import DriveError
from drive.access import player_cookie_name
from drive.models import Player
from scoring.models import Result
from tables.models import TableHand
from tests.factories import declared, finish_all_tables, make_drive, seated_drive, shown_for, shown_on

pytestmark = pytest.mark.django_db


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


def test_join_code_is_case_insensitive_and_lists_names(client, organiser):
    drive = make_drive(organiser, 3)
    response = client.get(f"/{drive.join_code.lower()}")
    assert response.status_code == 302 and response["Location"] == f"/{drive.join_code}"
    page = text(client.get(f"/{drive.join_code}"))
    assert "P001" in page and "P003" in page


def test_join_code_alphabet_has_no_confusable_letters(organiser):
    codes = {make_drive(organiser, 0, name=f"d{i}").join_code for i in range(30)}
    assert not any(set(code) & set("IL0O1UV") for code in codes)


def test_unknown_code_is_404(client):
    assert client.get("/ZZZZZ").status_code == 404
    assert client.get("/not-a-code!").status_code == 404


def test_picking_a_name_remembers_the_phone(client, organiser):
    drive = make_drive(organiser, 3)
    player = drive.players.get(name="P002")
    response = client.post(f"/{drive.join_code}/join", {"player": player.pk})
    assert response.status_code == 302 and response["Location"] == f"/{drive.join_code}/me"
    assert client.cookies[f"ff_{drive.join_code}"].value == player.token
    assert "P002" in text(client.get(f"/{drive.join_code}/me"))


def test_a_name_already_joined_cannot_be_picked_again(client, organiser):
    drive = make_drive(organiser, 3)
    player = drive.players.get(name="P002")
    Client().post(f"/{drive.join_code}/join", {"player": player.pk})
    response = client.post(f"/{drive.join_code}/join", {"player": player.pk}, follow=True)
    assert "already joined on a phone" in text(response)
    assert f"ff_{drive.join_code}" not in client.cookies


def test_a_phone_that_holds_a_player_can_neither_claim_nor_add_another(client, organiser):
    """One cookie jar once added 20 names in a second (and could take every unjoined name):
    while the phone holds a player of the drive, a claim or a new name is refused, nothing
    written, and the join page says whose phone it is, with "Leave this phone"."""
    from django.core.cache import cache

    drive = make_drive(organiser, 3, allow_self_join=True)
    ann, bob = drive.players.get(name="P001"), drive.players.get(name="P002")
    client.post(f"/{drive.join_code}/join", {"player": ann.pk})
    ann.refresh_from_db()
    for i in range(25):
        cache.clear()  # not the rate limit: the phone's player refuses them
        response = client.post(f"/{drive.join_code}/join", {"new_name": f"Ghost {i}"}, follow=True)
        assert "This phone is already <bdi>P001</bdi>'s" in text(response)
    response = client.post(f"/{drive.join_code}/join", {"player": bob.pk}, follow=True)
    assert "This phone is already <bdi>P001</bdi>'s" in text(response)
    assert drive.players.count() == 3 and not drive.players.filter(name__startswith="Ghost").exists()
    bob.refresh_from_db()
    assert bob.phone_joined_at is None
    assert client.cookies[f"ff_{drive.join_code}"].value == ann.token
    page = text(client.get(f"/{drive.join_code}"))
    assert "This phone is <bdi>P001</bdi>'s." in page and "Leave this phone" in page
    assert f'value="{bob.pk}"' not in page and 'name="new_name"' not in page


def test_a_typed_name_is_one_name_and_a_comma_is_explained(client, organiser):
    """Commas and new lines separate names (as in the organiser's list): "Smith, John" would be
    two players, so it is refused, nothing written, saying what to type instead."""
    drive = make_drive(organiser, 3, allow_self_join=True)
    response = client.post(f"/{drive.join_code}/join", {"new_name": "Smith, John"}, follow=True)
    assert "with no comma in it (John Smith, not Smith, John)" in text(response)
    # A full-width comma is a comma too (it was folded into one after the split: one player
    # "Smith,John", found by probing).
    for comma in ("\uff0c", "\ufe50"):
        response = client.post(f"/{drive.join_code}/join", {"new_name": f"Smith{comma}John"}, follow=True)
        assert "with no comma in it (John Smith, not Smith, John)" in text(response)
    response = client.post(f"/{drive.join_code}/join", {"new_name": "Ann\nBob"}, follow=True)
    assert "Type just your own name." in text(response) and "comma" not in text(response)
    assert drive.players.count() == 3
    assert client.post(f"/{drive.join_code}/join", {"new_name": "John Smith"})["Location"] == f"/{drive.join_code}/me"
    assert drive.players.filter(name="John Smith").exists()


def test_a_phone_whose_player_was_withdrawn_or_signed_out_may_join_again(organiser_client, organiser):
    drive = make_drive(organiser, 4)
    ann, bob, cy = drive.players.order_by("name")[:3]
    withdrawn, signed_out = phone_for(drive, ann), phone_for(drive, bob)
    services.withdraw_player(drive, ann)
    organiser_client.post(f"/drives/{drive.pk}/phones/{bob.pk}/revoke")
    response = withdrawn.post(f"/{drive.join_code}/join", {"player": cy.pk})
    assert response["Location"] == f"/{drive.join_code}/me"
    dee = drive.players.get(name="P004")
    assert signed_out.post(f"/{drive.join_code}/join", {"player": dee.pk})["Location"] == f"/{drive.join_code}/me"


def test_a_withdrawn_players_phone_is_told_the_organiser_took_them_out(organiser):
    drive = make_drive(organiser, 3)
    ann = drive.players.get(name="P001")
    phone = phone_for(drive, ann)
    services.withdraw_player(drive, ann)
    page = text(phone.get(f"/{drive.join_code}/me", follow=True))
    assert "The organiser has taken <bdi>P001</bdi> out of the drive. Ask the organiser" in page
    assert "Pick your name to join" not in page


def test_an_entry_sent_by_script_from_a_phone_holding_no_player_now_says_why(organiser):
    """The phone's script (entry.js, its offline queue) reads JSON: a withdrawn or signed-out
    phone's entry was answered with a redirect to the join page, which it showed as "The server
    could not read the form; reload the page." (found by probing). It is told why, nothing written."""
    drive = seated_drive(organiser, 8)
    ann, bob = seat_players(drive.hands.get().tables.get(number=1))[:2]
    phones = {ann: phone_for(drive, ann), bob: phone_for(drive, bob)}
    services.withdraw_player(drive, ann)
    services.revoke_phone(drive, bob)  # signed out: a new token, the phone's cookie opens nothing
    for player, why in ((ann, f"The organiser has taken \u2068{ann.name}\u2069 out of the drive. Ask the organiser"),
                        (bob, "This phone is no longer joined to the drive: pick your name to join again.")):
        answer = phones[player].post(f"/{drive.join_code}/enter", entry_data(4, 1, by=player),
                                     HTTP_ACCEPT="application/json")
        assert answer.status_code == 403 and answer.json()["ok"] is False
        assert answer.json()["message"].startswith(f"Your entry was not sent. {why}")
        # The points preview of a form left open says the same (it said "Join the drive first.").
        preview = phones[player].post(f"/{drive.join_code}/preview", entry_data(4, 1, by=player))
        assert preview.status_code == 403 and preview.json()["message"].startswith(why)
    assert not Result.objects.exists()
    # A page's own form (no script) still goes to the join page, which says why.
    response = phones[ann].post(f"/{drive.join_code}/enter", entry_data(4, 1, by=ann), follow=True)
    assert "The organiser has taken <bdi>P00" in text(response)


def test_a_confirmation_or_dispute_from_a_withdrawn_players_page_says_why_it_was_refused(table_of_four):
    """A withdrawn player's page left open (offline when the organiser took them out) sent
    "Confirm" and landed on the join page with nothing said (found by probing); entering said
    why. Both do now, and nothing is written."""
    drive, table, players = table_of_four
    phone_for(drive, players[1]).post(f"/{drive.join_code}/enter", entry_data(4, 1, by=players[1]))
    bob = phone_for(drive, players[0])
    services.withdraw_player(drive, players[0])
    for action in ("confirm", "dispute"):
        response = bob.post(f"/{drive.join_code}/{action}", {"seen_revision": "1", **shown_for(players[0])}, follow=True)
        assert response.redirect_chain[-1][0] == f"/{drive.join_code}"
        assert f"The organiser has taken <bdi>{players[0].name}</bdi> out of the drive." in text(response)
    assert Result.objects.get().status == Result.Status.ENTERED


def test_a_phones_entry_confirmation_or_dispute_after_the_drive_finished_says_so(organiser):
    """Pages left open on the phones when the last hand closed (an entry queued offline, a
    "Confirm" not yet tapped) were told "No hand is being played right now.": true, but it left
    the players waiting for the next one. They are told the drive has finished (the entry's
    script in its JSON, the forms on the phone's page, the points preview too), nothing written."""
    from drive.results import FINISHED

    drive = seated_drive(organiser, 4, target="hands", target_hands=1)
    table = drive.hands.get().tables.get()
    players = seat_players(table)
    phone_for(drive, players[0]).post(f"/{drive.join_code}/enter", entry_data(4, 0, by=players[0]))
    services.close_hand(drive, force=True)  # the bell: the entry as it stands, and the drive's last hand
    drive.refresh_from_db()
    assert drive.is_finished
    before = list(Result.objects.values("summary", "status", "revision", "confirmed_by"))
    confirmer, latecomer = phone_for(drive, players[1]), phone_for(drive, players[2])
    for action in ("confirm", "dispute"):
        response = confirmer.post(f"/{drive.join_code}/{action}", {"seen_revision": "1", **shown_for(players[1]),
                                                                  "reason": "no"}, follow=True)
        assert response.redirect_chain[-1][0] == f"/{drive.join_code}/me" and FINISHED in text(response)
    entry = entry_data(4, 2, key="late", seen=1, by=players[2])
    answer = latecomer.post(f"/{drive.join_code}/enter", entry, HTTP_ACCEPT="application/json")
    assert answer.status_code == 400 and answer.json() == {"ok": False, "stale": False, "message": FINISHED}
    assert FINISHED in text(latecomer.post(f"/{drive.join_code}/enter", entry, follow=True))
    assert FINISHED in text(latecomer.get(f"/{drive.join_code}/enter", follow=True))
    assert latecomer.post(f"/{drive.join_code}/preview", entry).json()["message"] == FINISHED
    assert list(Result.objects.values("summary", "status", "revision", "confirmed_by")) == before


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
    assert "The drive has finished: this phone stays \u2068P001\u2069's" in text(response)
    kept = Player.objects.get(pk=ann.pk)
    assert kept.token == ann.token and kept.active
    assert phone.get(f"/{drive.join_code}/me").status_code == 200


def test_a_self_added_player_who_leaves_before_playing_leaves_the_drive(client, organiser):
    """A mistaken or made-up name typed on a phone is not seated once the phone leaves it."""
    drive = make_drive(organiser, 4, allow_self_join=True)
    client.post(f"/{drive.join_code}/join", {"new_name": "Ghost 3"})
    ghost = drive.players.get(name="Ghost 3")
    assert ghost.added_by_phone and ghost.phone_joined_at is not None
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


def test_a_withdrawn_player_typing_their_name_is_told_to_ask_the_organiser_not_to_add_an_initial(client, organiser):
    """Found by a probe from outside: a player the organiser had taken out typed their name on a
    phone and was told only "Already in this drive: p001. Add an initial to tell them apart.",
    which, followed, makes them a second player with none of their points. The phone now says
    that player has left and to ask the organiser to bring them back; nothing is written."""
    drive = seated_drive(organiser, 8, allow_self_join=True)
    services.withdraw_player(drive, drive.players.get(name="P001"))
    response = client.post(f"/{drive.join_code}/join", {"new_name": "p001"}, follow=True)
    assert ("Already in this drive: \u2068P001\u2069, who has left it. If that is you, ask the organiser "
            "to bring you back (your points are kept); if not, add an initial to tell you apart.") in text(response)
    assert drive.players.count() == 8 and not drive.players.get(name="P001").active
    assert player_cookie_name(drive) not in client.cookies


def test_typing_a_name_that_is_on_the_list_says_to_tap_it(client, organiser):
    """Found by a new-user check: typing "p001" (on the list, not joined) was told "Already in
    this drive: p001. Add an initial…": most likely it is that player, who should tap the name."""
    drive = make_drive(organiser, 4, allow_self_join=True)
    response = client.post(f"/{drive.join_code}/join", {"new_name": "p001"}, follow=True)
    assert "\u2068P001\u2069 is on the list already: if that is you, tap your name in the list." in text(response)
    assert drive.players.count() == 4
    Player.objects.filter(name="P001").update(phone_joined_at=timezone.now())  # joined: then another of that name
    again = Client().post(f"/{drive.join_code}/join", {"new_name": "p001"}, follow=True)
    assert "Already in this drive" in text(again) and drive.players.count() == 4


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


def test_self_join_only_when_allowed(client, organiser):
    drive = make_drive(organiser, 2)
    response = client.post(f"/{drive.join_code}/join", {"new_name": "Zed"}, follow=True)
    assert "Ask the organiser" in text(response)
    drive.allow_self_join = True
    drive.save()
    client.post(f"/{drive.join_code}/join", {"new_name": "Zed"})
    assert drive.players.filter(name="Zed").exists()


@pytest.fixture
def mid_minute(monkeypatch):
    """The limits' clock held in the middle of a minute: a burst that straddles the turn of a
    minute is weighed a little under its count (the sliding minute is an estimate), which made
    these tests fail now and then."""
    import datetime

    from drive import phone_views

    now = datetime.datetime(2026, 12, 2, 9, 0, 30, tzinfo=datetime.timezone.utc)
    monkeypatch.setattr(phone_views.timezone, "now", lambda: now)


@pytest.mark.usefixtures("mid_minute")
def test_joining_is_rate_limited(client, organiser):
    drive = make_drive(organiser, 2)
    for _ in range(20):
        client.post(f"/{drive.join_code}/join", {"player": "999999"})
    response = client.post(f"/{drive.join_code}/join", {"player": drive.players.first().pk}, follow=True)
    assert "Too many tries" in text(response)


@pytest.mark.usefixtures("mid_minute")
def test_guessing_private_links_is_rate_limited_too(client, organiser):
    """Wrong tokens count towards the limit (they once did not: only valid links were counted).
    A limited phone is told to wait a minute, whatever the link (it was told a good link was "no
    longer valid" and to ask the organiser for a new one, which would have been refused too)."""
    drive = make_drive(organiser, 2)
    player = drive.players.first()
    for i in range(20):
        assert "no longer valid" in text(client.get(f"/{drive.join_code}/p/{'x' * 31}{i:01d}", follow=True))
    for link in (player.token, "x" * 32):
        for send in (client.get, client.post):  # opening the link, and its "Continue"
            response = text(send(f"/{drive.join_code}/p/{link}", follow=True))
            assert "Too many tries from this phone. Wait a minute and try again." in response
            assert "no longer valid" not in response and "This phone will be" not in response
    assert client.get(f"/{drive.join_code}/me").status_code == 302  # the right link came too late


@pytest.mark.usefixtures("mid_minute")
def test_one_use_of_a_private_link_counts_once_against_the_limit(organiser):
    """Opening a link and pressing its Continue is one use, counted once: 20 phones on one
    address (a room on the venue's Wi-Fi) each open their player's link and continue within a
    minute, and all 20 join (when the page counted as well, the 11th phone was refused on
    opening its link). The 21st Continue in that minute is refused, and so is opening a link."""
    drive = make_drive(organiser, 21)
    players = list(drive.players.order_by("name"))
    for player in players[:20]:
        phone, link = Client(enforce_csrf_checks=True), f"/{drive.join_code}/p/{player.token}"
        page = text(phone.get(link))
        assert f"This phone will be <bdi>{player.name}</bdi>'s." in page, player.name
        token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page).group(1)
        assert phone.post(link, {"csrfmiddlewaretoken": token})["Location"] == f"/{drive.join_code}/me"
        assert f"<bdi>{player.name}</bdi>" in text(phone.get(f"/{drive.join_code}/me"))
    assert Player.objects.filter(phone_joined_at__isnull=False).count() == 20
    last, link = Client(), f"/{drive.join_code}/p/{players[20].token}"
    for send in (last.post, last.get):  # the 21st Continue, and opening a link, once the 20 are spent
        response = text(send(link, follow=True))
        assert "Too many tries from this phone. Wait a minute and try again." in response
        assert "This phone will be" not in response
    assert last.get(f"/{drive.join_code}/me").status_code == 302
    assert not Player.objects.get(pk=players[20].pk).phone_joined_at


@pytest.mark.usefixtures("mid_minute")
def test_opening_valid_links_gives_a_guesser_no_more_tries(client, organiser):
    """Opening a valid link counts nothing (its Continue does), and that lets no one guess more:
    wrong tokens, opened or continued, are still 20 a minute however many valid pages are seen
    between them; once limited, a valid link is refused like a wrong one, so the limited phone
    cannot tell them apart."""
    drive = make_drive(organiser, 2)
    good = f"/{drive.join_code}/p/{drive.players.first().token}"
    for i in range(20):
        for _ in range(3):  # valid pages between the guesses: not counted
            assert "This phone will be" in text(client.get(good))
        send = client.post if i % 2 else client.get
        assert "no longer valid" in text(send(f"/{drive.join_code}/p/{'x' * 30}{i:02d}", follow=True)), i
    for link in (f"/{drive.join_code}/p/{'y' * 32}", good):
        for send in (client.get, client.post):
            response = text(send(link, follow=True))
            assert "Too many tries from this phone. Wait a minute and try again." in response
            assert "This phone will be" not in response and "no longer valid" not in response
        assert client.head(link)["Location"] == f"/{drive.join_code}"  # limited: as for a wrong token


def test_a_burst_across_the_turn_of_a_minute_is_limited_as_one(client, organiser, monkeypatch):
    """The limit is over a sliding minute: after 20 wrong links in the last second of one minute,
    the first second of the next lets at most one more try in (a fixed minute let 20 more in);
    two minutes later the address may try again."""
    import datetime

    from drive import phone_views

    drive = make_drive(organiser, 2)
    player = drive.players.first()
    start = datetime.datetime(2026, 12, 1, 20, 0, 59, 500000, tzinfo=datetime.timezone.utc)
    clock = {"now": start}
    monkeypatch.setattr(phone_views.timezone, "now", lambda: clock["now"])
    for i in range(20):
        client.get(f"/{drive.join_code}/p/{'x' * 31}{i:01d}")
    clock["now"] = start + datetime.timedelta(seconds=1)  # 20:01:00.5, a new minute
    client.get(f"/{drive.join_code}/p/{'y' * 32}")  # the weighing lets one more through, no more
    assert "Too many tries" in text(client.get(f"/{drive.join_code}/p/{player.token}", follow=True))
    assert client.get(f"/{drive.join_code}/me").status_code == 302
    clock["now"] = start + datetime.timedelta(seconds=121)
    client.post(f"/{drive.join_code}/p/{player.token}")
    assert client.get(f"/{drive.join_code}/me").status_code == 200


def test_revoked_phone_loses_access_and_private_link_moves_it(organiser_client, organiser):
    drive = make_drive(organiser, 3)
    player = drive.players.get(name="P001")
    old_phone = phone_for(drive, player)
    assert old_phone.get(f"/{drive.join_code}/me").status_code == 200
    organiser_client.post(f"/drives/{drive.pk}/phones/{player.pk}/revoke")
    assert old_phone.get(f"/{drive.join_code}/me").status_code == 302
    player.refresh_from_db()
    new_phone = Client()
    new_phone.post(f"/{drive.join_code}/p/{player.token}")
    assert new_phone.get(f"/{drive.join_code}/me").status_code == 200


def test_a_private_link_opened_on_a_phone_that_was_someone_elses_releases_them(organiser):
    """Noticed while building 'Leave this phone': a phone holding Ann that opened Bob's private
    link became Bob's, and Ann stayed marked as joined (her name taken by no phone). The phone
    now leaves Ann first: her name is free again and the phone's old cookie for her opens nothing."""
    drive = make_drive(organiser, 3)
    ann, bob = drive.players.get(name="P001"), drive.players.get(name="P002")
    phone = phone_for(drive, ann)
    anns_cookie = phone.cookies[player_cookie_name(drive)].value
    phone.post(f"/{drive.join_code}/p/{bob.token}")
    assert "P002" in text(phone.get(f"/{drive.join_code}/me"))
    ann.refresh_from_db()
    assert ann.phone_joined_at is None and ann.token != anns_cookie
    other = Client()
    assert other.post(f"/{drive.join_code}/join", {"player": ann.pk})["Location"] == f"/{drive.join_code}/me"


def test_opening_a_private_link_only_says_whose_the_phone_will_be(organiser):
    """A messenger's link preview or a mail scanner fetches a private link (GET, HEAD, OPTIONS):
    that once marked the player joined and, from a client holding another player, signed that
    player's phone out. Opening the link now shows whose the phone will be, writing nothing;
    its "Continue" (a POST, with the CSRF token the page gives) does it."""
    drive = make_drive(organiser, 3)
    ann, bob = drive.players.get(name="P001"), drive.players.get(name="P002")
    link = f"/{drive.join_code}/p/{ann.token}"
    bobs_phone = phone_for(drive, bob)
    Player.objects.filter(pk=bob.pk).update(phone_joined_at=timezone.now())
    before = list(Player.objects.order_by("pk").values("token", "phone_joined_at", "active"))
    fresh = Client(enforce_csrf_checks=True)
    page = text(fresh.get(link))
    assert "This phone will be <bdi>P001</bdi>'s." in page and "Continue as <bdi>P001</bdi>" in page
    assert "Not <bdi>P001</bdi>?" in page and f'action="{link}"' in page
    assert "signs" not in page  # this phone holds nobody
    assert f"ff_{drive.join_code}" not in fresh.cookies
    page = text(bobs_phone.get(link))
    assert "This phone is <bdi>P002</bdi>'s now: continuing signs <bdi>P002</bdi> out of it." in page
    assert bobs_phone.head(link).status_code == 200
    assert bobs_phone.options(link).status_code == 405
    assert fresh.post(link).status_code == 403  # no CSRF token: refused like every phone form
    assert list(Player.objects.order_by("pk").values("token", "phone_joined_at", "active")) == before
    assert bobs_phone.get(f"/{drive.join_code}/me").status_code == 200  # Bob's phone is still Bob's

    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', text(fresh.get(link))).group(1)
    response = fresh.post(link, {"csrfmiddlewaretoken": token})
    assert response.status_code == 302 and response["Location"] == f"/{drive.join_code}/me"
    ann.refresh_from_db()
    assert ann.phone_joined_at is not None and fresh.cookies[f"ff_{drive.join_code}"].value == ann.token
    assert fresh.get(link)["Location"] == f"/{drive.join_code}/me"  # opened again on Ann's phone: her page


def test_the_phones_page_offers_to_sign_out_only_phones_that_joined(organiser_client, organiser):
    """A player whose phone has not joined has no phone to sign out: the button gives them a new
    private link (the old one stops working), and says so."""
    import re

    drive = make_drive(organiser, 3)
    joined = drive.players.get(name="P001")
    Client().post(f"/{drive.join_code}/p/{joined.token}")  # its phone opens the private link and continues
    joined.refresh_from_db()
    assert joined.phone_joined_at is not None
    page = text(organiser_client.get(f"/drives/{drive.pk}/phones"))
    rows = {name: row for row in page.split("<tr>")[2:] for name in re.findall(r"<td><bdi>(P00\d)</bdi>", row)}
    assert "Sign phone out" in rows["P001"] and "New private link" not in rows["P001"]
    assert "New private link" in rows["P002"] and "Sign phone out" not in rows["P002"]
    other = drive.players.get(name="P002")
    page = text(organiser_client.post(f"/drives/{drive.pk}/phones/{other.pk}/revoke", follow=True))
    assert "<bdi>P002</bdi> has a new private link (the old one no longer works)" in page


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


def test_entered_result_is_confirmed_by_another_player(table_of_four):
    drive, table, players = table_of_four
    ann, bob = phone_for(drive, players[0]), phone_for(drive, players[1])
    response = ann.post(f"/{drive.join_code}/enter", entry_data(4, 2, by=players[0]))
    assert response.status_code == 302
    result = Result.objects.get()
    assert result.status == "entered" and result.entered_by == players[0]
    assert not result.scores.filter(counted=True).exists()
    bob.post(f"/{drive.join_code}/confirm", {**shown_for(players[1]), "seen_revision": result.revision})
    result.refresh_from_db()
    table.refresh_from_db()
    assert result.status == "confirmed" and result.confirmed_by == players[1]
    assert table.status == TableHand.Status.CONFIRMED
    assert result.scores.filter(counted=True).count() == 4


def test_a_player_cannot_confirm_their_own_entry(table_of_four):
    drive, table, players = table_of_four
    ann = phone_for(drive, players[0])
    ann.post(f"/{drive.join_code}/enter", entry_data(4, 2, by=players[0]))
    response = ann.post(f"/{drive.join_code}/confirm", {**shown_for(players[0]), "seen_revision": 1}, follow=True)
    assert "Another player at your table must confirm" in text(response)
    assert Result.objects.get().status == "entered"


def test_a_player_of_another_table_cannot_confirm(organiser):
    drive = seated_drive(organiser, 8)
    t1, t2 = drive.hands.get().tables.order_by("number")
    phone_for(drive, seat_players(t1)[0]).post(f"/{drive.join_code}/enter", entry_data(4, 0, by=seat_players(t1)[0]))
    stranger = phone_for(drive, seat_players(t2)[0])
    stranger.post(f"/{drive.join_code}/confirm", {**shown_for(seat_players(t2)[0], table=2), "seen_revision": 1})
    assert Result.objects.get().status == "entered"  # t2 has no entry; t1's is untouched


def test_forged_confirmation_without_a_token_changes_nothing(table_of_four, client):
    drive, table, players = table_of_four
    phone_for(drive, players[0]).post(f"/{drive.join_code}/enter", entry_data(4, 2, by=players[0]))
    client.cookies[f"ff_{drive.join_code}"] = "forged-token"
    client.post(f"/{drive.join_code}/confirm", {**shown_for(players[1]), "seen_revision": 1})
    assert Result.objects.get().status == "entered"


def test_confirmed_result_is_locked_for_players(table_of_four):
    drive, table, players = table_of_four
    phone_for(drive, players[0]).post(f"/{drive.join_code}/enter", entry_data(4, 2, by=players[0]))
    phone_for(drive, players[1]).post(f"/{drive.join_code}/confirm", {**shown_for(players[1]), "seen_revision": 1})
    response = phone_for(drive, players[2]).post(f"/{drive.join_code}/enter", entry_data(4, 3, key="k2", seen=1, by=players[2]))
    assert "Only the organiser can change it" in text(response)
    assert Result.objects.get().winner == players[2]


def test_the_entry_page_of_a_confirmed_or_disputed_result_shows_no_form_to_send(table_of_four):
    """Opened again (the back button, an old tab), the entry page of a result that is no longer
    the players' to change says why, on the phone's page, instead of a form whose answers
    "replace it until someone confirms" and are then refused."""
    drive, table, players = table_of_four
    enter = f"/{drive.join_code}/enter"
    phone_for(drive, players[0]).post(enter, entry_data(4, 2, by=players[0]))
    still_open = text(phone_for(drive, players[1]).get(enter, follow=True))  # entered: may still be corrected
    assert "Send the result" in still_open and "your answers replace it" in still_open
    phone_for(drive, players[3]).post(f"/{drive.join_code}/dispute", {**shown_for(players[3]), "seen_revision": 1,
                                                                   "reason": "Cy had 9 cards"})
    response = phone_for(drive, players[0]).get(enter, follow=True)
    assert response.redirect_chain[-1][0] == f"/{drive.join_code}/me"
    page = text(response)
    assert "Table 1's result is disputed: the organiser will settle it." in page and "Send the result" not in page
    services.organiser_result(drive, table, declared(4, 3), drive.organiser, reason="the table agrees", seen_revision=1)
    settled = Result.objects.get()
    assert settled.status == Result.Status.CONFIRMED
    page = text(phone_for(drive, players[2]).get(enter, follow=True))
    assert "Only the organiser can change it now." in page and "Send the result" not in page
    assert Result.objects.get().revision == settled.revision  # nothing written


def test_dispute_shows_on_the_dashboard(table_of_four, organiser_client):
    drive, table, players = table_of_four
    phone_for(drive, players[0]).post(f"/{drive.join_code}/enter", entry_data(4, 2, by=players[0]))
    phone_for(drive, players[3]).post(f"/{drive.join_code}/dispute", {**shown_for(players[3]), "seen_revision": 1,
                                                                   "reason": "Cy had 9 cards"})
    page = text(organiser_client.get(f"/drives/{drive.pk}/"))
    assert "Disputed" in page and "Cy had 9 cards" in page


def test_repeated_submission_is_recorded_once(table_of_four):
    drive, table, players = table_of_four
    ann = phone_for(drive, players[0])
    for _ in range(3):
        ann.post(f"/{drive.join_code}/enter", entry_data(4, 2, key="same-key", by=players[0]))
    result = Result.objects.get()
    assert result.revision == 1 and result.scores.count() == 4


def test_two_phones_editing_at_once_are_told_which_version_won(table_of_four):
    drive, table, players = table_of_four
    phone_for(drive, players[0]).post(f"/{drive.join_code}/enter", entry_data(4, 2, key="a", by=players[0]))
    # Bob opened the form before Ann's entry arrived (seen_revision 0) and sends his own.
    response = phone_for(drive, players[1]).post(f"/{drive.join_code}/enter", entry_data(4, 3, key="b", seen=0, by=players[1]))
    assert "withdrawn" not in text(response)
    assert f"\u2068{players[0].name}\u2069 sent Table 1's result first" in text(response)
    assert Result.objects.get().winner == players[2]


@pytest.mark.parametrize("change,message", [
    ({"declarer": "7"}, "Select a valid choice"),
    ({"declarer": ""}, "Choose one"),
    ({"seat1_ice": "joker", "nine_card": "True"}, "Joker"),
    ({"seat1_ice": "joker", "seat2_ice": "joker"}, "Joker"),
    ({"seat1_sets": "9"}, "Select a valid choice"),
    ({"seat0_ice": "five", "nine_card": "False"}, "a hand ends with 11"),
    ({"client_key": "bad key!"}, "malformed"),
])
def test_impossible_entries_are_refused_with_a_reason(table_of_four, change, message):
    drive, table, players = table_of_four
    data = {**entry_data(4, 0, by=players[0]), **change}
    response = phone_for(drive, players[0]).post(f"/{drive.join_code}/enter", data)
    assert response.status_code == 200
    assert message in text(response)
    assert not Result.objects.exists()


def test_who_dealt_is_asked_with_no_seat_chosen_and_an_entry_without_it_is_refused(table_of_four):
    """The dealer is drawn at the table before every hand (docs/rules.md), so the server cannot
    know it: the question comes with no seat chosen. With the first seat chosen in advance an
    entry sent unread recorded it, and when nobody declared it decides who moves up. Missing,
    the entry is refused, saying what to answer (the page marks the question; a phone that sent
    it without the page is told the same in JSON)."""
    drive, table, players = table_of_four
    phone = phone_for(drive, players[0])
    page = phone.get(f"/{drive.join_code}/enter").content.decode()
    dealer = re.search(r'<fieldset class="field" data-field="dealer">.*?</fieldset>', page, re.S).group(0)
    assert dealer.count('type="radio"') == 4 and "checked" not in dealer
    data = entry_data(4, "none", by=players[0])
    data.update(seat2_sets="1", seat3_sets="1")  # nobody declared; seats 2 and 3 tie on 5
    del data["dealer"]
    response = phone.post(f"/{drive.join_code}/enter", data)
    assert response.status_code == 200 and not Result.objects.exists()
    page = text(response)
    assert "Who dealt? Say who dealt: tap their name." in page
    assert '<fieldset class="field invalid" data-field="dealer">' in page
    answer = phone.post(f"/{drive.join_code}/enter", data, HTTP_ACCEPT="application/json")
    assert answer.status_code == 400 and "dealer" in answer.json()["errors"]
    assert answer.json()["message"] == "Who dealt? Say who dealt: tap their name."
    assert not Result.objects.exists()
    # Answered, it decides the tie: the third seat dealt, so the fourth (on its left) moves up.
    phone.post(f"/{drive.join_code}/enter", {**data, "dealer": "2"})
    assert Result.objects.get().mover == players[3]


def test_preview_computes_points_from_the_rules(table_of_four):
    drive, table, players = table_of_four
    data = entry_data(4, 0, nine=True, by=players[0])
    data["seat1_sets"] = "1"
    response = phone_for(drive, players[0]).post(f"/{drive.join_code}/preview", data)
    assert [row["points"] for row in response.json()["points"]] == [25, 5, 0, 0]
    data["seat2_ice"] = "joker"
    response = phone_for(drive, players[0]).post(f"/{drive.join_code}/preview", data)
    assert response.status_code == 400 and "Joker" in response.json()["message"]
    assert "incomplete" not in response.json()  # a contradiction: the form shows it as an error
    del data["declarer"]
    response = phone_for(drive, players[0]).post(f"/{drive.join_code}/preview", data)
    # Not answered yet: a hint, and no 400 (an error in the browser's console on every form opened)
    assert response.status_code == 200 and response.json()["incomplete"] is True


def test_json_submission_answers_in_json(table_of_four):
    drive, table, players = table_of_four
    response = phone_for(drive, players[0]).post(
        f"/{drive.join_code}/enter", entry_data(4, 1, by=players[0]), HTTP_ACCEPT="application/json"
    )
    assert response.json()["ok"] is True


def test_an_entry_reads_each_thing_once_per_step_and_its_message_is_the_tables_as_read_after(
    table_of_four, monkeypatch, django_capture_on_commit_callbacks
):
    """The hall's burst of results: each entry's queries are what keeps the others waiting
    (SQLite's one writer, the drive's lock; the server's two cores). Before the lock: the drive,
    the player, the hand, the table's seats with the table and its players (the form is checked
    against them); under it the drive, the key, the hand (still the one whose table and seats
    were read), the table's result, then for the result's message the hand's statuses and the seated players' totals:
    nothing else. An entry counts for no one until it is confirmed: its message ranks no one."""
    from drive import live

    drive, table, players = table_of_four
    sent = []
    monkeypatch.setattr(live, "publish", lambda drive_id: None)  # the full update: built after the answer
    monkeypatch.setattr(live, "send_result_delta", lambda delta, *_: sent.append(delta))
    with CaptureQueriesContext(connection) as ctx, django_capture_on_commit_callbacks(execute=True):
        response = phone_for(drive, players[0]).post(
            f"/{drive.join_code}/enter", entry_data(4, 1, by=players[0]), HTTP_ACCEPT="application/json"
        )
    assert response.json()["ok"] is True
    selects = [q["sql"] for q in ctx.captured_queries if q["sql"].lstrip().upper().startswith("SELECT")]
    assert len(selects) <= 11, "\n".join(selects)
    assert sent == [live.result_delta(TableHand.objects.get(pk=table.pk), places=False)]
    assert sent[0]["current"] is True and set(sent[0]["totals"]) == {str(p.pk) for p in players}
    assert sent[0]["ranks"] == []


def test_a_confirmations_message_says_everybodys_place_as_committed(
    table_of_four, monkeypatch, django_capture_on_commit_callbacks
):
    """A confirmation counts the result: its message carries every player's new place (the one
    ranking, read once the confirmation has committed) and the seated players' new totals."""
    from drive import live
    from drive.selectors import standings

    drive, table, players = table_of_four
    sent = []
    monkeypatch.setattr(live, "send_result_delta", lambda delta, *_: sent.append(delta))
    with django_capture_on_commit_callbacks(execute=True):
        phone_for(drive, players[0]).post(f"/{drive.join_code}/enter", entry_data(4, 1, by=players[0]))
    result = Result.objects.get()
    with django_capture_on_commit_callbacks(execute=True):
        phone_for(drive, players[1]).post(f"/{drive.join_code}/confirm",
                                          {**shown_for(players[1]), "seen_revision": result.revision})
    assert [d["status"] for d in sent] == ["entered", "confirmed"]
    ranked = standings(drive)
    assert sent[1]["ranks"] == [[str(r.row.player_id), r.label] for r in ranked]
    assert {pid: t["total"] for pid, t in sent[1]["totals"].items()} == {str(r.row.player_id): r.total for r in ranked}
    assert any(t["total"] for t in sent[1]["totals"].values())


def test_board_is_public_and_shows_standings_and_qr(client, organiser):
    drive = seated_drive(organiser, 8)
    page = text(client.get(f"/{drive.join_code}/board"))
    assert "<svg" in page and drive.join_code in page and "0 of 2 tables done" in page
    # Equal totals on different ranks puzzled the room (a new-user check): the board says why.
    assert "Level on points? More declarations first, then more nine-card ones." in page


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
    assert "the standings since hand 2 are a secret until the end" in on_phone
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
    services.show_prizes(drive, True)
    page = text(client.get(f"/{drive.join_code}/board"))
    assert "Standings after hand" not in page and "Winner" in page
    on_phone = text(phone.get(f"/{drive.join_code}/me"))
    assert "You won" in on_phone or "You finished" in on_phone or "You share first place" in on_phone


def test_prize_giving_view(client, organiser, organiser_client):
    drive = seated_drive(organiser, 4, target="hands", target_hands=1)
    services.organiser_result(drive, drive.hands.get().tables.get(), declared(4, 0), organiser)
    services.close_hand(drive)
    organiser_client.post(f"/drives/{drive.pk}/prizes", {"show": "1"})
    page = text(client.get(f"/{drive.join_code}/board"))
    assert "Booby prize" in page and "Winner" in page


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
    services.close_hand(drive)
    page = text(client.get(f"/{drive.join_code}/board"))
    assert f'<span class="mv-up">↑<bdi>{up}</bdi></span>' in page
    assert f'<span class="mv-down">↓<bdi>{down}</bdi></span>' in page


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


def test_error_pages_say_what_to_do(client, organiser, settings):
    """With DEBUG off: a wrong code or address gets the app's page with its message, a form
    sent without its CSRF cookie a page saying to reload (not Django's technical ones)."""
    from django.test import Client

    settings.DEBUG = False
    drive = make_drive(organiser, 2)
    missing = client.get("/ZZZZZ")
    assert missing.status_code == 404 and "No drive has that code." in text(missing)
    assert "There is no page at this address." in text(client.get("/no/such/page/here"))
    strict = Client(enforce_csrf_checks=True)
    refused = strict.post(f"/{drive.join_code}/join", {"player": drive.players.first().pk})
    assert refused.status_code == 403 and "reload the page and send it again" in text(refused)


# --- A form is for one hand and one table: stale or unnamed ones are refused, nothing written ---


def _hand_two(organiser):
    """Hand 1 of eight players played and closed; hand 2 started. Returns the drive, a player who
    sat at Table 1 in hand 1 (as their hand-1 forms named it) and their table in hand 2."""
    from tests.factories import finish_all_tables

    drive = seated_drive(organiser, 8)
    player = seat_players(drive.hands.get().tables.get(number=1))[0]
    finish_all_tables(drive, organiser)
    services.close_hand(drive)
    services.start_hand(drive)
    table_now = TableHand.objects.get(hand__number=2, seats__player=player)
    return drive, player, table_now


def test_an_entry_shown_for_a_hand_now_over_is_refused_and_changes_nothing(organiser):
    from tests.security.conftest import snapshot

    drive, player, table_now = _hand_two(organiser)
    before = snapshot()
    old = entry_data(4, 1, key="held-over", hand=1, table=1, by=player)  # the body a hand-1 page held (or queued)
    answer = phone_for(drive, player).post(f"/{drive.join_code}/enter", old, HTTP_ACCEPT="application/json")
    assert answer.status_code == 409 and answer.json()["stale"] is True and answer.json()["ok"] is False
    assert answer.json()["message"].startswith("This was for hand 1, which is over: hand 2 has started.")
    assert "Look at your table now" in answer.json()["message"]
    response = phone_for(drive, player).post(f"/{drive.join_code}/enter", old, follow=True)
    assert "This was for hand 1, which is over" in text(response)
    assert response.redirect_chain[-1][0] == f"/{drive.join_code}/me"
    assert snapshot() == before
    assert not Result.objects.filter(table__hand__number=2).exists()
    # The same answers for the hand and table the player is at now are recorded.
    mine = entry_data(table_now.seats.count(), 1, key="fresh", hand=2, table=table_now.number, by=player)
    answer = phone_for(drive, player).post(f"/{drive.join_code}/enter", mine, HTTP_ACCEPT="application/json")
    assert answer.json()["ok"] is True
    assert Result.objects.get(table=table_now).entered_by == player


def test_an_entry_shown_before_the_seating_of_the_next_hand_is_refused(organiser):
    from tests.factories import finish_all_tables

    drive = seated_drive(organiser, 4)
    player = seat_players(drive.hands.get().tables.get())[0]
    finish_all_tables(drive, organiser)
    services.close_hand(drive)  # hand 2's seating shown, not started
    answer = phone_for(drive, player).post(f"/{drive.join_code}/enter", entry_data(4, 1, key="x", hand=1, by=player),
                                           HTTP_ACCEPT="application/json")
    assert answer.status_code == 409 and answer.json()["stale"] is True
    assert "the seating for hand 2 is shown" in answer.json()["message"]
    assert Result.objects.count() == 1  # hand 1's only


def test_an_entry_for_another_table_or_naming_none_is_refused(table_of_four, organiser):
    drive, table, players = table_of_four
    ann = phone_for(drive, players[0])
    answer = ann.post(f"/{drive.join_code}/enter", entry_data(4, 1, table=2, by=players[0]), HTTP_ACCEPT="application/json")
    assert answer.status_code == 409 and answer.json()["stale"] is True
    assert "This was for Table 2, but you are at Table 1 in hand 1" in answer.json()["message"]
    for missing in ("hand", "table"):  # a page loaded before forms said what they were for
        data = {k: v for k, v in entry_data(4, 1, by=players[0]).items() if k != missing}
        answer = ann.post(f"/{drive.join_code}/enter", data, HTTP_ACCEPT="application/json")
        assert answer.status_code == 409 and answer.json()["stale"] is True
        assert "does not say which hand it was for" in answer.json()["message"]
        response = ann.post(f"/{drive.join_code}/enter", {**data, "hand": "x" if missing == "hand" else "1"}, follow=True)
        assert "does not say which hand it was for" in text(response)
    assert not Result.objects.exists()


def test_the_entry_page_names_its_hand_table_and_player(table_of_four):
    drive, table, players = table_of_four
    page = phone_for(drive, players[0]).get(f"/{drive.join_code}/enter").content.decode()
    assert '<input type="hidden" name="hand" value="1"><input type="hidden" name="table" value="1">' in page
    assert shown_on(page) == shown_for(players[0])  # and the player it is shown to
    assert f'data-for="{drive.join_code}:{players[0].pk}" data-hand="1" data-table="1"' in page


def test_a_confirmation_shown_for_an_earlier_hand_does_not_confirm_the_next_hands_entry(organiser):
    drive, player, table_now = _hand_two(organiser)
    other = next(p for p in seat_players(table_now) if p != player)
    n = table_now.seats.count()
    phone_for(drive, other).post(f"/{drive.join_code}/enter", entry_data(n, 0, key="h2", hand=2, table=table_now.number, by=other))
    result = Result.objects.get(table=table_now)
    assert result.revision == 1 and result.status == "entered"
    me = phone_for(drive, player)
    for stale in (shown_for(player), {}):  # a hand-1 page's confirm; a page from before forms said
        response = me.post(f"/{drive.join_code}/confirm", {**stale, "seen_revision": 1}, follow=True)
        assert "Nothing was saved. Look at your table now." in text(response)
        response = me.post(f"/{drive.join_code}/dispute", {**stale, "seen_revision": 1, "reason": "no"}, follow=True)
        assert "Nothing was saved. Look at your table now." in text(response)
        result.refresh_from_db()
        assert result.status == "entered" and result.confirmed_by is None
    assert "This was for hand 1, which is over: hand 2 has started." in text(
        me.post(f"/{drive.join_code}/confirm", {**shown_for(player), "seen_revision": 1}, follow=True))
    # The page of hand 2 names hand 2 and this table; its confirmation counts.
    page = me.get(f"/{drive.join_code}/me").content.decode()
    assert f'name="hand" value="2"><input type="hidden" name="table" value="{table_now.number}"' in page
    assert shown_on(page) == shown_for(player, 2, table_now.number)
    me.post(f"/{drive.join_code}/confirm", {**shown_for(player, 2, table_now.number), "seen_revision": 1})
    result.refresh_from_db()
    assert result.status == "confirmed" and result.confirmed_by == player


# --- A form is for the player it was shown to: another player's, or naming none, is refused ---
# A phone changes hands ("Leave this phone", then someone else joins on it): what the first
# player's page sends afterwards (an entry queued offline, a tab left open) must not act for the
# next player, or the first could confirm an entry recorded as the next one's.

ANOTHER_PLAYERS = "This was sent from a page shown to another player on this phone. Nothing was saved."


def test_an_entry_naming_another_player_is_refused_and_writes_nothing(table_of_four):
    from tests.security.conftest import snapshot

    drive, table, players = table_of_four
    ann, bob = players[0], players[1]
    before = snapshot()
    answer = phone_for(drive, bob).post(f"/{drive.join_code}/enter", entry_data(4, 1, by=ann),
                                        HTTP_ACCEPT="application/json")
    assert answer.status_code == 409 and answer.json() == {
        "ok": False, "stale": True, "player": True, "message": ANOTHER_PLAYERS + " Look at your table now."}
    response = phone_for(drive, bob).post(f"/{drive.join_code}/enter", entry_data(4, 1, by=ann), follow=True)
    assert ANOTHER_PLAYERS in text(response) and response.redirect_chain[-1][0] == f"/{drive.join_code}/me"
    assert snapshot() == before


def test_an_entry_queued_by_a_player_who_left_the_phone_is_not_recorded_as_the_next_players(table_of_four):
    """The hole: Ann's entry, kept on the phone unsent, then Ann leaves the phone and Bob (same
    table, same hand) joins on it; re-sent with Bob's cookie it was recorded as Bob's entry, and
    Ann, on another phone, could confirm it: one person both entering and confirming."""
    from tests.security.conftest import snapshot

    drive, table, players = table_of_four
    ann, bob = players[0], players[1]
    phone = Client()
    phone.post(f"/{drive.join_code}/join", {"player": ann.pk})
    page = phone.get(f"/{drive.join_code}/enter").content.decode()
    queued = {**entry_data(4, 1, key="queued-by-ann", by=ann), **shown_on(page)}  # the body Ann's form holds
    phone.post(f"/{drive.join_code}/forget")
    phone.post(f"/{drive.join_code}/join", {"player": bob.pk})
    assert phone.cookies[player_cookie_name(drive)].value == Player.objects.get(pk=bob.pk).token
    before = snapshot()
    answer = phone.post(f"/{drive.join_code}/enter", queued, HTTP_ACCEPT="application/json")
    assert answer.status_code == 409 and answer.json()["player"] is True
    assert answer.json()["message"].startswith(ANOTHER_PLAYERS)
    assert snapshot() == before and not Result.objects.exists()
    # So there is nothing of Bob's for Ann to confirm; Bob's own form is recorded as his.
    bobs = {**entry_data(4, 1, key="bobs", by=bob), **shown_on(phone.get(f"/{drive.join_code}/enter").content.decode())}
    assert phone.post(f"/{drive.join_code}/enter", bobs, HTTP_ACCEPT="application/json").json()["ok"] is True
    assert Result.objects.get().entered_by == bob


def test_a_confirmation_or_dispute_naming_another_player_is_refused(table_of_four):
    drive, table, players = table_of_four
    ann, bob, cy = players[:3]
    phone_for(drive, ann).post(f"/{drive.join_code}/enter", entry_data(4, 2, by=ann))
    result = Result.objects.get()
    for named in (cy, ann):  # another confirmer's page; the enterer's own
        response = phone_for(drive, bob).post(f"/{drive.join_code}/confirm", {**shown_for(named), "seen_revision": 1},
                                              follow=True)
        assert ANOTHER_PLAYERS in text(response)
        response = phone_for(drive, bob).post(f"/{drive.join_code}/dispute",
                                              {**shown_for(named), "seen_revision": 1, "reason": "no"}, follow=True)
        assert ANOTHER_PLAYERS in text(response)
        result.refresh_from_db()
        assert result.status == "entered" and result.confirmed_by is None and result.revision == 1


def test_a_form_naming_no_player_is_refused(table_of_four):
    """A page loaded before the forms named their player."""
    from tests.security.conftest import snapshot

    drive, table, players = table_of_four
    ann, bob = players[0], players[1]
    unnamed = {k: v for k, v in entry_data(4, 2, by=ann).items() if k != "player"}
    answer = phone_for(drive, ann).post(f"/{drive.join_code}/enter", unnamed, HTTP_ACCEPT="application/json")
    assert answer.status_code == 409 and answer.json()["stale"] is True and answer.json()["player"] is True
    assert answer.json()["message"] == ("This page is out of date: it does not say whose it was. "
                                        "Nothing was saved. Look at your table now.")
    assert not Result.objects.exists()
    phone_for(drive, ann).post(f"/{drive.join_code}/enter", entry_data(4, 2, by=ann))
    before = snapshot()
    for action in ("confirm", "dispute"):
        response = phone_for(drive, bob).post(f"/{drive.join_code}/{action}",
                                              {"hand": "1", "table": "1", "seen_revision": 1, "reason": "no"},
                                              follow=True)
        assert "it does not say whose it was" in text(response)
    assert snapshot() == before


@pytest.mark.parametrize("rank,tied,said", [(1, False, "1st"), (2, True, "joint 2nd"), (3, False, "3rd"),
                                            (11, False, "11th"), (12, True, "joint 12th"), (21, False, "21st"),
                                            (103, False, "103rd"), (113, False, "113th")])
def test_a_place_is_said_as_a_sentence_says_it(rank, tied, said):
    """Found by a new-user check: "5 points · =19 of 24" on the phone was terse."""
    from types import SimpleNamespace

    from drive.templatetags.drive_tags import place

    assert place(SimpleNamespace(rank=rank, tied=tied)) == said


def test_a_player_who_cannot_scan_types_the_code_from_the_sign_in_page(client, organiser):
    drive = seated_drive(organiser, 4)
    page = text(client.get("/login/"))
    assert 'action="/join"' in page and "type the drive's code" in page
    response = client.get("/join", {"code": f" {drive.join_code.lower()} "})
    assert response.status_code == 302 and response["Location"] == f"/{drive.join_code}"
    unknown = client.get("/join", {"code": "ZZZZZ"})
    assert unknown.status_code == 404 and "No drive has the code" in text(unknown)
    assert client.get("/join").status_code == 200
