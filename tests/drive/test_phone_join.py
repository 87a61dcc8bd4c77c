"""Joining a drive on a phone: the join code, picking or typing a name, who may join (and join
again), and the error pages a phone may meet."""

from __future__ import annotations

import pytest
from django.test import Client
from django.utils import timezone

from drive import services
from drive.access import PHONE_COOKIE, player_cookie_name
from drive.models import Player
from tests.drive.phones_support import phone_for, text
from tests.factories import make_drive, seated_drive

pytestmark = pytest.mark.django_db


def test_join_code_is_case_insensitive_and_lists_names(client, organiser):
    drive = make_drive(organiser, 3)
    response = client.get(f"/{drive.join_code.lower()}")
    assert response.status_code == 302 and response["Location"] == f"/{drive.join_code}"
    page = text(client.get(f"/{drive.join_code}"))
    assert "P001" in page and "P003" in page
    # In the order people look for their names: accents and case aside ("Élodie" came after
    # "P003", by the letters' codes).
    services.add_players(drive, ["\u00c9lodie", "zed"])
    page = text(client.get(f"/{drive.join_code}"))
    assert page.index("\u00c9lodie") < page.index("P001") < page.index("P003") < page.index("zed")


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


def _phone_whose_answer_is_lost(drive) -> Client:
    """A phone that opened the join page (given its own cookie, ``PHONE_COOKIE``) and whose
    join's answer, with the player's cookie, never arrives (the hall's Wi-Fi): the test throws
    the player's cookie away after each join."""
    phone = Client()
    phone.get(f"/{drive.join_code}")
    assert phone.cookies[PHONE_COOKIE]["httponly"]
    return phone


def _joins(phone, drive, data) -> str | None:
    """The player's token the phone was given for this join, or None; the cookie thrown away."""
    response = phone.post(f"/{drive.join_code}/join", data)
    given = phone.cookies.pop(player_cookie_name(drive), None)
    assert (response["Location"] == f"/{drive.join_code}/me") == (given is not None)
    return given.value if given is not None else None


def test_a_join_sent_again_by_the_same_phone_gets_its_player_back(organiser):
    """Found by probing: a phone whose join's answer was lost (or a name tapped twice) was told
    the name was already joined on a phone, by its own first join, and only the organiser's
    private link could let it in. The same phone (its own random cookie, HttpOnly) gets its
    player back for a while, tapped or typed, nothing written; no other phone does, not even
    one that knows the phone's CSRF token (which pages show)."""
    drive = make_drive(organiser, 3, allow_self_join=True)
    ben = drive.players.get(name="P002")
    phone = _phone_whose_answer_is_lost(drive)
    assert _joins(phone, drive, {"player": ben.pk}) == _joins(phone, drive, {"player": ben.pk}) == ben.token
    joined_at = Player.objects.get(pk=ben.pk).phone_joined_at
    other = _phone_whose_answer_is_lost(drive)
    other.cookies["csrftoken"] = phone.cookies["csrftoken"].value
    assert "already joined on a phone" in text(other.post(f"/{drive.join_code}/join", {"player": ben.pk}, follow=True))
    assert player_cookie_name(drive) not in other.cookies
    assert Player.objects.get(pk=ben.pk).phone_joined_at == joined_at  # the repeat wrote nothing

    assert _joins(phone, drive, {"new_name": "Zoë"}) == _joins(phone, drive, {"new_name": "zoë"}) is not None
    assert drive.players.filter(name="Zoë").count() == 1 and drive.players.count() == 4
    type(drive).objects.filter(pk=drive.pk).update(allow_self_join=False)  # turned off since: still theirs
    assert _joins(phone, drive, {"new_name": "Zoë"}) == drive.players.get(name="Zoë").token
    assert _joins(other, drive, {"new_name": "Zoë"}) is None

    # Not for ever: ten minutes after the join, the name is taken, as for any phone.
    Player.objects.filter(pk=ben.pk).update(phone_joined_at=timezone.now() - services.JOIN_AGAIN_WITHIN)
    assert _joins(phone, drive, {"player": ben.pk}) is None


def test_a_phone_signed_out_taken_out_or_left_does_not_get_its_player_back(organiser):
    drive = make_drive(organiser, 4)
    ann, ben, cy = drive.players.order_by("name")[:3]
    phones = {}
    for player in (ann, ben, cy):
        phones[player.pk] = _phone_whose_answer_is_lost(drive)
        assert _joins(phones[player.pk], drive, {"player": player.pk}) == player.token
    services.revoke_phone(drive, Player.objects.get(pk=ann.pk))  # signed out: only the private link now
    page = text(phones[ann.pk].post(f"/{drive.join_code}/join", {"player": ann.pk}, follow=True))
    assert "only <bdi>P001</bdi>'s private link joins as them now" in page
    services.withdraw_player(drive, Player.objects.get(pk=ben.pk))  # taken out of the drive
    page = text(phones[ben.pk].post(f"/{drive.join_code}/join", {"player": ben.pk}, follow=True))
    assert "Pick your name from the list." in page and player_cookie_name(drive) not in phones[ben.pk].cookies
    assert services.leave_phone(drive, Player.objects.get(pk=cy.pk)) is False  # left: the name is free again
    assert Player.objects.get(pk=ann.pk).phone_key == Player.objects.get(pk=cy.pk).phone_key == ""


def test_a_phone_tapping_or_typing_the_name_it_holds_goes_to_its_page(organiser):
    drive = make_drive(organiser, 3, allow_self_join=True)
    ben = drive.players.get(name="P002")
    phone = _phone_whose_answer_is_lost(drive)
    phone.post(f"/{drive.join_code}/join", {"player": ben.pk})
    for again in ({"player": ben.pk}, {"new_name": "p002"}):
        response = phone.post(f"/{drive.join_code}/join", again, follow=True)
        assert response.redirect_chain == [(f"/{drive.join_code}/me", 302)]
        assert "already" not in text(response)


def test_only_the_join_button_is_named_join_once_names_are_on_phones(client, organiser):
    """Found by a scripted run: a name on a phone read "P002 (joined)", so the buttons named
    "Join" (a search for it, a screen reader's list of buttons) were the typed name's and every
    joined name's."""
    import re

    drive = make_drive(organiser, 3, allow_self_join=True)
    Client().post(f"/{drive.join_code}/join", {"player": drive.players.get(name="P002").pk})
    page = text(client.get(f"/{drive.join_code}"))
    buttons = [re.sub(r"<[^>]+>", "", b) for b in re.findall(r"<button[^>]*>(.*?)</button>", page, flags=re.S)]
    assert "P002 (on a phone)" in buttons
    assert [b for b in buttons if "join" in b.lower()] == ["Join"]


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
    response = client.post(f"/{drive.join_code}/join", {"new_name": "\u200b\u200b"}, follow=True)  # nothing to see
    assert "Type your name." in text(response) and "just" not in text(response)
    response = client.post(f"/{drive.join_code}/join", {"new_name": "   "}, follow=True)  # QA: "Pick your name…"
    assert "Type your name." in text(response) and "Pick your name" not in text(response)
    assert drive.players.count() == 3
    assert client.post(f"/{drive.join_code}/join", {"new_name": "John Smith"})["Location"] == f"/{drive.join_code}/me"
    assert drive.players.filter(name="John Smith").exists()


def test_a_bots_name_is_no_persons(client, organiser, organiser_client):
    """Found by a fuzz from outside: a phone joined as "Bot 1", passing for a bot on the board
    and in the standings' CSV (the next real bot was "Bot 3"). "Bot" and a number is the
    server's way of naming its bots: refused, typed on a phone or in the organiser's list;
    other names with "Bot" in them are anyone's."""
    drive = make_drive(organiser, 3, allow_self_join=True)
    for typed in ("Bot 1", "bot2", "BOT 7", "Ｂｏｔ ３"):
        said = text(client.post(f"/{drive.join_code}/join", {"new_name": typed}, follow=True))
        assert "is how the server names its bots: add an initial or another word." in said, typed
    page = text(organiser_client.post(f"/drives/{drive.pk}/players", {"names": "Bot 4\nAnn"}, follow=True))
    assert "Added 1 player: “<bdi>Ann</bdi>”." in page and "is how the server names its bots" in page
    assert sorted(drive.players.values_list("name", flat=True)) == ["Ann", "P001", "P002", "P003"]
    assert client.post(f"/{drive.join_code}/join", {"new_name": "Bot Bobby"})["Location"] == f"/{drive.join_code}/me"


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


def test_a_withdrawn_player_typing_their_name_is_told_to_ask_the_organiser_not_to_add_an_initial(client, organiser):
    """Found by a probe from outside: a player the organiser had taken out typed their name on a
    phone and was told only "Already in this drive: p001. Add an initial to tell them apart.",
    which, followed, makes them a second player with none of their points. The phone now says
    that player has left and to ask the organiser to bring them back; nothing is written."""
    drive = seated_drive(organiser, 8, allow_self_join=True)
    services.withdraw_player(drive, drive.players.get(name="P001"))
    response = client.post(f"/{drive.join_code}/join", {"new_name": "p001"}, follow=True)
    assert ("Already in this drive: <bdi>P001</bdi>, who has left it. If that is you, ask the organiser "
            "to bring you back (your points are kept); if not, add an initial to tell you apart.") in text(response)
    assert drive.players.count() == 8 and not drive.players.get(name="P001").active
    assert player_cookie_name(drive) not in client.cookies


def test_typing_a_name_that_is_on_the_list_says_to_tap_it(client, organiser):
    """Found by a new-user check: typing "p001" (on the list, not joined) was told "Already in
    this drive: p001. Add an initial…": most likely it is that player, who should tap the name."""
    drive = make_drive(organiser, 4, allow_self_join=True)
    response = client.post(f"/{drive.join_code}/join", {"new_name": "p001"}, follow=True)
    assert "<bdi>P001</bdi> is on the list already: if that is you, tap your name in the list." in text(response)
    assert drive.players.count() == 4
    Player.objects.filter(name="P001").update(phone_joined_at=timezone.now())  # joined: then another of that name
    again = Client().post(f"/{drive.join_code}/join", {"new_name": "p001"}, follow=True)
    assert "Already in this drive" in text(again) and drive.players.count() == 4


def test_self_join_only_when_allowed(client, organiser):
    drive = make_drive(organiser, 2)
    response = client.post(f"/{drive.join_code}/join", {"new_name": "Zed"}, follow=True)
    assert "Ask the organiser" in text(response)
    drive.allow_self_join = True
    drive.save()
    client.post(f"/{drive.join_code}/join", {"new_name": "Zed"})
    assert drive.players.filter(name="Zed").exists()
    # The service decides, on the drive as it is under its lock (a page read before the organiser
    # turned it off, and sent after, is refused): not the view on what it read first.
    stale = make_drive(organiser, 2, allow_self_join=True)
    type(stale).objects.filter(pk=stale.pk).update(allow_self_join=False)
    with pytest.raises(services.DriveError, match="Ask the organiser to add your name."):
        services.join_phone(stale, new_name="Yan")
    assert not stale.players.filter(name="Yan").exists()


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


def test_a_player_who_cannot_scan_types_the_code_from_the_sign_in_page(client, organiser):
    drive = seated_drive(organiser, 4)
    page = text(client.get("/login/"))
    assert 'action="/join"' in page and "type the drive's code" in page
    response = client.get("/join", {"code": f" {drive.join_code.lower()} "})
    assert response.status_code == 302 and response["Location"] == f"/{drive.join_code}"
    # The board spaces the code out: typed as shown (a dot or a dash slipped in too), it is found.
    spaced = " ".join(drive.join_code)
    for typed in (spaced, f"{drive.join_code[:3]} {drive.join_code[3:]}.", f"{drive.join_code[:2]}-{drive.join_code[2:]}"):
        response = client.get("/join", {"code": typed})
        assert response.status_code == 302 and response["Location"] == f"/{drive.join_code}", typed
    unknown = client.get("/join", {"code": "ZZZZZ"})
    assert unknown.status_code == 404 and "No drive has the code" in text(unknown)
    assert client.get("/join").status_code == 200
