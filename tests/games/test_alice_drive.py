"""An Alice drive played with cards, start to standings, through the pages: six players at two
tables of three, two hands, each table's result entered on a phone (and confirmed by another
player there) or by the organiser on the result form. The standings count the points, the hands
won and the best hand's sets; no page of the drive says a word of another game."""

from __future__ import annotations

import csv
import html
import io
import re
import uuid
from pathlib import Path

import pytest
from django.test import Client

from drive import services
from drive.models import Drive
from tests.factories import make_drive, shown_for
from tests.test_game_words import other_games_words

WORDS = other_games_words("alice")

pytestmark = pytest.mark.django_db


def phone(drive: Drive, player) -> Client:
    client = Client()
    client.cookies[f"ff_{drive.join_code}"] = player.token
    return client


def answers(sets: list[int], dealer: int, last_set: int | None) -> dict:
    """The result form's fields for a hand: who dealt, who of the tied laid a set last, sets per seat,
    and whether the bell stopped the hand (these hands lay fewer than the eight sets of a hand
    played out, so they were stopped)."""
    data = {"dealer": str(dealer), "last_set": "none" if last_set is None else str(last_set),
            "stopped": str(sum(sets) < 8)}
    data.update({f"seat{i}_sets": str(k) for i, k in enumerate(sets)})
    return data


def seated(drive: Drive, number: int):
    hand = drive.hands.order_by("-number").first()
    table = hand.tables.get(number=number)
    return hand, table, [s.player for s in table.seats.select_related("player").order_by("position")]


def enter_on_a_phone(drive, number, sets, dealer, last_set=None) -> None:
    """The table's first player enters the hand on their phone; the second confirms it."""
    hand, table, players = seated(drive, number)
    enterer, confirmer = players[0], players[1]
    form = phone(drive, enterer).get(f"/{drive.join_code}/enter").content.decode()
    assert "Sets laid (5 points each)" in form and "Who dealt?" in form
    # Who dealt, each player's sets, then the tie among them (a tester met the tie first).
    assert form.index("Who dealt?") < form.index("Sets laid") < form.index("Tied on most sets: who laid a set last?")
    data = {**answers(sets, dealer, last_set), "client_key": uuid.uuid4().hex, "seen_revision": "0",
            **shown_for(enterer, hand.number, table.number)}
    assert phone(drive, enterer).post(f"/{drive.join_code}/enter", data).status_code == 302
    # What the confirmer checks: the answers given; the tie question only when there was a tie.
    shown = html.unescape(re.sub(r"<[^>]+>", "", phone(drive, confirmer).get(f"/{drive.join_code}/me").content.decode()))
    assert f"Who dealt? {players[dealer].name}" in shown
    assert ("Tied on most sets" in shown) == (last_set is not None)
    confirmed = phone(drive, confirmer).post(
        f"/{drive.join_code}/confirm", {"seen_revision": "1", **shown_for(confirmer, hand.number, table.number)})
    assert confirmed.status_code == 302
    table.refresh_from_db()
    assert table.result.status == table.result.Status.CONFIRMED


def enter_by_the_organiser(client, drive, number, sets, dealer, last_set=None) -> str:
    """The organiser enters the hand on the result form; the form page as it was shown."""
    _hand, table, _players = seated(drive, number)
    url = f"/drives/{drive.pk}/results/{table.pk}"
    page = client.get(url).content.decode()
    response = client.post(url, {**answers(sets, dealer, last_set), "seen_revision": "0"})
    assert response.status_code == 302, response.content.decode()[:2000]
    return page


def standings_rows(page: str) -> dict[str, tuple[int, int, int, int]]:
    """Name -> (points, hands won, best hand's sets, hands played), as the standings table shows them."""
    rows = {}
    for row in re.findall(r"<tr data-player=.*?</tr>", page, re.S):
        name = html.unescape(re.sub(r"<[^>]+>", "", re.search(r'<td class="name">(.*?)</td>', row, re.S).group(1)))
        numbers = [int(n) for n in re.findall(r'<td class="num[^"]*">(\d+)</td>', row)]
        rows[name.strip()] = tuple(numbers)
    return rows


def no_other_games_words(page: str, where: str) -> None:
    # Random tokens (the CSRF token, a phone's token in a link) dropped first: one held "JOKer".
    text = re.sub(r"[A-Za-z0-9_-]{20,}", " ", page)
    # (Alice's own card B2 is "Alice floats on the Pool of Tears": Wonderland's card's name too.)
    text = text.replace("Alice floats on the Pool of Tears", " ")
    found = sorted({m.group(0) for m in WORDS.finditer(text)})
    assert not found, f"{where} says {found}"


def test_an_alice_drive_with_cards_from_the_start_to_the_standings(organiser, organiser_client):
    drive = make_drive(organiser, 6, name="Alice evening", game="alice", preferred_table_size=3,
                       target="hands", target_hands=2)
    client = organiser_client
    pages = {"dashboard before the draw": client.get(f"/drives/{drive.pk}/").content.decode()}
    assert client.post(f"/drives/{drive.pk}/draw", {"hand": "0"}).status_code == 302
    assert client.post(f"/drives/{drive.pk}/start", {"hand": "1"}).status_code == 302
    drive.refresh_from_db()
    assert drive.hands.get().tables.count() == 2
    pages["print table cards"] = client.get(f"/drives/{drive.pk}/print/tables").content.decode()
    pages["dashboard"] = client.get(f"/drives/{drive.pk}/").content.decode()
    pages["board"] = Client().get(f"/{drive.join_code}/board").content.decode()
    _hand, _table, first_table = seated(drive, 1)
    pages["phone"] = phone(drive, first_table[0]).get(f"/{drive.join_code}/me").content.decode()
    pages["phone's result form"] = phone(drive, first_table[0]).get(f"/{drive.join_code}/enter").content.decode()
    pages["game screen"] = phone(drive, first_table[0]).get(f"/{drive.join_code}/play").content.decode()
    assert "How to play Alice" in pages["game screen"] and "games/alice/play.js" in pages["game screen"]
    assert "Alice" in pages["print table cards"]
    assert "the player who laid the most sets moves UP" in pages["print table cards"]

    sets: dict[str, list[int]] = {}  # each player's sets, hand by hand
    won: dict[str, int] = {}

    def keep(number, table_sets, mover_seat):
        _h, _t, players = seated(drive, number)
        for seat, player in enumerate(players):
            sets.setdefault(player.name, []).append(table_sets[seat])
            won[player.name] = won.get(player.name, 0) + (seat == mover_seat)

    # Hand 1. Table 1 on a phone: 3, 1 and 0 sets (the first moves up). Table 2 by the organiser:
    # two players tie on 2 sets, the second laid a set last.
    enter_on_a_phone(drive, 1, [3, 1, 0], dealer=2)
    keep(1, [3, 1, 0], 0)
    pages["result form"] = enter_by_the_organiser(client, drive, 2, [2, 2, 1], dealer=0, last_set=1)
    assert "Tied on most sets: who laid a set last?" in pages["result form"]
    keep(2, [2, 2, 1], 1)
    assert client.post(f"/drives/{drive.pk}/close", {"hand": "1"}).status_code == 302
    assert client.post(f"/drives/{drive.pk}/start", {"hand": "2"}).status_code == 302

    # Hand 2: table 1 by the organiser, table 2 on a phone; the close ends the drive.
    enter_by_the_organiser(client, drive, 1, [0, 4, 0], dealer=1)
    keep(1, [0, 4, 0], 1)
    enter_on_a_phone(drive, 2, [1, 0, 2], dealer=0)
    keep(2, [1, 0, 2], 2)
    pages["dashboard at the end of hand 2"] = client.get(f"/drives/{drive.pk}/").content.decode()
    closed = client.post(f"/drives/{drive.pk}/close", {"hand": "2"}, follow=True)
    drive.refresh_from_db()
    assert drive.is_finished
    pages["standings"] = client.get(f"/drives/{drive.pk}/standings").content.decode()
    pages["board at the end"] = Client().get(f"/{drive.join_code}/board").content.decode()
    pages["phone at the end"] = phone(drive, first_table[0]).get(f"/{drive.join_code}/me").content.decode()
    assert closed.content.decode().count("Standings (final)") >= 1

    standings = pages["standings"]
    for label in ("Hands won", "Best hand (sets)"):
        assert f'<th class="num">{label}</th>' in standings
    assert "Level on points? More hands won first, then the most sets laid in one hand." in standings
    assert "Most hands won" in standings
    rows = standings_rows(standings)
    assert set(rows) == set(sets)
    for name, per_hand in sets.items():
        assert rows[name] == (5 * sum(per_hand), won[name], max(per_hand), 2), name
    # In order: points, then hands won, then the best hand's sets.
    order = list(rows)
    keys = [(rows[n][0], rows[n][1], rows[n][2]) for n in order]
    assert keys == sorted(keys, reverse=True)

    # One hand's facts under one hand's names (a tester read "Best hand (sets)" over each hand's
    # sets on the score cards, and `hands_won` over a hand's 1 or 0 in the CSV).
    pages["score cards"] = client.get(f"/drives/{drive.pk}/print/scorecards").content.decode()
    assert "<th>Won</th><th>Sets</th>" in pages["score cards"] and "Best hand" not in pages["score cards"]
    hands_csv = client.get(f"/drives/{drive.pk}/export/hands.csv").content.decode("utf-8-sig")
    header, *lines = list(csv.reader(io.StringIO(hands_csv)))
    assert header[4:7] == ["won", "sets", "mover"]
    for line in lines:
        assert int(line[5]) == sets[line[2].lstrip("'")][int(line[0]) - 1], line
        assert line[4] == line[6]  # a hand is won by the player it moves up

    for where, page in pages.items():
        no_other_games_words(page, where)


def test_the_mover_of_a_hand_nobody_laid_a_set_in_is_noted_as_its_mover_not_its_winner(organiser, organiser_client):
    """A hand with no set laid showed "Kim 0 (won the hand)", though nobody won it.
    docs/rules.md counts hands won as hands in which the player was the mover, so the dealer's left,
    the mover, counts one; the note says just that: "mover" (not "moves up": at the top table the
    mover stays)."""
    drive = make_drive(organiser, 6, game="alice", preferred_table_size=3)
    organiser_client.post(f"/drives/{drive.pk}/draw", {"hand": "0"})
    organiser_client.post(f"/drives/{drive.pk}/start", {"hand": "1"})
    drive.refresh_from_db()
    enter_by_the_organiser(organiser_client, drive, 1, [0, 0, 0], dealer=0)
    enter_by_the_organiser(organiser_client, drive, 2, [1, 3, 0], dealer=0)
    page = organiser_client.get(f"/drives/{drive.pk}/").content.decode()
    _hand, _table, first = seated(drive, 1)
    _hand, _table, second = seated(drive, 2)
    assert f"<bdi>{first[1].name}</bdi> <strong>0</strong> (mover)" in page  # the dealer's left
    assert f"<bdi>{second[1].name}</bdi> <strong>15</strong> (mover)" in page
    assert page.count("(mover)") == 2 and "won the hand" not in page


def test_alices_own_screen_files_say_no_word_of_another_game():
    root = Path(__file__).resolve().parents[2]
    for path in (root / "templates/games/alice/play.html", root / "static/games/alice/play.js"):
        no_other_games_words(path.read_text(encoding="utf-8"), str(path.relative_to(root)))


# ---------------------------------------------------------------- the entry's words
def four_at_an_alice_table(organiser, organiser_client):
    """Cy, Di, Fay and Gus at one Alice table, hand 1 started; the table and its players in seat order."""
    drive = make_drive(organiser, 0, name="Alice entry", game="alice", preferred_table_size=4)
    services.add_players(drive, ["Cy", "Di", "Fay", "Gus"])
    assert organiser_client.post(f"/drives/{drive.pk}/draw", {"hand": "0"}).status_code == 302
    assert organiser_client.post(f"/drives/{drive.pk}/start", {"hand": "1"}).status_code == 302
    hand, table, players = seated(drive, 1)
    return drive, hand, table, players


def sent_from_the_phone(drive, hand, table, player, data) -> dict:
    """The phone's Send (static/js/entry.js): the answers posted, the server's JSON answer."""
    response = phone(drive, player).post(
        f"/{drive.join_code}/enter",
        {**data, "client_key": uuid.uuid4().hex, "seen_revision": "0", **shown_for(player, hand.number, table.number)},
        HTTP_ACCEPT="application/json")
    return response.json()


def plain(message: str) -> str:
    """A message without the isolates around each name (common/bidi.py)."""
    return message.replace("\u2068", "").replace("\u2069", "")


def test_an_impossible_alice_entry_names_the_players_in_plain_english(organiser, organiser_client):
    """"9 sets entered (seats [0, 1]), …", "Seats [0, 1] tie on 3 sets each…",
    "… no tie to break with seat 2.": seats counted from 0, Python lists. The phone's Send and
    the organiser's preview now name the players, as the form does, in plain English lists."""
    drive, hand, table, players = four_at_an_alice_table(organiser, organiser_client)
    a, b, c, d = (p.name for p in players)
    cases = [
        ([5, 4, 0, 0], None, f"9 sets entered ({a} 5 and {b} 4), but the pack holds only 8."),
        ([4, 4, 0, 0], None, f"{a} and {b} tie on 4 sets each: say which of them laid a set last."),
        ([2, 2, 2, 1], None, f"{a}, {b} and {c} tie on 2 sets each: say which of them laid a set last."),
        ([3, 3, 2, 0], 2, f"{c} is not one of the players tied on most sets ({a} and {b}): "
                          "say which of them laid a set last."),
        ([4, 3, 1, 0], 1, f"{a} alone laid the most sets (4), so there is no tie to break: "
                          f"choose \"No tie for most sets\", not {b}."),
        ([0, 0, 0, 0], 3, f"Nobody laid a set, so there is no tie to break: choose \"No tie for most sets\", not {d}."),
    ]
    preview = f"/drives/{drive.pk}/results/{table.pk}/preview"
    for sets, last, expected in cases:
        data = answers(sets, 0, last)
        sent = sent_from_the_phone(drive, hand, table, players[0], data)
        assert sent["ok"] is False and plain(sent["message"]) == expected, (sets, last, sent)
        shown = organiser_client.post(preview, data).json()
        assert plain(shown["message"]) == expected, (sets, last, shown)
        assert not re.search(r"\[|\]|\b[Ss]eats? \d", shown["message"]), shown["message"]


def checked_answers(page: str) -> dict:
    """The answers a form's page sends as it is opened: its checked radio buttons (what the
    browser posts for a question nobody touched)."""
    found = {}
    for tag in re.findall(r"<input[^>]*>", page):
        if 'type="radio"' in tag and re.search(r"\schecked\b", tag):
            found[re.search(r'name="([^"]+)"', tag).group(1)] = html.unescape(re.search(r'value="([^"]*)"', tag).group(1))
    return found


def test_with_no_tie_for_most_sets_the_tie_question_needs_no_answer(organiser, organiser_client):
    """Cy 5 sets, Di 3, nobody tied, yet Send was refused ("Say who laid a set last,
    or that nobody tied.") and the points preview waited for that answer. The question only
    matters on a tie: untouched, it says "No tie for most sets"."""
    drive, hand, table, players = four_at_an_alice_table(organiser, organiser_client)
    page = phone(drive, players[0]).get(f"/{drive.join_code}/enter").content.decode()
    data = {**checked_answers(page), "dealer": "0", "seat0_sets": "5", "seat1_sets": "3"}
    assert "last_set" in data  # the page opens with the tie question answered: no tie
    shown = organiser_client.post(f"/drives/{drive.pk}/results/{table.pk}/preview", data).json()
    assert shown["ok"] is True, shown
    assert [row["points"] for row in shown["points"]] == [25, 15, 0, 0]
    assert sent_from_the_phone(drive, hand, table, players[0], data)["ok"] is True
    table.refresh_from_db()
    assert table.result.winner == players[0] and table.result.summary["last_set"] is None

    # On a tie the untouched question is not an answer: the players tied are named.
    organiser_page = organiser_client.get(f"/drives/{drive.pk}/results/{table.pk}").content.decode()
    tie = {**checked_answers(organiser_page), "dealer": "0", "seat0_sets": "3", "seat1_sets": "3"}
    shown = organiser_client.post(f"/drives/{drive.pk}/results/{table.pk}/preview", tie).json()
    assert shown["ok"] is False and "tie on 3 sets each" in shown["message"]


def test_a_phone_entry_short_of_eight_sets_is_refused_unless_the_bell_stopped_the_hand(organiser, organiser_client):
    """A phone sent its form as it opens, only the dealer tapped (every
    player on 0 sets), and it was accepted without a word, a player moving up on "nobody laid a
    set". A hand played with cards ends when the eighth set is laid; the entry now asks whether
    all eight were, after the players' rows, answered "yes" until changed."""
    drive, hand, table, players = four_at_an_alice_table(organiser, organiser_client)
    page = phone(drive, players[0]).get(f"/{drive.join_code}/enter").content.decode()
    assert page.index("Sets laid") < page.index("Were all eight sets laid?")
    assert "Yes: all 8 sets were laid" in page and "No: the bell stopped the hand" in page
    untouched = {**checked_answers(page), "dealer": "0"}
    assert untouched["stopped"] == "False"
    expected = ("0 sets entered in all, but a hand played out ends when all 8 are laid: "
                "count the sets again, or say the bell stopped the hand.")
    sent = sent_from_the_phone(drive, hand, table, players[0], untouched)
    assert sent["ok"] is False and plain(sent["message"]) == expected, sent
    shown = organiser_client.post(f"/drives/{drive.pk}/results/{table.pk}/preview", untouched).json()
    assert shown["ok"] is False and plain(shown["message"]) == expected
    assert not hasattr(table, "result") or table.result is None
    # Six of eight: refused too; said to be stopped by the bell, taken as entered.
    six = {**untouched, "seat0_sets": "3", "seat1_sets": "2", "seat2_sets": "1"}
    assert sent_from_the_phone(drive, hand, table, players[0], six)["message"].startswith("6 sets entered in all")
    assert sent_from_the_phone(drive, hand, table, players[0], {**six, "stopped": "True"})["ok"] is True
    table.refresh_from_db()
    assert table.result.summary["stopped"] is True and table.result.winner == players[0]
    shown = html.unescape(re.sub(r"<[^>]+>", "", phone(drive, players[1]).get(f"/{drive.join_code}/me").content.decode()))
    assert "Were all eight sets laid? No: the bell stopped the hand" in shown
