"""The organiser's other pages of a drive: who may see them, the CSV exports, the standings and
prizes, printed table and score cards, the admin, and the links between the pages."""

from __future__ import annotations

import csv
import io
import re

import pytest

from drive import services
from drive.models import Drive
from scoring.models import Correction, Result, Score
from tests.factories import declared, finish_all_tables, seated_drive

pytestmark = pytest.mark.django_db


def test_another_organisers_drive_is_not_found(client, django_user_model, organiser):
    drive = seated_drive(organiser, 4)
    other = django_user_model.objects.create_user(username="mallory", password="x-very-long-pass")
    client.force_login(other)
    for url in [f"/drives/{drive.pk}/", f"/drives/{drive.pk}/standings", f"/drives/{drive.pk}/export/hands.csv"]:
        assert client.get(url).status_code == 404
    assert client.post(f"/drives/{drive.pk}/close").status_code == 404


def test_stranger_is_sent_to_sign_in(client, organiser):
    drive = seated_drive(organiser, 4)
    response = client.post(f"/drives/{drive.pk}/close")
    assert response.status_code == 302 and "/login/" in response["Location"]


def test_get_on_a_write_url_is_refused(organiser_client, organiser):
    drive = seated_drive(organiser, 4)
    assert organiser_client.get(f"/drives/{drive.pk}/close").status_code == 405


def test_exports(organiser_client, organiser):
    drive = seated_drive(organiser, 4, target="hands", target_hands=1)
    drive.players.filter(name="P001").update(name="=HYPERLINK(1)")
    finish_all_tables(drive, organiser)
    table = drive.hands.get().tables.get()
    services.organiser_result(drive, table, declared(4, 0, sets={1: 1}), organiser, reason="checked on paper")  # corrected
    services.close_hand(drive)
    hands = organiser_client.get(f"/drives/{drive.pk}/export/hands.csv")
    rows = list(csv.reader(io.StringIO(hands.content.decode("utf-8-sig"))))
    assert rows[0][:4] == ["hand", "table", "player", "points"]
    assert len(rows) == 5 and sum(int(r[3]) for r in rows[1:]) == 20  # 15 for the declaration, 5 for a set
    assert any(r[2] == "'=HYPERLINK(1)" for r in rows[1:])
    # The table's players in seat order, and the one who moved up marked.
    seat_order = [s.player.name for s in table.seats.select_related("player").order_by("position")]
    assert [r[2].lstrip("'") for r in rows[1:]] == seat_order
    moved = rows[0].index("mover")
    assert [r[2].lstrip("'") for r in rows[1:] if r[moved] == "1"] == [table.result.mover.name]
    corrected = rows[0].index("corrected")
    assert {r[corrected] for r in rows[1:]} == {"1"}  # the organiser's correction shows
    # What the result answered, in its form's words: the table's answers, then the player's own.
    answers = [r[rows[0].index("answers")] for r in rows[1:]]
    declarer = seat_order[0].lstrip("'")
    assert all(a.startswith(f"Who declared? {declarer}; ") for a in answers), answers
    assert "; Complete sets of other films (+5 each; none for the declarer): 1; " in answers[1], answers
    standings = organiser_client.get(f"/drives/{drive.pk}/export/standings.csv")
    rows = list(csv.reader(io.StringIO(standings.content.decode("utf-8-sig"))))
    assert rows[0][:3] == ["rank", "tied", "player"]
    assert rows[1][0] == "1" and rows[1][1] == "0" and rows[1][3] == "15"
    tied = [row for row in rows[1:] if row[1] == "1"]  # the others share a rank: a number, no "="
    assert tied and all(row[0].isdigit() for row in tied)


def test_final_standings_page_shows_prizes(organiser_client, organiser):
    drive = seated_drive(organiser, 4, target="hands", target_hands=1)
    finish_all_tables(drive, organiser)
    services.close_hand(drive)
    page = organiser_client.get(f"/drives/{drive.pk}/standings").content.decode()
    assert "Winner" in page and "Booby prize" in page and "Most declarations" in page


def test_printable_cards(organiser_client, organiser):
    drive = seated_drive(organiser, 8)
    tables = organiser_client.get(f"/drives/{drive.pk}/print/tables").content.decode()
    assert "Table 2" in tables
    # A player at the table joins from the card: its QR code and address, not the bare code
    # (which says nowhere where to type it), on every table's card.
    card = re.search(r'<section class="print-card.*?</section>', tables, re.S).group(0)
    assert card.count("<svg") == 1 and f"http://testserver/{drive.join_code}" in card
    assert tables.count("<svg") == 2
    assert "P008" in organiser_client.get(f"/drives/{drive.pk}/print/scorecards").content.decode()


def test_a_table_card_asks_for_the_answers_its_games_result_form_asks(organiser_client, organiser):
    """A Wonderland table's card asked each player's points, which nobody works out
    at the table (the server does, from each one's pairs and cards taken)."""
    drive = seated_drive(organiser, 8, game="wonderland")
    card = re.search(r'<section class="print-card.*?</section>', organiser_client.get(
        f"/drives/{drive.pk}/print/tables").content.decode(), re.S).group(0)
    assert ("write each one's name beside their answers (Pairs taken (+10 each); Cards taken). Note too: Who dealt? "
            "Who took the Pool of Tears card (Plain picture 16)? Were all the cards played? The points are worked out "
            "when the result is entered.") in card


def test_table_cards_carry_the_join_qr_code_and_no_bot_gets_a_score_card(organiser_client, organiser):
    """Found by a probe from outside: the printed table cards said "Join on your phone with code
    …" with no QR code (docs: "table cards (with QR codes)"), and a bot got a paper score card
    although it never plays with cards."""
    from drive import phone_links
    from tables import digital

    drive = seated_drive(organiser, 7, start=False)
    services.set_table_mode(drive, 2, "digital")
    bot = services.add_bot(drive, drive.hands.get().tables.get(number=2).pk)
    response = organiser_client.get(f"/drives/{drive.pk}/print/tables")
    page = response.content.decode()
    qr = phone_links.qr_svg(phone_links.join_url(response.wsgi_request, drive), phone_links.join_qr_label(drive))
    assert page.count(qr) == 2  # one on each table's card
    cards = organiser_client.get(f"/drives/{drive.pk}/print/scorecards").content.decode()
    assert cards.count('class="print-card"') == 7 and bot.name not in cards


@pytest.mark.parametrize("url", ["/admin/drive/drive/", "/admin/drive/player/", "/admin/tables/hand/",
                                 "/admin/tables/tablehand/", "/admin/scoring/result/", "/admin/scoring/correction/"])
def test_admin_shows_the_raw_data(client, django_user_model, organiser, url):
    drive = seated_drive(organiser, 4)
    finish_all_tables(drive, organiser)
    table = drive.hands.get().tables.get()
    services.organiser_result(drive, table, declared(4, 1), organiser, reason="Bob declared")
    admin_user = django_user_model.objects.create_superuser(username="root", password="root-password-123")
    client.force_login(admin_user)
    response = client.get(url)
    assert response.status_code == 200
    model = {"drive": Drive, "player": drive.players.model, "hand": drive.hands.model, "tablehand": type(table),
             "result": Result, "correction": Correction}[url.rstrip("/").rsplit("/", 1)[1]]
    row, rules = model.objects.first(), drive.house_rules
    detail = client.get(f"{url}{row.pk}/change/")
    assert detail.status_code == 200 and 'name="_save"' not in detail.content.decode()  # read-only
    # Found by a tester: the admin saved rows no service had checked (house rules the game
    # cannot read, a drive's game changed after its hands), and the drive's pages then failed.
    # Raw data is looked at, never changed there: every change goes through the dashboard.
    assert client.post(f"{url}{row.pk}/change/", {"house_rules": '{"answer_seconds": "abc"}', "game": "wonderland",
                                                 "name": "Changed", "_save": "1"}).status_code == 403
    assert client.get(f"{url}add/").status_code == 403 and client.post(f"{url}add/", {"_save": "1"}).status_code == 403
    assert client.post(f"{url}{row.pk}/delete/", {"post": "yes"}).status_code == 403
    assert model.objects.filter(pk=row.pk).exists()
    drive.refresh_from_db()
    assert drive.game == "film-fantasy" and drive.house_rules == rules and drive.name != "Changed"
    assert client.get(f"/drives/{drive.pk}/").status_code == 200


def test_a_player_who_left_is_marked_left_everywhere_the_standings_show_still_ranked_by_points(
        organiser_client, organiser, client):
    """A leaver keeps their points (docs/drive-rules.md) and stays ranked by them; the board,
    the standings page and the dashboard mark the row "left" (they showed nothing: the room and
    the organiser took the leaver for someone still playing). The CSV says so in a column; the
    final standings keep the mark."""
    drive = seated_drive(organiser, 8)
    finish_all_tables(drive, organiser)  # each table's first seat declares: 15 each, the others 0
    hand2 = services.close_hand(drive)
    first = drive.hands.get(number=1).tables.get(number=1).seats.get(position=0).player
    services.withdraw_player(drive, first)
    stayer = drive.hands.get(number=1).tables.get(number=2).seats.get(position=0).player

    def row(page: str, player) -> str:
        return re.search(rf'<tr data-player="{player.pk}"[^>]*>(.*?)</tr>', page, re.S).group(1)

    pages = {
        "board": client.get(f"/{drive.join_code}/board").content.decode(),
        "standings": organiser_client.get(f"/drives/{drive.pk}/standings").content.decode(),
        "dashboard": organiser_client.get(f"/drives/{drive.pk}/").content.decode(),
    }
    for where, page in pages.items():
        left, stays = row(page, first), row(page, stayer)
        assert '<span class="tag-left"' in left and ">left</span>" in left, where
        assert "tag-left" not in stays, where
        # Still ranked by their points: level on 15 with the other declarer, the rank shared.
        assert '<td class="rank">=1</td>' in left and '<td class="num total">15</td>' in left, where
        assert '<td class="rank">=1</td>' in stays, where
    assert hand2.seats.filter(player=first).count() == 0
    standings = organiser_client.get(f"/drives/{drive.pk}/export/standings.csv")
    rows = list(csv.reader(io.StringIO(standings.content.decode("utf-8-sig"))))
    assert rows[0][-2:] == ["left", "bot"]
    assert all(row[0] and row[1] in ("0", "1") for row in rows[1:] if row[-3] != "0")  # a place once played
    assert {row[2]: row[-2] for row in rows[1:]}[first.name] == "1"
    assert {row[2]: row[-2] for row in rows[1:]}[stayer.name] == "0"
    services.end_drive(drive)
    final = organiser_client.get(f"/drives/{drive.pk}/standings").content.decode()
    assert "tag-left" in row(final, first) and "tag-left" not in row(final, stayer)
    # Level on points with the winner, but gone: no prize for a player who left (nor the booby).
    winners = re.search(r"<li><strong>Winners?:</strong>(.*?)</li>", final, re.S).group(1)
    assert stayer.name in winners and first.name not in winners
    assert "Players who left the drive keep their place in the standings but win no prize." in final


def test_every_organiser_page_of_a_drive_links_to_the_others(organiser_client, organiser):
    """A tester found only "Dashboard" in the top bar of the standings, settings, phones and
    corrections pages."""
    drive = seated_drive(organiser, 4)
    table = drive.hands.get().tables.get()
    base = f"/drives/{drive.pk}"
    for url in (f"{base}/", f"{base}/standings", f"{base}/log", f"{base}/phones", f"{base}/edit",
                f"{base}/hands/1", f"{base}/results/{table.pk}"):
        page = organiser_client.get(url).content.decode()
        nav = page[page.index("<nav>"):page.index("</nav>")]
        for target in ("standings", "phones", "log", "edit"):
            assert f'href="{base}/{target}"' in nav, (url, target)
        assert f'href="/{drive.join_code}/board"' in nav, url


def test_score_cards_carry_the_games_facts_and_the_recorded_hands(organiser_client, organiser):
    """Score cards had only Hand / Table / Points / Total, blank even after the drive (a tester of
    Wonderland needed the pairs and cards taken, the tie-breaks, on paper)."""
    drive = seated_drive(organiser, 4, target="hands", target_hands=2)
    finish_all_tables(drive, organiser)
    services.close_hand(drive)
    cards = organiser_client.get(f"/drives/{drive.pk}/print/scorecards").content.decode()
    facts = [f.label for f in drive.game_rules.facts]
    assert facts and all(f"<th>{label}</th>" in cards for label in facts)
    score = Score.objects.filter(drive=drive, hand_number=1).select_related("player").order_by("-points").first()
    card = re.search(rf'<section class="print-card">\s*<h2[^>]*>(?:(?!</h2>).)*{score.player.name}(?:(?!</section>).)*',
                     cards, re.S).group(0)
    first = re.search(r"<tr><td>1</td>(.*?)</tr>", card).group(1)
    assert first.startswith(f"<td>1</td><td>{score.points}</td>") and first.endswith(f"<td>{score.points}</td>")
    assert "<tr><td>2</td><td></td><td></td>" in card  # hand 2 not played yet: blank, to fill in
    # A player who left after playing keeps their card, their record (it was gone);
    # one who left before playing has none.
    services.withdraw_player(drive, score.player)
    services.withdraw_player(drive, services.add_players(drive, ["Late Larry"])[0])
    cards = organiser_client.get(f"/drives/{drive.pk}/print/scorecards").content.decode()
    assert cards.count('class="print-card"') == 4 and "Late Larry" not in cards
    assert f"<bdi>{score.player.name}</bdi> <span class=\"small muted\">(left)</span>" in cards


def test_a_finished_drives_score_cards_have_its_hands_only_and_say_a_table_was_not_played(organiser_client, organiser):
    """QA: a drive ended at its points after 3 hands printed blank rows up to hand 12, and a
    table closed without a result read as a hand of 0 points, though the standings count no hand."""
    drive = seated_drive(organiser, 8, target="hands", target_hands=4)
    first, second = drive.hands.get().tables.order_by("number")
    services.organiser_result(drive, first, declared(4, 0), organiser)
    services.close_hand(drive, force=True)  # Table 2: not played
    services.end_drive(drive)
    cards = organiser_client.get(f"/drives/{drive.pk}/print/scorecards").content.decode()
    assert "<tr><td>1</td>" in cards and "<tr><td>2</td>" not in cards
    absent = second.seats.get(position=0).player
    card = re.search(rf'<section class="print-card">\s*<h2[^>]*><bdi>{absent.name}</bdi>(?:(?!</section>).)*',
                     cards, re.S).group(0)
    assert re.search(r"<tr><td>1</td><td>2</td><td>not played</td>(<td></td>)+<td>0</td></tr>", card), card
    unplayed = seated_drive(organiser, 4, start=False)
    services.end_drive(unplayed)  # before any hand
    cards = organiser_client.get(f"/drives/{unplayed.pk}/print/scorecards").content.decode()
    assert 'class="print-card"' not in cards and "ended before any hand was played" in cards


def test_the_hands_csv_names_no_mover_at_a_table_the_drives_last_close_found_not_played(organiser_client, organiser):
    """QA: the last hand's table with no result gave one of its players mover 1, though nobody
    moved and nobody won there."""
    drive = seated_drive(organiser, 8, target="hands", target_hands=1)
    first, second = drive.hands.get().tables.order_by("number")
    services.organiser_result(drive, first, declared(4, 0), organiser)
    services.close_hand(drive, force=True)  # the drive's last hand; Table 2 not played
    assert Drive.objects.get(pk=drive.pk).is_finished
    rows = list(csv.DictReader(io.StringIO(
        organiser_client.get(f"/drives/{drive.pk}/export/hands.csv").content.decode("utf-8-sig"))))
    assert [r["mover"] for r in rows if r["table"] == "2"] == ["0"] * 4
    assert sorted(r["mover"] for r in rows if r["table"] == "1") == ["0", "0", "0", "1"]  # the hand's winner


def test_a_table_cards_score_grid_has_a_row_a_hand_with_that_hands_players(organiser_client, organiser):
    """The card that stays on the table headed its score columns with the first
    hand's players, who have all moved on by the second. Its columns are seats; each hand's row
    names its players, the current hand's printed in."""
    drive = seated_drive(organiser, 8)
    page = organiser_client.get(f"/drives/{drive.pk}/print/tables").content.decode()
    card = re.search(r'<section class="print-card.*?</section>', page, re.S).group(0)
    grid = re.search(r'<table class="grid score-grid">.*?</table>', card, re.S).group(0)
    heads = re.findall(r"<th>(.*?)</th>", grid)
    assert heads == ["Hand", "Seat 1", "Seat 2", "Seat 3", "Seat 4"]
    rows = re.findall(r"<tr>(.*?)</tr>", grid.split("<tbody>")[1], re.S)
    table = drive.hands.get().tables.get(number=1)
    names = [s.player.name for s in table.seats.order_by("position")]
    first = re.findall(r"<td>(.*?)</td>", rows[0])
    assert first[0] == "1" and [re.sub(r"<[^>]+>", "", c) for c in first[1:]] == names
    assert len(rows) == 6 and all(re.sub(r"<td>(&nbsp;)?</td>", "", r).strip() == "" for r in rows[1:])
    # A table on the phones gets no paper grid (its phones score it).
    drive = seated_drive(organiser, 8, start=False)
    services.set_table_mode(drive, 2, "digital")
    page = organiser_client.get(f"/drives/{drive.pk}/print/tables").content.decode()
    cards = re.findall(r'<section class="print-card.*?</section>', page, re.S)
    assert "score-grid" in cards[0] and "score-grid" not in cards[1] and "Played on the phones" in cards[1]


def test_an_organisers_page_not_found_gives_the_organiser_advice_not_a_phones(organiser_client, organiser, client):
    """A stale table's page told the organiser to check the join code."""
    drive = seated_drive(organiser, 4)
    page = organiser_client.get(f"/drives/{drive.pk}/results/999999").content.decode()
    assert "No such table in this drive." in page and "its dashboard links to each of its hands and tables" in page
    assert "five letters" not in page
    assert "five letters, like" in client.get("/QQQQQ/me").content.decode()  # a phone's: the join code


def test_an_earlier_hands_page_offers_no_watch_link(organiser_client, organiser):
    """Found by a tester: "Watch Table 1" on hand 2's page opened the watch page of the current
    hand, hand 3. The watch page shows the drive's current hand: offered on the dashboard only."""
    drive = seated_drive(organiser, 8, play_mode="digital", target="hands", target_hands=5)
    watch = f"/{drive.join_code}/tables/1/watch"
    assert watch in organiser_client.get(f"/drives/{drive.pk}/").content.decode()
    services.close_hand(drive, force=True)
    services.start_hand(drive)
    assert watch not in organiser_client.get(f"/drives/{drive.pk}/hands/1").content.decode()
    assert watch in organiser_client.get(f"/drives/{drive.pk}/").content.decode()


def test_the_watch_page_opens_only_on_a_table_of_the_current_hand_as_its_socket_watches(organiser_client, organiser):
    """Found reading the code: the page opened on a table number any hand had had, and its socket
    then refused it ("There is no such table in this hand"). Hand 2, with four players taken out,
    has one table where hand 1 had two."""
    drive = seated_drive(organiser, 8, play_mode="digital", target="hands", target_hands=5)
    assert organiser_client.get(f"/{drive.join_code}/tables/2/watch").status_code == 200
    services.close_hand(drive, force=True)
    for player in drive.players.order_by("pk")[:4]:
        services.withdraw_player(drive, player)
    services.start_hand(drive)
    assert drive.hands.get(number=2).tables.count() == 1
    gone = organiser_client.get(f"/{drive.join_code}/tables/2/watch")
    assert gone.status_code == 404 and "No table of that number in the current hand." in gone.content.decode()
    assert organiser_client.get(f"/{drive.join_code}/tables/1/watch").status_code == 200


def test_the_standings_csv_gives_no_place_to_a_player_who_has_played_no_hand(organiser, organiser_client):
    """As every page shows "–" for them: the CSV had given newcomers a shared place below the rest."""
    drive = seated_drive(organiser, 8)
    services.add_players(drive, ["Late", "Later"])  # during hand 1: seated at the next
    services.organiser_result(drive, drive.hands.get().tables.get(number=1), declared(4, 0), organiser)
    rows = list(csv.DictReader(io.StringIO(
        organiser_client.get(f"/drives/{drive.pk}/export/standings.csv").content.decode("utf-8-sig"))))
    waiting = [row for row in rows if row["hands_played"] == "0"]
    assert {row["player"] for row in waiting} >= {"Late", "Later"}
    assert all(row["rank"] == "" and row["tied"] == "" for row in waiting)
    assert [row["rank"] for row in rows if row["hands_played"] != "0"][0] == "1"
