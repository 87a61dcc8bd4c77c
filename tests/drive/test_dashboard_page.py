"""The organiser's dashboard page: the players' list, table cards, the hand's controls (draw, start,
close, the bell) and the refusal of forms from a stale page."""

from __future__ import annotations

import re

import pytest

from drive import services
from tables.models import Seat
from tests.factories import declared, finish_all_tables, make_drive, seated_drive

pytestmark = pytest.mark.django_db


def test_a_table_where_a_bot_sits_offers_no_switch_to_cards(organiser_client, organiser):
    """Seen playing an evening: a bot's table showed "Play with cards", which can only be
    refused ("a table with a bot plays on the phones"). Its card says why instead; the other
    tables keep their switch."""
    from tables import digital

    drive = seated_drive(organiser, 8, start=False)
    hand = drive.hands.get()
    services.set_table_mode(drive, 1, "digital")
    services.set_table_mode(drive, 2, "digital")
    services.add_bot(drive, hand.tables.get(number=2).pk)
    page = organiser_client.get(f"/drives/{drive.pk}/").content.decode()
    card = {n: re.search(rf'<article[^>]*id="table-{n}".*?</article>', page, re.S).group(0) for n in (1, 2)}
    assert "Play with cards" in card[1]
    assert "Play with cards" not in card[2]
    assert "<bdi>Bot 1</bdi> sits here: a table with a bot plays on the phones." in card[2]
    services.add_bot(drive, hand.tables.get(number=2).pk)  # two bots: both named
    page = organiser_client.get(f"/drives/{drive.pk}/").content.decode()
    card = re.search(r'<article[^>]*id="table-2".*?</article>', page, re.S).group(0)
    assert "<bdi>Bot 1</bdi> and <bdi>Bot 2</bdi> sit here: a table with a bot plays on the phones." in card


def test_paste_names_then_draw_then_play_a_hand(organiser_client, organiser):
    drive = make_drive(organiser, 0)
    organiser_client.post(f"/drives/{drive.pk}/players", {"names": "Ann\nBob\nCy\nDi\nEd\nFay\nGus\nHal"})
    assert drive.players.count() == 8
    organiser_client.post(f"/drives/{drive.pk}/draw", {"hand": "0"})
    organiser_client.post(f"/drives/{drive.pk}/start", {"hand": "1"})
    page = organiser_client.get(f"/drives/{drive.pk}/")
    assert "0 of 2 tables done" in page.content.decode()
    for table in drive.hands.get().tables.all():
        data = {"declarer": "1", "nine_card": "False", "dealer": "0", "seen_revision": "0"}
        for i in range(4):
            data[f"seat{i}_sets"] = "0"
            data[f"seat{i}_ice"] = "none"
        response = organiser_client.post(f"/drives/{drive.pk}/results/{table.pk}", data)
        assert response.status_code == 302
    response = organiser_client.post(f"/drives/{drive.pk}/close", {"hand": "1"}, follow=True)
    assert "seating for hand 2 is shown" in response.content.decode()


def test_close_with_missing_tables_says_which(organiser_client, organiser):
    drive = seated_drive(organiser, 8)
    response = organiser_client.post(f"/drives/{drive.pk}/close", {"hand": "1"}, follow=True)
    assert "Waiting for Tables 1 and 2. Close anyway to record Tables 1 and 2 as not played." in response.content.decode()


def test_closing_asks_before_ringing_the_bell_on_digital_tables_still_playing(organiser_client, organiser):
    """"Close hand" on a hand whose digital tables still play ends them (the bell): the button
    asks first, naming them, on the page and in every push; with none playing it does not ask.
    While a table with cards still waits, it does not ask either: that close is refused, and
    nothing is rung (a tester was asked, said yes, and saw the phones play on)."""
    from drive import pages, selectors
    from tables import digital

    drive = seated_drive(organiser, 8, start=False)
    services.set_table_mode(drive, 2, "digital")
    services.start_hand(drive)

    def close_form() -> list[str]:
        shown = (organiser_client.get(f"/drives/{drive.pk}/").content.decode(),
                 pages.dashboard_parts(selectors.drive_view(drive))["dashboard"])
        return [re.search(r'<form method="post" action="/drives/\d+/close"[^>]*>', html).group(0) for html in shown]

    for form in close_form():
        assert "data-bell" not in form and "confirm(" not in form  # Table 1 (cards) waits
    response = organiser_client.post(f"/drives/{drive.pk}/close", {"hand": 1}, follow=True)
    assert "Waiting for Table 1" in response.content.decode()
    assert drive.hands.get().tables.get(number=2).on_the_phones  # not rung
    services.organiser_result(drive, drive.hands.get().tables.get(number=1), declared(4, 0), organiser)
    for form in close_form():
        assert 'data-bell="2"' in form and "confirm('Table 2 still playing on the phones: ring the bell?" in form
    digital.stop_playing_tables(drive, drive.hands.get())  # table 2's hand is over: nothing left to ring for
    for form in close_form():
        assert "data-bell" not in form and "confirm(" not in form


def test_tables_shown_before_the_hand_starts_are_seated_not_playing(organiser_client, organiser):
    from drive import pages, selectors

    drive = seated_drive(organiser, 8, start=False)
    for html in (organiser_client.get(f"/drives/{drive.pk}/").content.decode(),
                 pages.dashboard_parts(selectors.drive_view(drive))["dashboard"]):
        card = html[html.index('id="table-1"'):]
        card = card[:card.index("</h3>")]
        assert '<span class="badge">Seated</span>' in card and "Playing" not in card
    services.start_hand(drive)
    html = organiser_client.get(f"/drives/{drive.pk}/").content.decode()
    card = html[html.index('id="table-1"'):]
    assert "Playing" in card[:card.index("</h3>")]


def test_the_players_list_is_one_form_whose_buttons_take_a_player_out_or_bring_them_back(organiser_client, organiser):
    drive = make_drive(organiser, 6)
    ann = drive.players.order_by("pk").first()
    page = organiser_client.get(f"/drives/{drive.pk}/").content.decode()
    assert page.count('name="withdraw"') == 6 and f'name="withdraw" value="{ann.pk}"' in page
    assert page.count('name="csrfmiddlewaretoken"') == page.count("<form")  # one token per form, not per player
    url = f"/drives/{drive.pk}/players/presence"
    page = organiser_client.post(url, {"withdraw": str(ann.pk)}, follow=True).content.decode()
    assert "has left the drive" in page and f'name="rejoin" value="{ann.pk}"' in page
    ann.refresh_from_db()
    assert not ann.active
    for bad in ({}, {"withdraw": "x"}, {"rejoin": "-1"}, {"withdraw": "9" * 40}, {"withdraw": "\u00b2"}):
        page = organiser_client.post(url, bad, follow=True).content.decode()
        assert "Press “take out” or “bring back” beside a player" in page, bad
    assert organiser_client.post(url, {"rejoin": "999999"}).status_code == 404  # no such player of this drive
    organiser_client.post(url, {"rejoin": str(ann.pk)})
    ann.refresh_from_db()
    assert ann.active


def test_a_table_card_shows_its_result_points_and_who_declared(organiser_client, organiser):
    drive = seated_drive(organiser, 8)
    table = drive.hands.get().tables.get(number=1)
    services.organiser_result(drive, table, declared(4, 2), organiser)
    page = organiser_client.get(f"/drives/{drive.pk}/").content.decode()
    card = page[page.index('id="table-1"'):page.index('id="table-2"')]
    declarer = table.seats.get(position=2).player.name
    assert f"<bdi>{declarer}</bdi> <strong>15</strong> (declared)" in card
    assert "data-points" not in page[page.index('id="table-2"'):]  # no result there yet
    # Who moves where, as the close will move them, said on the card for every game (
    # a Wonderland card named nobody, and a tie for top score goes by cards taken, then the
    # dealer's left): at the top table the declarer stays, the player on their left goes down.
    left = table.seats.get(position=3).player.name
    assert (f'<p class="small" data-mover><strong><bdi>{declarer}</bdi></strong> stays at the top table · '
            f"<strong><bdi>{left}</bdi></strong> moves down</p>") in card
    last = drive.hands.get().tables.get(number=2)
    services.organiser_result(drive, last, declared(4, 0), organiser)
    page = organiser_client.get(f"/drives/{drive.pk}/").content.decode()
    card = page[page.index('id="table-2"'):]
    mover, below = (last.seats.get(position=k).player.name for k in (0, 1))
    assert (f"<strong><bdi>{mover}</bdi></strong> moves up · <strong><bdi>{below}</bdi></strong> stays at the last "
            "table") in card
    # A player taken out during the hand still sits there until the close: the card says so
    # (it named them as any other).
    gone = last.seats.get(position=3).player
    assert "data-left" not in page
    services.withdraw_player(drive, gone)
    page = organiser_client.get(f"/drives/{drive.pk}/").content.decode()
    card = page[page.index('id="table-2"'):]
    assert (f'<bdi>{gone.name}</bdi> <span class="small muted" data-left>(has left the drive: unseated at the '
            'close)</span>') in card


def test_the_dashboards_hand_forms_carry_the_hand_they_showed(organiser_client, organiser):
    drive = seated_drive(organiser, 8, start=False)
    page = organiser_client.get(f"/drives/{drive.pk}/").content.decode()
    for action in ("start", "draw", "swap", "tables/1/mode"):
        form = re.search(rf'<form method="post" action="/drives/\d+/{action}"[^>]*>.*?</form>', page, re.S).group(0)
        assert '<input type="hidden" name="hand" value="1">' in form, action
    services.start_hand(drive)
    page = organiser_client.get(f"/drives/{drive.pk}/").content.decode()
    forms = re.findall(r'<form method="post" action="/drives/\d+/close"[^>]*>.*?</form>', page, re.S)
    assert len(forms) == 2 and all('<input type="hidden" name="hand" value="1">' in f for f in forms)


def test_a_stale_organiser_page_cannot_close_or_start_the_next_hand(organiser_client, organiser):
    from tests.security.conftest import snapshot

    drive = seated_drive(organiser, 8)
    finish_all_tables(drive, organiser)
    organiser_client.post(f"/drives/{drive.pk}/close", {"hand": "1"})
    organiser_client.post(f"/drives/{drive.pk}/start", {"hand": "2"})
    before = snapshot()
    # A second tab still showing hand 1: its "Close anyway" and "Close hand 1" act on nothing.
    for data in ({"hand": "1", "force": "1"}, {"hand": "1"}):
        response = organiser_client.post(f"/drives/{drive.pk}/close", data, follow=True)
        assert "Hand 2 has started; this page showed hand 1. Look again." in response.content.decode()
    response = organiser_client.post(f"/drives/{drive.pk}/start", {"hand": "1"}, follow=True)
    assert "Hand 2 has started; this page showed hand 1. Look again." in response.content.decode()
    for url in ("close", "start", "draw", "tables/1/mode"):  # a page from before forms said
        response = organiser_client.post(f"/drives/{drive.pk}/{url}", {"force": "1", "mode": "digital"}, follow=True)
        assert "it does not say which hand it showed" in response.content.decode(), url
    assert snapshot() == before
    assert drive.hands.get(number=2).status == "playing"
    # The page showing hand 2 closes hand 2.
    response = organiser_client.post(f"/drives/{drive.pk}/close", {"hand": "2", "force": "1"}, follow=True)
    assert drive.hands.get(number=2).status == "closed"


def test_a_stale_seating_page_cannot_change_the_next_seating(organiser_client, organiser):
    drive = seated_drive(organiser, 8)
    finish_all_tables(drive, organiser)
    services.close_hand(drive)  # hand 2's seating is shown
    response = organiser_client.post(f"/drives/{drive.pk}/tables/1/mode", {"hand": "1", "mode": "digital"}, follow=True)
    assert "The seating for hand 2 is shown; this page showed hand 1. Look again." in response.content.decode()
    assert drive.hands.get(number=2).tables.get(number=1).play_mode == "physical"
    response = organiser_client.post(f"/drives/{drive.pk}/tables/1/mode", {"hand": "2", "mode": "digital"}, follow=True)
    assert "Table 1 now plays on the phones." in response.content.decode()  # (a tester read only "updated")
    assert drive.hands.get(number=2).tables.get(number=1).play_mode == "digital"


def test_a_pasted_list_keeps_what_it_can_and_the_refused_names_stay_in_the_box_with_why(organiser, organiser_client):
    """A pasted list with one name too long and one already in the drive: the valid names are
    added, and the two refused stay in the box (labelled "Players' names"), each with its
    reason in the message, to be mended rather than typed again."""
    drive = make_drive(organiser, 0)
    services.add_players(drive, ["Dee"])
    long_name = "X" * 41
    pasted = "Ann\nBob\n" + long_name + "\nCy\nDEE"
    response = organiser_client.post(f"/drives/{drive.pk}/players", {"names": pasted}, follow=True)
    page = response.content.decode()
    assert sorted(drive.players.values_list("name", flat=True)) == ["Ann", "Bob", "Cy", "Dee"]
    assert "Added 3 players: “<bdi>Ann</bdi>”, “<bdi>Bob</bdi>” and “<bdi>Cy</bdi>”." in page
    assert "Not added (2)" in page and "is too long: names have at most 40 characters" in page
    assert "is in this drive already (as “<bdi>Dee</bdi>”)" in page
    box = page[page.index('<textarea'):page.index('</textarea>')]
    assert box.split(">", 1)[1].strip() == f"{long_name}\nDEE"
    assert '<label for="id_names">Players&#x27; names</label>' in page
    # Shown once: the next look at the dashboard has an empty box again.
    again = organiser_client.get(f"/drives/{drive.pk}/").content.decode()
    assert long_name not in again


def test_the_dashboard_says_when_closing_ends_the_drive_and_how_many_standings_it_shows(organiser_client, organiser):
    """A tester closed the last hand "anyway" with a table still to enter and learnt only then
    that the drive had ended; and the dashboard's ten standings hid the eleventh player."""
    drive = seated_drive(organiser, 11, target="hands", target_hands=2)
    page = organiser_client.get(f"/drives/{drive.pk}/").content.decode()
    assert "The last hand" not in page and "The top 10 of 11" in page
    finish_all_tables(drive, organiser)
    services.close_hand(drive)
    services.start_hand(drive)
    page = organiser_client.get(f"/drives/{drive.pk}/").content.decode()
    assert "The last hand: closing it ends the drive and makes its standings final." in page
    # Hand 1's page, where its results are corrected, is a link away (a tester typed its address).
    assert f'<a href="/drives/{drive.pk}/hands/1">Hand 1</a>' in page and "/hands/2" not in page
    closed = organiser_client.get(f"/drives/{drive.pk}/hands/1").content.decode()
    assert "Table 1" in closed and "Sit clockwise" not in closed  # nobody sits at a closed hand's tables
    for number, said in ((3, "There is no hand 3 yet."), (0, "There is no hand 0.")):
        page = organiser_client.get(f"/drives/{drive.pk}/hands/{number}", follow=True).content.decode()
        assert said in page
    assert "Sit clockwise" in page
    assert "Film Fantasy" in page  # the header names the game
    anyway = re.search(r"<form[^>]*>(?:(?!</form>).)*Close anyway", page, re.S).group(0)
    assert "This is the last hand: the drive ends, and no result can be entered or changed after it." in anyway
    assert "Results still to be confirmed count as entered" in anyway  # as close_hand(force=True) does
    services.close_hand(drive, force=True)  # the last hand: the drive ends
    page = organiser_client.get(f"/drives/{drive.pk}/hands/3", follow=True).content.decode()
    assert "There is no hand 3: the drive ended after hand 2." in page  # not "yet"


def test_a_table_on_the_phones_names_who_has_no_phone_joined(organiser_client, organiser):
    """A tester's player without a phone moved to a table played on the phones: its three others
    waited for him, and the dashboard said only "Playing"."""
    from django.utils import timezone

    from tables import digital

    drive = seated_drive(organiser, 8, start=False)
    services.set_table_mode(drive, 2, "digital")
    table = drive.hands.get().tables.get(number=2)
    seated = [s.player for s in table.seats.select_related("player").order_by("position")]
    for player in seated[1:]:
        player.phone_joined_at = timezone.now()
        player.save(update_fields=["phone_joined_at"])
    page = organiser_client.get(f"/drives/{drive.pk}/").content.decode()
    card = page[page.index('id="table-2"'):]
    card = card[:card.index("</article>")]
    assert f"<bdi>{seated[0].name}</bdi> has no phone joined to play on: switch the table to cards" in card
    assert 'data-no-phone' not in page[page.index('id="table-1"'):page.index('id="table-2"')]  # cards: no phones needed
    # With a bot seated there the table cannot go to cards: only the bot's help is offered.
    services.add_bot(drive, table.pk)
    page = organiser_client.get(f"/drives/{drive.pk}/").content.decode()
    card = page[page.index('id="table-2"'):]
    card = card[:card.index("</article>")]
    assert f"<bdi>{seated[0].name}</bdi> has no phone joined to play on: let a bot play for them" in card
    services.start_hand(drive)
    digital.set_stand_in(drive, table.pk, 0, True)  # a bot plays for him: nothing to wait for
    page = organiser_client.get(f"/drives/{drive.pk}/").content.decode()
    assert "no phone joined" not in page


def test_a_swap_from_a_page_showing_an_older_seating_is_refused(organiser_client, organiser):
    """Found from outside: the same swap sent from a second tab that had not updated said
    "Swapped" and put both players back, the phones told to move and then to move back. The
    swap carries the seating its page showed; a seating changed since is refused, nothing moved."""
    drive = seated_drive(organiser, 8, start=False)
    hand = drive.hands.get()
    seats = lambda: sorted(hand.seats.values_list("player_id", "table__number", "position"))  # noqa: E731
    a = hand.tables.get(number=1).seats.get(position=0).player
    b = hand.tables.get(number=2).seats.get(position=0).player
    page = organiser_client.get(f"/drives/{drive.pk}/").content.decode()
    shown = re.search(r'name="seating" value="([0-9a-f]+)"', page).group(1)
    data = {"a": a.pk, "b": b.pk, "hand": "1", "seating": shown}
    said = organiser_client.post(f"/drives/{drive.pk}/swap", data, follow=True).content.decode()
    assert "Swapped" in said
    swapped = seats()
    said = organiser_client.post(f"/drives/{drive.pk}/swap", data, follow=True).content.decode()  # the old tab
    assert "The seating for hand 1 has changed since this page showed it" in said and "Swapped" not in said
    assert seats() == swapped
    fresh = re.search(r'name="seating" value="([0-9a-f]+)"', said).group(1)  # the page as it is now
    assert fresh != shown
    said = organiser_client.post(f"/drives/{drive.pk}/swap", {**data, "seating": fresh}, follow=True).content.decode()
    assert "Swapped" in said and seats() != swapped
    assert "Swapped" not in organiser_client.post(f"/drives/{drive.pk}/swap", {**data, "seating": ""},
                                                  follow=True).content.decode()  # a form that says nothing of it


def test_a_closed_hands_cards_say_who_moved_and_the_drives_last_hand_moves_nobody(organiser_client, organiser):
    drive = seated_drive(organiser, 8, target="hands", target_hands=2)
    finish_all_tables(drive, organiser, declarer_seat=1)
    services.close_hand(drive)
    first = drive.hands.get(number=1).tables.get(number=2)
    mover = first.seats.get(position=1).player.name
    page = organiser_client.get(f"/drives/{drive.pk}/hands/1").content.decode()
    assert f"<strong><bdi>{mover}</bdi></strong> moved up" in page
    services.start_hand(drive)
    finish_all_tables(drive, organiser, declarer_seat=1)
    services.close_hand(drive)
    drive.refresh_from_db()
    assert drive.is_finished
    # Nobody moved after the last hand: its cards give the points and name no move.
    page = organiser_client.get(f"/drives/{drive.pk}/hands/2").content.decode()
    assert page.count("data-points") == 2 and "data-mover" not in page
    assert "data-mover" in organiser_client.get(f"/drives/{drive.pk}/hands/1").content.decode()


def test_a_table_closed_unplayed_says_who_moved_from_it(organiser_client, organiser):
    """Found in a browser: a table closed with no result showed "Not played" and no move, though
    a player of it was told to move up (the game names who moves, as when nobody won)."""
    drive = seated_drive(organiser, 8, target="hands", target_hands=3)
    hand = drive.hands.get()
    services.organiser_result(drive, hand.tables.get(number=1), declared(4, 0), organiser)
    services.close_hand(drive, force=True)
    table = hand.tables.get(number=2)
    assert table.status == "not_played"
    mover, left = (table.seats.get(position=k).player for k in (1, 2))
    assert table.moved_up_id == mover.pk  # the close moved them, as the phones were told
    page = organiser_client.get(f"/drives/{drive.pk}/hands/1").content.decode()
    card = page[page.index('id="table-2"'):]
    assert card.count("Not played") == 1  # the badge; the line says what it means (QA: it said "Not played" twice)
    assert "No result: 0 points each, no hand counted" in card
    assert (f"<strong><bdi>{mover.name}</bdi></strong> moved up · <strong><bdi>{left.name}</bdi></strong> stayed at "
            "the last table") in card


def test_a_page_left_open_as_the_drive_ended_is_told_it_has_finished(organiser_client, organiser):
    """Found by a fuzz from outside: a drive ended during hand 1's seating, a swap, a table's
    mode or a close from a page still showing hand 1 was told "No seating has been drawn; this
    page showed hand 1. Look again.", as if the page were merely stale. Nothing changes."""
    drive = seated_drive(organiser, 8, start=False)
    hand = drive.hands.get()
    a = hand.tables.get(number=1).seats.get(position=0).player
    b = hand.tables.get(number=2).seats.get(position=0).player
    page = organiser_client.get(f"/drives/{drive.pk}/").content.decode()
    shown = re.search(r'name="seating" value="([0-9a-f]+)"', page).group(1)
    services.end_drive(drive)
    state = lambda: (list(drive.hands.values_list("number", "status")),  # noqa: E731
                     sorted(Seat.objects.filter(hand__drive=drive).values_list("player_id", "table__play_mode")))
    before = state()
    for url, data in (("swap", {"a": a.pk, "b": b.pk, "hand": "1", "seating": shown}),
                      ("tables/1/mode", {"hand": "1", "mode": "digital"}),
                      ("close", {"hand": "1"})):
        said = organiser_client.post(f"/drives/{drive.pk}/{url}", data, follow=True).content.decode()
        assert "This drive has finished." in said and "Look again" not in said, url
    assert state() == before


def test_a_bot_swapped_to_a_table_with_cards_says_that_table_plays_on_the_phones(organiser_client, organiser):
    """Found by a fuzz from outside: the swap said only "Swapped Bot 1 and Ann.", and Ann's table
    with cards had turned to the phones (a bot holds no cards), as a re-formed seating says."""
    from html import unescape

    drive = seated_drive(organiser, 8, start=False)
    hand = drive.hands.get()
    services.set_table_mode(drive, 1, "digital")
    bot = services.add_bot(drive, hand.tables.get(number=1).pk)
    ann = hand.tables.get(number=2).seats.get(position=0).player

    def swap(a, b):
        page = organiser_client.get(f"/drives/{drive.pk}/").content.decode()
        shown = re.search(r'name="seating" value="([0-9a-f]+)"', page).group(1)
        data = {"a": a.pk, "b": b.pk, "hand": "1", "seating": shown}
        return unescape(organiser_client.post(f"/drives/{drive.pk}/swap", data, follow=True).content.decode())

    said = swap(hand.tables.get(number=2).seats.get(position=1).player, ann)  # two people: nothing more to say
    assert re.search(r"Swapped <bdi>[^<]+</bdi> and <bdi>[^<]+</bdi>\.</li>", said)
    said = swap(bot, ann)
    assert f"Swapped <bdi>{bot.name}</bdi> and <bdi>{ann.name}</bdi>. Table 2 now plays on the phones: a bot sits " \
           "there, and a bot holds no cards." in said
    assert drive.hands.get().tables.get(number=2).play_mode == "digital"


def test_nobody_is_said_to_move_during_the_drives_last_hand(organiser_client, organiser):
    """Found by a tester: in the last hand of a drive of 3 hands, the table cards and the phones
    said "Frank stays at the top table · Eve moves down", though no move follows it. A drive
    that ends at a total may go on, so its hands say who moves."""
    from tests.drive.phones_support import entry_data, phone_for
    from tests.drive.test_result_preview import answers, preview_url

    for target, said in (("hands", False), ("total", True)):
        drive = seated_drive(organiser, 8, target=target, target_hands=1, target_total=500)
        first, second = drive.hands.get().tables.order_by("number")
        services.organiser_result(drive, first, declared(4, 2), organiser)
        seated = [s.player for s in second.seats.order_by("position")]
        sent = phone_for(drive, seated[0]).post(f"/{drive.join_code}/enter", entry_data(4, 2, key=f"last-{target}", table=2, by=seated[0]))
        assert sent.status_code == 302, re.findall(r"(?:msg|errorlist)[^>]*>([^<]+)", sent.content.decode())
        page = organiser_client.get(f"/drives/{drive.pk}/").content.decode()
        assert page.count("data-points") == 2 and ("data-mover" in page) is said, target
        home = phone_for(drive, seated[1]).get(f"/{drive.join_code}/me").content.decode()
        assert "data-confirm" in home or "Confirm" in home, target
        assert ("data-mover" in home) is said, target
        rows = organiser_client.post(preview_url(drive, second), answers(4, "none", seat2_sets="1")).json()["points"]
        assert any("moves" in row for row in rows) is said, (target, rows)


def test_a_table_won_by_a_player_who_then_left_says_so_not_that_they_moved(organiser_client, organiser):
    """Found in a browser: a player taken out during the hand (after their table's result) was
    said to have "moved up" from it, though the seating left them out."""
    drive = seated_drive(organiser, 12, target="hands", target_hands=3)
    finish_all_tables(drive, organiser, declarer_seat=1)
    table = drive.hands.get().tables.get(number=2)
    mover, left = (table.seats.get(position=k).player for k in (1, 2))
    services.withdraw_player(drive, mover)
    services.close_hand(drive)
    assert not drive.hands.get(number=2).seats.filter(player=mover).exists()
    page = organiser_client.get(f"/drives/{drive.pk}/hands/1").content.decode()
    card = page[page.index('id="table-2"'):page.index('id="table-3"')]
    assert (f"<strong><bdi>{mover.name}</bdi></strong> left the drive · <strong><bdi>{left.name}</bdi></strong> "
            "moved down") in card
    assert "moved up" not in card
    assert f"{mover.name}</bdi> <span class=\"small muted\" data-left>(has since left the drive)</span>" in card


def test_a_closed_hand_corrected_to_another_winner_says_the_moves_were_the_close_s(organiser_client, organiser):
    """After a correction named another declarer, the hand's card showed the new
    mover's points beside "Chloé moved up" with nothing to reconcile them."""
    drive = seated_drive(organiser, 12, target="hands", target_hands=3)
    finish_all_tables(drive, organiser, declarer_seat=1)
    services.close_hand(drive)
    table = drive.hands.get(number=1).tables.get(number=2)
    moved_card = organiser_client.get(f"/drives/{drive.pk}/hands/1").content.decode()
    assert "a correction since" not in moved_card
    services.organiser_result(drive, table, declared(4, 3), organiser, reason="Misread the declarer")
    page = organiser_client.get(f"/drives/{drive.pk}/hands/1").content.decode()
    card = page[page.index('id="table-2"'):page.index('id="table-3"')]
    assert "moved down, at the close (a correction since changed the points, not the moves)" in card


def test_a_player_who_left_after_a_close_is_still_said_to_have_moved_at_it(organiser_client, organiser):
    """A player who moved down at hand 1's close and left before hand 3 was said on
    hand 1's page to have "left the drive" there."""
    drive = seated_drive(organiser, 12, target="hands", target_hands=3)
    finish_all_tables(drive, organiser, declarer_seat=1)
    table = drive.hands.get().tables.get(number=2)
    mover, left = (table.seats.get(position=k).player for k in (1, 2))
    services.close_hand(drive)
    services.start_hand(drive)
    services.withdraw_player(drive, left)
    page = organiser_client.get(f"/drives/{drive.pk}/hands/1").content.decode()
    card = page[page.index('id="table-2"'):page.index('id="table-3"')]
    assert (f"<strong><bdi>{mover.name}</bdi></strong> moved up · <strong><bdi>{left.name}</bdi></strong> "
            "moved down") in card
    assert "left the drive</" not in card.replace("(has since left the drive)", "")


def test_a_player_taken_out_during_a_hand_with_cards_is_said_to_be_unseated_at_its_close(organiser_client, organiser):
    drive = seated_drive(organiser, 12, target="hands", target_hands=3)
    leaver = drive.hands.get().tables.get(number=2).seats.get(position=1).player
    services.withdraw_player(drive, leaver)
    page = organiser_client.get(f"/drives/{drive.pk}/").content.decode()
    assert f"{leaver.name}</bdi> <span class=\"small muted\" data-left>(has left the drive: unseated at the close)" in page
