"""Bots take no prize from people, and nobody takes both the runner-up and the booby prize
(docs/drive-rules.md, "Prizes")."""

from __future__ import annotations

import csv
import html
import io
import random
import re

import pytest
from django.test import Client

from drive import services
from tests.factories import declared, make_drive

pytestmark = pytest.mark.django_db


def standings_csv(client, drive) -> list[dict]:
    text = client.get(f"/drives/{drive.pk}/export/standings.csv").content.decode("utf-8-sig")
    return list(csv.DictReader(io.StringIO(text)))


def prize_lines(page: str) -> dict[str, list[str]]:
    """Each prize's title and its winners' names as the standings page lists them ([] for "—")."""
    section = re.search(r'<section class="card" id="prizes">(.*?)</section>', page, re.S).group(1)
    found = {}
    for title, winners in re.findall(r"<li><strong>(.*?):</strong>(.*?)</li>", section, re.S):
        names = re.findall(r"<bdi>(.*?)</bdi>", winners)
        found[html.unescape(title)] = [html.unescape(n) for n in names]
    return found


def test_a_bot_is_shown_in_the_standings_but_wins_no_prize(organiser, organiser_client):
    """A bot the organiser added to make up a digital table of four was ranked and
    named among the prize winners ("Runner-up: Ann, Bob, Bot 1", "Booby prize: Ann, Bob, Bot 1").
    A bot keeps its place in the standings; the prizes, and their ties, are among the people."""
    client = organiser_client
    drive = make_drive(organiser, 3, play_mode="digital", preferred_table_size=3, target="hands", target_hands=3)
    services.draw_seating(drive, random.Random(7))
    table = drive.hands.get().tables.get()
    bot = services.add_bot(drive, table.pk)
    assert client.post(f"/drives/{drive.pk}/start", {"hand": "1"}).status_code == 302
    assert client.post(f"/drives/{drive.pk}/close", {"hand": "1", "force": "1"}).status_code == 302
    # The hand as it was: the bot declared (seat 3), the people scored alike.
    seats = list(table.seats.order_by("position").values_list("player__name", flat=True))
    assert seats[3] == bot.name == "Bot 1"
    services.organiser_result(drive, table, declared(4, 3), organiser, reason="as played")
    services.end_drive(drive)

    page = client.get(f"/drives/{drive.pk}/standings").content.decode()
    standings = standings_csv(client, drive)
    assert standings[0]["player"] == "Bot 1" and standings[0]["rank"] == "1"  # shown, ranked by points
    assert standings[0]["bot"] == "1" and {row["bot"] for row in standings[1:]} == {"0"}
    people = [row["player"] for row in standings[1:]]
    prizes = prize_lines(page)
    assert not any("Bot 1" in names for names in prizes.values()), prizes
    assert sorted(prizes["Winners"]) == sorted(people)  # level on points: joint winners among people
    assert prizes["Runner-up"] == [] and prizes["Booby prize"] == [] and prizes["Most declarations"] == []
    assert "Bots keep their place in the standings but win no prize" in page
    # The board too: the bot's row tagged, and why it is not among the prizes (found in a browser:
    # "1 Bot 1" on the projector above "Winner: Ed" puzzled the room).
    board = client.get(f"/{drive.join_code}/board").content.decode()
    bot_row = board[board.index(f'data-player="{bot.pk}"'):]
    assert '>bot</span>' in bot_row[:bot_row.index("</tr>")]
    assert "Bots keep their place in the standings but win no prize" in board
    # Found in a browser: the winners' phones said "You finished 2nd of 4", the bot ranked first.
    from tests.drive.phones_support import phone_for, text

    services.show_prizes(drive, True)
    for player in drive.players.filter(bot__isnull=True):
        on_phone = text(phone_for(drive, player).get(f"/{drive.join_code}/me"))
        assert "You share first place, with" in on_phone and "You finished" not in on_phone
        assert "(Those ranked above you, bots or players who left, win no prize.)" in on_phone


def test_each_prize_winners_phone_names_their_prizes(organiser, organiser_client):
    """Found in a browser: only the winner's phone spoke of a prize; the runner-up's said "You
    finished 3rd of 11" beside "Runner-up: Di" on the board, a bot ranked above them."""
    from tests.drive.phones_support import phone_for, text
    from tests.factories import seated_drive

    drive = seated_drive(organiser, 8, target="hands", target_hands=1)
    top, second = drive.hands.get().tables.order_by("number")
    services.organiser_result(drive, top, declared(4, 0, nine=True, sets={1: 1}), organiser)  # 25, 5, 0, 0
    services.organiser_result(drive, second, declared(4, 0, sets={1: 2}), organiser)  # 15, 10, 0, 0
    services.close_hand(drive)
    seat = {(t.number, s.position): s.player for t in (top, second) for s in t.seats.all()}

    def phone(table: int, position: int) -> str:
        player = seat[table, position]
        return text(phone_for(drive, player).get(f"/{drive.join_code}/me"))

    # Before the board's prize-giving, a place and no prize (with no
    # standings hidden, the phones named every prize as the drive ended).
    assert "You finished 1st of 8, with 25 points." in phone(1, 0)
    assert "The prizes are revealed on the board." in phone(1, 0)
    assert not any(words in phone(t, p) for t in (1, 2) for p in range(4) for words in ("You won", "Your prize"))
    services.show_prizes(drive, True)
    assert "The prizes are revealed on the board." not in phone(1, 0)
    # 25 and a declaration; 15 and a declaration; 10; 5; the four on 0 share the booby.
    assert "You won, with 25 points! Your prize too: Most declarations." in phone(1, 0)
    assert "You finished 2nd of 8, with 15 points. Your prizes: Runner-up and Most declarations!" in phone(2, 0)
    assert "You finished 3rd of 8, with 10 points." in phone(2, 1) and "Your prize" not in phone(2, 1)
    assert "Your prize" not in phone(1, 1)
    for position in (2, 3):
        assert "Your prize: Booby prize!" in phone(1, position) and "Your prize: Booby prize!" in phone(2, position)
    assert not any("ranked above you" in phone(t, p) for t in (1, 2) for p in range(4))  # no bot, nobody left


def test_the_booby_prizes_phone_says_nothing_of_a_leaver_ranked_above(organiser):
    """The booby prize's phone said "(Those ranked above you, bots or players who
    left, win no prize.)", a leaver being ranked above: true, and nothing to do with the lowest
    total. The note is for a winner or the runner-up, whose place it explains."""
    from tests.drive.phones_support import phone_for, text
    from tests.factories import seated_drive

    drive = seated_drive(organiser, 8, target="hands", target_hands=1)
    top, second = drive.hands.get().tables.order_by("number")
    services.organiser_result(drive, top, declared(4, 0, nine=True, sets={1: 1}), organiser)  # 25, 5, 0, 0
    services.organiser_result(drive, second, declared(4, 0, sets={1: 2}), organiser)  # 15, 10, 0, 0
    seat = {(t.number, s.position): s.player for t in (top, second) for s in t.seats.all()}
    services.withdraw_player(drive, seat[2, 0])  # 15 points, second: leaves before the close
    services.close_hand(drive)
    services.show_prizes(drive, True)

    def phone(table: int, position: int) -> str:
        return text(phone_for(drive, seat[table, position]).get(f"/{drive.join_code}/me"))

    note = "(Those ranked above you, bots or players who left, win no prize.)"
    assert "You finished 3rd of 8, with 10 points. Your prize: Runner-up!" in phone(2, 1)
    assert note in phone(2, 1)  # the runner-up, ranked third: why is said
    for position in (2, 3):
        assert "Your prize: Booby prize!" in phone(1, position) and note not in phone(1, position)


def test_a_runner_up_level_on_points_with_the_winners_is_explained_by_the_tie_breaks():
    """Found in a browser: "Runner-up: Gwen (40 points)" was revealed after "Winners: Dmitri (40),
    Kate (40)", and nothing said that Gwen had lost on the tie-breaks."""
    from drive.selectors import PrizeList
    from drive.templatetags.drive_tags import level_at_the_top
    from scoring.standings import Row, rank

    def prizes(*rows):
        ranked = rank([Row(name, total, facts, hands_played=3, player_id=name) for name, total, facts in rows])
        return [PrizeList("winners", "Winners", [r for r in ranked if r.rank == 1]),
                PrizeList("runner_up", "Runner-up", [r for r in ranked if r.rank == 3])]

    assert level_at_the_top(prizes(("Dmitri", 40, (2,)), ("Kate", 40, (2,)), ("Gwen", 40, (1,))))
    assert not level_at_the_top(prizes(("Dmitri", 40, (2,)), ("Kate", 40, (2,)), ("Gwen", 35, (3,))))
    assert not level_at_the_top([PrizeList("winners", "Winner", []), PrizeList("runner_up", "Runner-up", [])])


def test_the_phones_hear_their_prizes_when_the_organiser_reveals_them(organiser):
    """The live update each phone is sent (no reload): no prize before the reveal, theirs after it."""
    from drive import live, selectors
    from tests.factories import finish_all_tables, seated_drive

    drive = seated_drive(organiser, 8, target="hands", target_hands=1)
    finish_all_tables(drive, organiser)
    services.close_hand(drive)

    def phones() -> list[str]:
        live.forget_phones(drive.pk)  # (each phone's fragment, not only those that changed)
        drive.refresh_from_db()
        return [m["parts"]["phone"] for _, m in live.phone_messages(selectors.drive_view(drive, public=True))]

    organiser_client = Client()
    organiser_client.force_login(organiser)
    dashboard = html.unescape(organiser_client.get(f"/drives/{drive.pk}/").content.decode())
    assert "The phones name each player's prizes once you reveal them there" in dashboard
    before = phones()
    assert len(before) == 8 and not any("You won" in p or "Your prize" in p for p in before)
    assert all("The prizes are revealed on the board." in p for p in before)
    services.show_prizes(drive, True)
    after = phones()
    assert any("You won" in p or "You share first place" in p for p in after)
    assert not any("The prizes are revealed on the board." in p for p in after)
    assert "The phones name each" not in organiser_client.get(f"/drives/{drive.pk}/").content.decode()
