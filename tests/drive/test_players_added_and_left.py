"""on the dashboard's players: a name repeated within one pasted list was dropped
without a word, and after a player left the dashboard still counted them and said their points
stayed in standings they were not in (docs/drive-rules.md, "The hand cycle")."""

from __future__ import annotations

import html
import re

import pytest

from drive import pages, selectors, services
from drive.access import player_cookie_name
from tests.factories import declared, finish_all_tables, make_drive, seated_drive

pytestmark = pytest.mark.django_db


def shown(page: str) -> str:
    """The page's text as read: tags dropped (a name's <bdi> is inline), spaces single."""
    return " ".join(re.sub(r"<[^>]+>", " ", re.sub(r"</?bdi>", "", page)).split())


def test_a_name_repeated_in_one_pasted_list_is_reported_as_one_already_in_the_drive_is(organiser, organiser_client):
    drive = make_drive(organiser, 0)
    page = organiser_client.post(f"/drives/{drive.pk}/players", {"names": "Zed\nzed"}, follow=True).content.decode()
    assert list(drive.players.values_list("name", flat=True)) == ["Zed"]
    text = shown(page)
    assert "Added 1 player: “Zed”." in text
    assert "Not added (1), back in the box to mend: “zed” is in this list already (as “Zed”): add an initial" in text
    box = page[page.index("<textarea"):page.index("</textarea>")]
    assert box.split(">", 1)[1].strip() == "zed"

    # The same paste again: both are now in the drive already, and each is said so.
    again = {"names": "Zed\nzed\nAmy"}
    page = organiser_client.post(f"/drives/{drive.pk}/players", again, follow=True).content.decode()
    text = shown(page)
    assert "Added 1 player: “Amy”." in text and "Not added (2)" in text
    assert "“Zed” is in this drive already: add an initial" in text and "“zed” is in this drive already (as “Zed”)" in text
    assert "“Zed” is in this drive already (as “Zed”)" not in text  # a tester read "Ann … (as Ann)"


def test_names_over_what_a_drive_holds_are_refused_with_one_reason(organiser, organiser_client, monkeypatch):
    """Found from outside: 3,300 names pasted gave one message of 131 KB, "N: this drive holds at
    most 500 players." 2,800 times. The names over the limit share one reason, said once, and a
    message says at most ten reasons."""
    monkeypatch.setattr(services.players, "MAX_PLAYERS", 5)
    drive = make_drive(organiser, 0)
    names = [f"P{i}" for i in range(1, 9)]
    page = organiser_client.post(f"/drives/{drive.pk}/players", {"names": "\n".join(names)}, follow=True)
    text = shown(page.content.decode())
    assert drive.players.count() == 5
    assert "Not added (3), back in the box to mend: The last 3 names are over the 5 players a drive holds." in text
    assert text.count("players a drive holds") == 1
    box = page.content.decode()
    assert box[box.index("<textarea"):box.index("</textarea>")].split(">", 1)[1].split() == names[5:]
    # Names taken out before playing hold no place, but the names a drive keeps are bounded too.
    for player in drive.players.all()[:3]:
        services.withdraw_player(drive, player)
    monkeypatch.setattr(services.players, "MAX_NAMES", 7)
    text = shown(organiser_client.post(f"/drives/{drive.pk}/players", {"names": "\n".join(names[5:])},
                                       follow=True).content.decode())
    assert drive.players.count() == 7
    assert "The last 1 name is over the 7 names a drive keeps, those taken out included." in text
    long_ones = [f"{i:02d}{'L' * 41}" for i in range(12)]  # twelve reasons: ten said
    text = shown(organiser_client.post(f"/drives/{drive.pk}/players", {"names": "\n".join(long_ones)},
                                       follow=True).content.decode())
    assert "Not added (12)" in text and text.count("is too long") == 10 and "And 2 more." in text


def test_the_dashboard_counts_the_players_still_in_the_drive_and_says_how_many_left(organiser, organiser_client):
    drive = make_drive(organiser, 0)
    organiser_client.post(f"/drives/{drive.pk}/players", {"names": "\n".join(f"P{i}" for i in range(1, 10))})
    zed = services.add_players(drive, ["Zed"])[0]
    page = organiser_client.post(f"/drives/{drive.pk}/players/presence", {"withdraw": zed.pk}, follow=True).content.decode()
    text = shown(page)
    assert "9 players so far (1 left)" in text and "Players (9; 1 left)" in text
    pushed = pages.dashboard_parts(selectors.drive_view(drive))
    assert "9 players so far (1 left)" in shown(pushed["dashboard"])
    # The players' count and list are pushed too (a phone adding its own name is seen at once).
    assert shown(pushed["players-count"]) == "Players (9; 1 left)"
    assert "Zed (left)" in shown(pushed["players"]) and 'name="rejoin"' in pushed["players"]
    # Zed played no hand: in no standings, and the message does not say otherwise.
    assert "Zed has left the drive (no hand played: they are in no standings)." in text
    assert "their points stay" not in text
    assert "Zed" not in shown(organiser_client.get(f"/drives/{drive.pk}/standings").content.decode())


def test_a_player_who_played_is_told_to_keep_their_points_when_they_leave(organiser, organiser_client):
    drive = make_drive(organiser, 8, target="hands", target_hands=5)
    organiser_client.post(f"/drives/{drive.pk}/draw", {"hand": "0"})
    organiser_client.post(f"/drives/{drive.pk}/start", {"hand": "1"})
    finish_all_tables(drive, organiser)
    organiser_client.post(f"/drives/{drive.pk}/close", {"hand": "1"})
    leaver = drive.players.get(name="P003")
    page = organiser_client.post(f"/drives/{drive.pk}/players/presence", {"withdraw": leaver.pk}, follow=True).content.decode()
    text = shown(page)
    assert "P003 has left the drive; their points stay in the standings." in text
    assert "Players (7; 1 left)" in text
    assert "P003" in shown(organiser_client.get(f"/drives/{drive.pk}/standings").content.decode())


def test_bots_are_counted_apart_from_the_players_and_leaving_asks_first(organiser, organiser_client):
    """A drive of 8 people and a bot said "Players (9)"; and one tap on "leaves"
    took a player out (their phone signed out) with nothing asked."""
    drive = make_drive(organiser, 8)
    organiser_client.post(f"/drives/{drive.pk}/draw", {"hand": "0"})
    services.set_table_mode(drive, 2, "digital")
    bot = services.add_bot(drive, drive.hands.get().tables.get(number=2).pk)
    page = organiser_client.get(f"/drives/{drive.pk}/").content.decode()
    assert "Players (8 and 1 bot)" in shown(page)
    ann = drive.players.get(name="P001")
    button = re.search(rf'<button[^>]*name="withdraw" value="{ann.pk}"[^>]*>', page).group(0)
    assert 'data-take-out="P001"' in button  # static/js/live.js asks, naming them (tests/browser)
    assert re.search(rf'<button[^>]*name="withdraw" value="{bot.pk}"', page)

    services.withdraw_player(drive, ann)
    page = organiser_client.get(f"/drives/{drive.pk}/").content.decode()
    assert "Players (7 and 1 bot; 1 left)" in shown(page)
    rejoin = re.search(rf'<button[^>]*name="rejoin" value="{ann.pk}"[^>]*>', page).group(0)
    assert "data-take-out" not in rejoin  # coming back needs no question


def test_a_phone_asks_before_it_leaves_its_player(organiser, client):
    drive = make_drive(organiser, 4)
    ann = drive.players.get(name="P001")
    client.cookies[player_cookie_name(drive)] = ann.token
    page = client.get(f"/{drive.join_code}/me").content.decode()
    form = re.search(r'<form[^>]*class="small leave-phone"[^>]*>', page).group(0)
    assert "return confirm('Leave this phone? It will no longer be P001\\'s" in form


def test_taking_a_player_out_says_who_the_seating_moved_and_which_table_went_to_the_phones(organiser, organiser_client):
    """A player taken out between hands moved a bot to a table with cards, which
    then played on the phones, and the message said only that the player had left."""
    drive = seated_drive(organiser, 7, start=False)
    hand = drive.hands.get()
    services.set_table_mode(drive, 2, "digital")
    bot = services.add_bot(drive, hand.tables.get(number=2).pk)
    first, second = [s.player for s in hand.tables.get(number=1).seats.order_by("position")][:2]
    page = organiser_client.post(f"/drives/{drive.pk}/players/presence", {"withdraw": first.pk}, follow=True).content.decode()
    assert f"<bdi>{first.name}</bdi> has left the drive (no hand played: they are in no standings).</" in page
    page = organiser_client.post(f"/drives/{drive.pk}/players/presence", {"withdraw": second.pk}, follow=True).content.decode()
    assert (f"The seating shown for hand 1 changed: <bdi>{bot.name}</bdi> to Table 1. Table 1 now plays on the "
            "phones: a bot sits there, and a bot holds no cards.") in html.unescape(page)
    assert hand.tables.get(number=1).play_mode == "digital"
    page = organiser_client.post(f"/drives/{drive.pk}/players/presence", {"rejoin": second.pk}, follow=True).content.decode()
    assert f"<bdi>{second.name}</bdi> is back." in page


def test_a_new_table_of_a_drive_on_the_phones_is_not_said_to_have_a_bot(organiser, organiser_client):
    """Found by a review: a drive on the phones whose seating grew a table was told "a bot sits
    there" with no bot in the drive."""
    drive = seated_drive(organiser, 7, start=False, play_mode="digital", preferred_table_size=2)
    leavers = list(drive.players.order_by("pk")[:3])
    for player in leavers:
        services.withdraw_player(drive, player)
    said = [services.rejoin_player(drive, player) for player in leavers]
    assert any("changed:" in words for words in said), said  # the seating did change
    assert not any("bot" in words for words in said), said


def test_a_close_that_seats_a_bot_at_a_table_with_cards_says_it_now_plays_on_the_phones(organiser, organiser_client):
    """A close moved a bot to a table with cards, which then played on the phones,
    and the close said only that the seating was shown."""
    from tables.models import BotPlayer, TableHand

    drive = seated_drive(organiser, 8)
    hand = drive.hands.get()
    for table in hand.tables.all():
        services.organiser_result(drive, table, declared(4, 0), organiser)
    bot = hand.tables.get(number=2).seats.get(position=0).player  # the declarer: moves up, to Table 1
    BotPlayer.objects.create(player=bot)
    page = organiser_client.post(f"/drives/{drive.pk}/close", {"hand": "1"}, follow=True).content.decode()
    assert ("Hand closed. The seating for hand 2 is shown. Table 1 now plays on the phones: a bot sits there, "
            "and a bot holds no cards.") in html.unescape(page)
    assert TableHand.objects.get(hand__number=2, hand__drive=drive, number=1).play_mode == "digital"
    # A close that moves no bot to a table with cards says nothing of it.
    assert services.hand_sent_to_the_phones(drive, drive.hands.get(number=1)) == ""


def test_the_players_added_are_named_so_a_list_split_at_a_comma_shows(organiser, organiser_client):
    """Found by a tester: "O'Neil, Jr." pasted as one name made two players, "O'Neil" and "Jr.",
    and the page said only "Added 5 players." (commas separate names, as the box says)."""
    drive = make_drive(organiser, 0)
    page = organiser_client.post(f"/drives/{drive.pk}/players", {"names": "O'Neil, Jr.\nAnn"}, follow=True).content.decode()
    assert "Added 3 players: “O&#x27;Neil”, “Jr.” and “Ann”." in shown(page)
    many = "\n".join(f"Player {n}" for n in range(1, 16))
    page = organiser_client.post(f"/drives/{drive.pk}/players", {"names": many}, follow=True).content.decode()
    assert "Added 15 players: “Player 1”, “Player 2”," in shown(page) and "“Player 12” and 3 more." in shown(page)


def test_late_arrivals_that_open_a_table_between_hands_move_no_one_the_close_moved(organiser, organiser_client):
    """A late arrival's new table took the hand's winner, just told "Move up to
    Table 1", and sent them down to the new table; the organiser was told only who was added."""
    from drive.services.seats import seating_of

    drive = seated_drive(organiser, 11, preferred_table_size=5)  # tables of 6 and 5
    finish_all_tables(drive, organiser, declarer_seat=4)
    services.close_hand(drive)
    told, _modes = seating_of(drive.hands.get(number=2))
    moved = {p for t, table in enumerate(told) for p in table if p not in seating_of(drive.hands.get(number=1))[0][t]}
    assert len(moved) == 2  # Table 2's winner up, Table 1's player on the winner's left down
    page = organiser_client.post(f"/drives/{drive.pk}/players", {"names": "N1\nN2"}, follow=True).content.decode()
    after, _modes = seating_of(drive.hands.get(number=2))
    assert len(after) == 3 and all(len(table) >= 4 for table in after)
    for player in moved:  # where their phones were told to go
        assert [player in table for table in after[:2]] == [player in table for table in told]
    shifted = [p for t, table in enumerate(after[:2]) for p in told[t] if p not in table]
    assert len(shifted) == 2
    names = dict(drive.players.values_list("pk", "name"))
    assert (f"Added 2 players: “N1” and “N2”. The seating shown for hand 2 changed: "
            f"{names[int(shifted[0])]} to Table 3 and {names[int(shifted[1])]} to Table 3.") in html.unescape(shown(page))


def test_taking_players_out_between_hands_moves_no_one_the_close_told_to_stay(organiser, organiser_client):
    """A player taken out between hands left a table short, and the table that gave
    it a player gave Table 1's winner, whose phone had just said "Stay at Table 1"."""
    from drive.services.seats import seating_of

    drive = seated_drive(organiser, 9)  # tables of 5 and 4
    finish_all_tables(drive, organiser, declarer_seat=4)  # each table's last seat declared
    services.close_hand(drive)
    before = seating_of(drive.hands.get(number=1))[0]
    told = seating_of(drive.hands.get(number=2))[0]
    stays = before[0][4]
    assert told[0][-1] == stays  # Table 1's winner stays, last-seated there
    for player_id in told[1][:2]:  # Table 2 falls to two and takes a player from Table 1
        organiser_client.post(f"/drives/{drive.pk}/players/presence", {"withdraw": player_id})
    after = seating_of(drive.hands.get(number=2))[0]
    assert [len(table) for table in after] == [4, 3]
    assert stays in after[0]
    arrived = before[1][4 % len(before[1])]  # Table 2's winner, moved up
    assert arrived in after[0]


def test_a_list_sent_twice_at_once_is_answered_as_a_repeat(organiser, organiser_client):
    """Found by probing: a double click on Add sent the list twice; the browser showed the second
    answer only, "Not added (4), back in the box to mend: “Ann” is in this drive already: add an
    initial…", every name back in the box, and following that advice added everyone twice. The
    same list within a minute is answered as a repeat; another list is read as ever."""
    drive = make_drive(organiser, 0)
    organiser_client.post(f"/drives/{drive.pk}/players", {"names": "Ann\nBob"})
    page = organiser_client.post(f"/drives/{drive.pk}/players", {"names": "Ann\nBob"}, follow=True).content.decode()
    assert "That list was sent twice: its names were added once (see the Players list)." in page
    assert "Not added" not in page and page[page.index("<textarea"):page.index("</textarea>")].split(">", 1)[1].strip() == ""
    assert sorted(drive.players.values_list("name", flat=True)) == ["Ann", "Bob"]
    text = shown(organiser_client.post(f"/drives/{drive.pk}/players", {"names": "Ann\nCy"}, follow=True).content.decode())
    assert "Added 1 player: “Cy”." in text and "“Ann” is in this drive already" in text
