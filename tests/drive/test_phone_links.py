"""Private links and the join limit: opening a link writes nothing, its Continue moves the phone;
wrong tokens and joins are rate limited over a sliding minute; the organiser signs phones out."""

from __future__ import annotations

import re

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from drive.access import player_cookie_name
from drive.models import Player
from tests.drive.phones_support import phone_for, text
from tests.factories import make_drive, seated_drive

pytestmark = pytest.mark.django_db


@pytest.fixture
def mid_minute(monkeypatch):
    """The limits' clock held in the middle of a minute: a burst that straddles the turn of a
    minute is weighed a little under its count (the sliding minute is an estimate), which made
    these tests fail now and then."""
    import datetime

    from common import ratelimit

    now = datetime.datetime(2026, 12, 2, 9, 0, 30, tzinfo=datetime.timezone.utc)
    monkeypatch.setattr(ratelimit.timezone, "now", lambda: now)


@pytest.mark.usefixtures("mid_minute")
def test_joining_is_rate_limited(client, organiser):
    drive = make_drive(organiser, 2)
    for _ in range(20):
        client.post(f"/{drive.join_code}/join", {"player": "999999"})
    response = client.post(f"/{drive.join_code}/join", {"player": drive.players.first().pk}, follow=True)
    assert "Too many tries" in text(response)


@pytest.mark.usefixtures("mid_minute")
def test_phones_that_join_give_their_try_back(organiser):
    """The limit is for guessing: a room of phones behind one address (a hall's Wi-Fi) joins as
    many as it holds; only the tries that fail count against the 20."""
    drive = make_drive(organiser, 30)
    for player in drive.players.all():
        response = Client().post(f"/{drive.join_code}/join", {"player": player.pk})
        assert response.status_code == 302 and response["Location"].endswith("/me"), player.name
    for _ in range(20):
        Client().post(f"/{drive.join_code}/join", {"player": "999999"})
    assert "Too many tries" in text(Client().post(f"/{drive.join_code}/join", {"new_name": "Zed"}, follow=True))


@pytest.mark.usefixtures("mid_minute")
def test_one_address_joins_at_most_sixty_names_a_minute(organiser, settings):
    """Found by probing: a client throwing its cookie away after each name took every name of a
    drive of 400 in under a minute (or, where phones may add names, added them as fast). One
    address joins at most ``JOINS_PER_ADDRESS`` names a minute (60), told why; another address,
    and the laptop itself, are unaffected; 0 lifts the limit (phones behind one NAT)."""
    most = settings.JOINS_PER_ADDRESS
    assert most == 60
    drive = make_drive(organiser, most + 3)
    players = list(drive.players.order_by("pk"))
    for player in players[:most]:
        assert Client(REMOTE_ADDR="10.0.0.6").post(f"/{drive.join_code}/join", {"player": player.pk})["Location"].endswith("/me")
    refused = text(Client(REMOTE_ADDR="10.0.0.6").post(f"/{drive.join_code}/join", {"player": players[-3].pk}, follow=True))
    assert "Many phones have just joined from this network: wait a minute and try again." in refused
    assert drive.players.filter(phone_joined_at__isnull=False).count() == most
    for address, player in (("10.0.0.7", players[-2]), ("127.0.0.1", players[-1])):
        assert Client(REMOTE_ADDR=address).post(f"/{drive.join_code}/join", {"player": player.pk})["Location"].endswith("/me")
    settings.JOINS_PER_ADDRESS = 0
    assert Client(REMOTE_ADDR="10.0.0.6").post(f"/{drive.join_code}/join", {"player": players[-3].pk})["Location"].endswith("/me")


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

    from common import ratelimit

    drive = make_drive(organiser, 2)
    player = drive.players.first()
    start = datetime.datetime(2026, 12, 1, 20, 0, 59, 500000, tzinfo=datetime.timezone.utc)
    clock = {"now": start}
    monkeypatch.setattr(ratelimit.timezone, "now", lambda: clock["now"])
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
    old_phone = Client()
    assert old_phone.post(f"/{drive.join_code}/join", {"player": player.pk})["Location"] == f"/{drive.join_code}/me"
    assert old_phone.get(f"/{drive.join_code}/me").status_code == 200
    page = text(organiser_client.post(f"/drives/{drive.pk}/phones/{player.pk}/revoke", follow=True))
    assert "<bdi>P001</bdi>'s phone is signed out. Only their new private link, below, joins as them now." in page
    assert "signed out: only the private link joins" in page
    assert old_phone.get(f"/{drive.join_code}/me").status_code == 302
    # The lost phone (or anyone) can no longer tap the name, nor type it, and be them again
    # (it could, landing on the join page with the name free). Nothing changes.
    assert "<bdi>P001</bdi> <span class=\"small\">(private link only)</span>" in text(old_phone.get(f"/{drive.join_code}"))
    refused = text(old_phone.post(f"/{drive.join_code}/join", {"player": player.pk}, follow=True))
    assert f"The organiser signed <bdi>P001</bdi>'s phone out: only <bdi>P001</bdi>'s private link joins" in refused
    drive.allow_self_join = True
    drive.save(update_fields=["allow_self_join"])
    refused = text(old_phone.post(f"/{drive.join_code}/join", {"new_name": "p001"}, follow=True))
    assert "only their private link joins as them now" in refused
    assert old_phone.get(f"/{drive.join_code}/me").status_code == 302
    player.refresh_from_db()
    assert player.phone_joined_at is None and player.link_only and drive.players.count() == 3
    new_phone = Client()
    new_phone.post(f"/{drive.join_code}/p/{player.token}")
    assert new_phone.get(f"/{drive.join_code}/me").status_code == 200
    player.refresh_from_db()
    assert player.phone_joined_at is not None and not player.link_only


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


def test_a_leave_racing_the_organisers_sign_out_leaves_the_name_for_the_private_link(organiser):
    """Found by a review: "Leave this phone" read its player before the organiser's sign-out
    committed, then freed the name again (the lost phone's case). It finds the phone holds
    nobody now and changes nothing."""
    from drive import services

    drive = make_drive(organiser, 3)
    player = drive.players.get(name="P001")
    services.join_phone(drive, player_id=player.pk)
    as_the_phone_read_it = drive.players.get(pk=player.pk)
    services.revoke_phone(drive, drive.players.get(pk=player.pk))
    assert services.leave_phone(drive, as_the_phone_read_it) is False
    player.refresh_from_db()
    assert player.link_only and player.active


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
    # No phone held the name, so it stays free to tap (found by a review: it was kept for the
    # link alone, sending the player to the organiser for nothing).
    other.refresh_from_db()
    assert not other.link_only and "(private link only)" not in text(Client().get(f"/{drive.join_code}"))
    # The QR shown says whose link it is (found in a browser: "Private link", for anyone's).
    assert "<h2><bdi>P002</bdi>’s private link</h2>" in page and "<svg" in page


def test_a_host_whose_port_is_no_port_is_refused_in_one_line(client, organiser, caplog):
    """Found by probing: Django checks a Host header's name, not its port, and the board builds
    its join address and QR code from the Host as sent: a port of 3,000 digits was a server
    error with a traceback (no QR code holds it). A port must be 1-65535; any other is refused
    as a forged Host is, in one line."""
    import logging

    drive = make_drive(organiser, 2)
    for port in ("9" * 3000, "9" * 5000, "65536", "0"):
        caplog.clear()
        with caplog.at_level(logging.WARNING, logger="django.request"):
            response = client.get(f"/{drive.join_code}/board", HTTP_HOST=f"testserver:{port}")
        assert response.status_code == 400 and b"port is not a port" in response.content
        records = [r for r in caplog.records if r.name == "django.request"]
        assert len(records) == 1 and records[0].exc_info is None
    page = text(client.get(f"/{drive.join_code}/board", HTTP_HOST="testserver:8000"))
    assert f"http://testserver:8000/{drive.join_code}" in page


def test_a_join_address_no_qr_code_holds_is_shown_without_one(client, organiser, settings):
    """Where ALLOWED_HOSTS takes any name, a Host of thousands of characters made an address no
    QR code holds: the board was a server error. It shows the address without its QR code."""
    settings.ALLOWED_HOSTS = ["*"]
    drive = make_drive(organiser, 2)
    host = "a" * 60 + "." + "b" * 3000 + ".example"
    response = client.get(f"/{drive.join_code}/board", HTTP_HOST=host)
    assert response.status_code == 200 and f"http://{host}/{drive.join_code}" in text(response)
    assert "<svg" not in text(response)
    assert "<svg" in text(client.get(f"/{drive.join_code}/board", HTTP_HOST="testserver"))


def test_the_private_link_of_a_player_taken_out_says_so_and_writes_nothing(organiser):
    """Found by probing: a withdrawn player's link offered "Continue as …", which marked the
    player joined on the phone and then sent it to the join page, saying twice that the
    organiser had taken them out. Opened or continued, it now says so once and writes nothing;
    brought back, the link works again."""
    from drive import services

    drive = make_drive(organiser, 3)
    ann = drive.players.get(name="P001")
    services.withdraw_player(drive, ann)
    before = list(Player.objects.order_by("pk").values("token", "phone_joined_at", "active"))
    link = f"/{drive.join_code}/p/{ann.token}"
    phone = Client()
    for response in (phone.get(link, follow=True), phone.post(link, follow=True)):
        page = text(response)
        assert page.count("The organiser has taken <bdi>P001</bdi> out of the drive.") == 1, page
        assert "Continue as" not in page and response.redirect_chain[-1][0] == reverse("phone:join", args=[drive.join_code])
    assert f"ff_{drive.join_code}" not in phone.cookies
    assert list(Player.objects.order_by("pk").values("token", "phone_joined_at", "active")) == before
    services.rejoin_player(drive, ann)
    assert "Continue as <bdi>P001</bdi>" in text(phone.get(link))


@pytest.mark.parametrize("host", ["localhost.:8101", "LOCALHOST:8101", "127.0.0.2:8101", "[::1]:8101"])
def test_a_board_opened_at_any_spelling_of_loopback_shows_the_laptops_network_address(client, organiser, settings,
                                                                                     monkeypatch, host):
    """Found by probing: a board opened at "localhost." (Django takes the trailing dot, and
    capitals) showed a join address and QR code with that name, which no phone reaches."""
    from drive import phone_links

    settings.ALLOWED_HOSTS = ["*"]
    monkeypatch.setattr(phone_links, "lan_address", lambda: "192.0.2.7")
    drive = make_drive(organiser, 2)
    page = text(client.get(f"/{drive.join_code}/board", HTTP_HOST=host))
    assert f"http://192.0.2.7:8101/{drive.join_code}" in page
    assert f"http://192.0.2.7:8101/{drive.join_code}" not in text(
        client.get(f"/{drive.join_code}/board", HTTP_HOST="drive.example:8101"))


def test_signing_a_phone_out_asks_first_naming_the_player(organiser_client, organiser):
    """QA: "Sign phone out" signed a player out in one click, even mid-hand, and replaced their
    private link. Its form asks first, naming the player (an apostrophe in the name escaped, not
    ending the question's string) and saying what happens; "New private link" (no phone to stop)
    asks too: the link the player was given stops working."""
    import html

    drive = make_drive(organiser, 2)
    joined = drive.players.get(name="P001")
    joined.name = "Zoë O'Brien"
    joined.save(update_fields=["name"])
    Client().post(f"/{drive.join_code}/p/{joined.token}")  # its phone opens the private link and continues
    page = organiser_client.get(f"/drives/{drive.pk}/phones").content.decode()  # as sent: attributes escaped
    rows = {html.unescape(name): row for row in page.split("<tr>")[2:]
            for name in re.findall(r"<td><bdi>([^<]+)</bdi>", row)}
    asks = [html.unescape(js) for js in re.findall(r'<form [^>]*onsubmit="([^"]*)"', rows["Zoë O'Brien"])]
    assert asks == [
        "return confirm('Sign Zoë O\\u0027Brien\\'s phone out? It stops acting for them at once, even in "
        "the middle of a hand, and their private link changes: the old one no longer works. They can join again "
        "with the new link, shown on this page.')"]
    assert "Sign phone out" in rows["Zoë O'Brien"]
    assert "New private link" in rows["P002"]
    assert [html.unescape(js) for js in re.findall(r'<form [^>]*onsubmit="([^"]*)"', rows["P002"])] == [
        "return confirm('Give P002 a new private link? The one they have now (printed, sent or shown as a "
        "QR code) stops working.')"]


def test_each_qr_code_is_an_image_named_for_what_it_is(client, organiser_client, organiser):
    """QA: the QR codes' SVG (dashboard, board) had no accessible name. Each is an image named for
    what it is: the drive's join code, on the dashboard, the board and the table cards, names the
    drive (escaped: a name may hold quotes); a private link's names its player."""
    drive = seated_drive(organiser, 4, start=False, name='Ann\'s "big" <drive>')  # a table card to print
    player = drive.players.get(name="P001")
    join = '<svg role="img" aria-label="QR code to join Ann&#x27;s &quot;big&quot; &lt;drive&gt;" '
    pages = {path: c.get(path).content.decode() for c, path in [
        (organiser_client, f"/drives/{drive.pk}/"), (client, f"/{drive.join_code}/board"),
        (organiser_client, f"/drives/{drive.pk}/print/tables"), (organiser_client, f"/drives/{drive.pk}/phones?show={player.pk}")]}
    for path, page in list(pages.items())[:3]:
        assert page.count("<svg") == page.count(join) >= 1, path
    phones = pages[f"/drives/{drive.pk}/phones?show={player.pk}"]
    assert phones.count("<svg") == phones.count(
        '<svg role="img" aria-label="QR code of P001\u2019s private link" ') == 1


def test_a_bots_phone_cannot_be_signed_out(organiser, organiser_client):
    """Found by probing: the address of "Sign phone out" made by hand for a bot gave it a new
    token, told its table the seats had changed, and said its link was "below" (none is)."""
    from drive import services

    drive = seated_drive(organiser, 3, start=False, play_mode="digital")
    bot = services.add_bot(drive, drive.hands.get().tables.get().pk)
    token = bot.token
    page = organiser_client.post(f"/drives/{drive.pk}/phones/{bot.pk}/revoke", follow=True).content.decode()
    assert f"<bdi>{bot.name}</bdi> is a bot: it has no phone and no private link." in page
    bot.refresh_from_db()
    assert bot.token == token


def test_a_code_padded_or_not_in_plain_letters_opens_nothing(client, organiser):
    """Found by probing: a code padded with spaces (``/%20%20ABCDE/p/<token>``) opened the page,
    and the log, which leaves out a private link's token, did not know it for one. A code is
    plain letters, in either case; the find form cleans what a player types."""
    drive = make_drive(organiser, 4)
    player = drive.players.first()
    assert client.get(f"/{drive.join_code.lower()}")["Location"] == f"/{drive.join_code}"  # (either case)
    for padded in (f"%20{drive.join_code}", f"{drive.join_code}%20", f"%E2%80%83{drive.join_code}",
                   f"%09{drive.join_code}"):
        assert client.get(f"/{padded}").status_code == 404, padded
        assert client.get(f"/{padded}/p/{player.token}").status_code == 404, padded
    assert client.get("/join", {"code": f"  {drive.join_code.lower()} "}).status_code == 302  # (the find form)
    # Letters of other alphabets whose upper case is plain ("ſ", a long s, is "S"; "ı" is "I"):
    # they opened the drive (found by probing).
    type(drive).objects.filter(pk=drive.pk).update(join_code="MSXIG")
    for lookalike in ("M%C5%BFXIG", "MSX%C4%B1G"):
        assert client.get(f"/{lookalike}").status_code == 404, lookalike
        assert client.get(f"/{lookalike}/board").status_code == 404, lookalike
    assert client.get("/MSXIG/board").status_code == 200


def test_a_message_asked_for_again_and_again_is_kept_once_and_writes_nothing(organiser):
    """Found by probing: a stranger's page that flashes a message, asked for over and over
    without following its redirect, grew the messages' cookie a copy a request until it spilled
    into the session, a row of the database a request, and the join page then showed some 2,000
    copies of the sentence."""
    from django.contrib.sessions.models import Session

    drive = make_drive(organiser, 4)
    stranger = Client()
    stranger.cookies[player_cookie_name(drive)] = "not-a-token-of-this-drive"
    for _ in range(40):
        assert stranger.get(f"/{drive.join_code}/me").status_code == 302
    page = text(stranger.get(f"/{drive.join_code}"))
    assert page.count("This phone is no longer joined to the drive") == 1
    assert not Session.objects.exists()


def test_messages_that_differ_each_time_are_kept_at_most_five(organiser):
    """Found by probing: a phone posting a confirmation of hand 1, 2, 3… (each refused, each
    refusal quoting its hand) grew the messages' cookie until it spilled into the session, a
    row growing a request. The newest five wait; the rest go."""
    from django.contrib.sessions.models import Session

    drive = make_drive(organiser, 4)
    player = drive.players.first()
    phone = Client()
    phone.cookies[player_cookie_name(drive)] = player.token
    for hand in range(1, 61):
        phone.post(f"/{drive.join_code}/confirm", {"hand": str(1000 + hand), "table": "1", "player": str(player.pk)})
    assert len(phone.cookies["messages"].value) < 2000 and not Session.objects.exists()
    shown = re.findall(r'<li class="msg [^"]*">(.*?)</li>', text(phone.get(f"/{drive.join_code}/me")), re.S)
    assert len(shown) == 5 and "1060" in shown[-1], shown
