"""The phone's game page, the organiser's watch page, and adding a bot from the dashboard."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.conf import settings
from django.urls import reverse

from drive.templatetags.drive_tags import place
from tables.models import BotPlayer
from tests.tables.conftest import digital_drive, play_to_the_end, seated_players, table_of
from tests.test_game_words import WORDS

pytestmark = pytest.mark.django_db


def test_the_game_page_needs_the_players_cookie(client, organiser):
    drive = digital_drive(organiser, 4)
    url = reverse("tables:play", args=[drive.join_code])
    assert client.get(url).status_code == 302
    player = seated_players(table_of(drive))[0]
    client.cookies[f"ff_{drive.join_code}"] = player.token
    page = client.get(url)
    assert page.status_code == 200
    body = page.content.decode()
    assert f'data-ws="/ws/play/{drive.join_code}/"' in body
    # The shared client, then the game's own screen script and markup, found from its slug.
    # (The keyboard's place across redraws, static/js/play_focus.js, before the client that uses it.)
    # (Names in a sentence as <bdi>s, static/js/sentence.js, before the client that uses it.)
    assert (body.index("/static/js/play_focus.js") < body.index("/static/js/play_client.js")
            < body.index("/static/games/film-fantasy/play.js"))
    assert body.index("/static/js/sentence.js") < body.index("/static/js/play_client.js")
    assert 'id="game-data"' in body and "Lucky Night" in body and 'id="declare"' in body
    assert "<script>" not in body  # no inline script: only a JSON data block and the scripts
    assert "{#" not in body and "{%" not in body  # no template comment shown as text



@pytest.mark.parametrize("penalty", [True, False])
def test_the_film_fantasy_screen_knows_the_drives_joker_house_rule(client, organiser, penalty):
    """Found in a browser: with the house rule off, the result still said a declaration scores
    "less 5 for each Joker left over". The screen's data carries the drive's rule, and its
    script words the result by it."""
    import json

    drive = digital_drive(organiser, 4, house_rules={"declarer_joker_penalty": penalty})
    client.cookies[f"ff_{drive.join_code}"] = seated_players(table_of(drive))[0].token
    body = client.get(reverse("tables:play", args=[drive.join_code])).content.decode()
    data = json.loads(re.search(r'<script id="game-data" type="application/json">(.*?)</script>', body, re.S)[1])
    assert data["declarer_joker_penalty"] is penalty
    script = (Path(settings.BASE_DIR) / "static/games/film-fantasy/play.js").read_text()
    assert '(client.data.declarer_joker_penalty ? ", less 5 for each Joker left over" : "")' in script


def test_a_game_page_of_a_player_taken_out_says_so_on_the_join_page(client, organiser):
    """The organiser took Rae out mid-hand: her game page reloaded onto the join page with no
    word of why (a tester); it says so, as the phone's own page does."""
    from drive import services

    drive = digital_drive(organiser, 4)
    player = seated_players(table_of(drive))[0]
    client.cookies[f"ff_{drive.join_code}"] = player.token
    services.withdraw_player(drive, player)
    page = client.get(reverse("tables:play", args=[drive.join_code]), follow=True)
    assert page.redirect_chain[-1][0].endswith(f"/{drive.join_code}")
    assert f"The organiser has taken <bdi>{player.name}</bdi> out of the drive" in page.content.decode()


def test_the_shared_screen_knows_no_game():
    """The play pages, the shared client and the views are every game's: a game's words and
    element ids live in its own templates/games/<slug>/ and static/games/<slug>/, and the views
    import no game (the screen is found from the drive's game slug)."""
    root = Path(settings.BASE_DIR)
    shared = [root / "static/js/play_client.js", root / "static/js/play_focus.js", root / "tables/views.py",
              *sorted((root / "templates/tables").glob("*.html"))]
    for path in shared:
        found = WORDS.findall(path.read_text())  # every game's words (tests/test_game_words.py)
        assert not found, (path, found)
    assert "import film_fantasy" not in (root / "tables/views.py").read_text()
    assert (root / "templates/games/film-fantasy/play.html").exists()
    assert (root / "static/games/film-fantasy/play.js").exists()


def test_the_organiser_watch_page_loads_the_games_screen(organiser_client, organiser):
    drive = digital_drive(organiser, 4)
    body = organiser_client.get(reverse("tables:watch", args=[drive.join_code, 1])).content.decode()
    assert (body.index("/static/js/sentence.js") < body.index("/static/js/play_client.js")
            < body.index("/static/games/film-fantasy/play.js"))
    assert 'data-mode="watch"' in body and 'id="game-data"' in body and 'id="declare"' in body


def test_names_are_escaped_on_the_game_page(client, organiser):
    from drive import services

    drive = digital_drive(organiser, 3, start=False)
    services.add_players(drive, ["<b>Ann</b>"])
    player = drive.players.get(name="<b>Ann</b>")
    client.cookies[f"ff_{drive.join_code}"] = player.token
    assert "<b>Ann</b>" not in client.get(reverse("tables:play", args=[drive.join_code])).content.decode()


def test_the_organiser_adds_a_bot_between_hands(organiser_client, organiser):
    drive = digital_drive(organiser, 3, start=False)
    table = table_of(drive)
    response = organiser_client.post(reverse("tables:add_bot", args=[drive.join_code, table.pk]))
    assert response.status_code == 302
    assert BotPlayer.objects.filter(player__drive=drive).count() == 1
    assert table_of(drive).seats.count() == 4
    assert "Add a bot to this table" in organiser_client.get(reverse("drive:dashboard", args=[drive.pk])).content.decode()
    # Found in a browser: a full table still offered the button, which only said it was full.
    game = drive.game_rules
    for _ in range(game.max_players - 4):
        organiser_client.post(reverse("tables:add_bot", args=[drive.join_code, table.pk]))
    assert table_of(drive).seats.count() == game.max_players
    page = organiser_client.get(reverse("drive:dashboard", args=[drive.pk])).content.decode()
    assert "Add a bot to this table" not in page
    assert f"Full: {game.name} is played by at most {game.max_players} at a table." in page


def test_strangers_cannot_add_bots_or_watch(client, organiser, django_user_model):
    drive = digital_drive(organiser, 3, start=False)
    table = table_of(drive)
    client.force_login(django_user_model.objects.create_user(username="eve", password="x" * 12))
    assert client.post(reverse("tables:add_bot", args=[drive.join_code, table.pk])).status_code == 404
    assert client.get(reverse("tables:watch", args=[drive.join_code, 1])).status_code == 404
    assert not BotPlayer.objects.exists()


def test_the_organiser_watch_page_opens(organiser_client, organiser):
    drive = digital_drive(organiser, 4)
    page = organiser_client.get(reverse("tables:watch", args=[drive.join_code, 1]))
    assert page.status_code == 200 and f"/ws/watch/{drive.join_code}/1/" in page.content.decode()


def test_a_player_whose_digital_table_is_done_is_told_to_wait_for_the_close(client, organiser):
    """Once the engine has recorded the table's result, the phone's drive page stops offering
    'Play the hand': it shows the result, says the table is done and the organiser closes the
    hand, and links to the finished hand."""
    from tables.models import TableHand

    drive = digital_drive(organiser, 4)
    table = table_of(drive)
    players = seated_players(table)
    client.cookies[f"ff_{drive.join_code}"] = players[0].token
    me = reverse("phone:me", args=[drive.join_code])
    assert "Play the hand" in client.get(me).content.decode()
    play_to_the_end(table, players, 4, token=True)
    assert TableHand.objects.get(pk=table.pk).status == TableHand.Status.CONFIRMED
    body = client.get(me).content.decode()
    assert "Play the hand" not in body
    assert "Result ✓ confirmed" in body and "Your table is done" in body and "See the hand" in body

    # The organiser "corrects" it to what it is: nothing to correct (the engine's own record,
    # kept beside the answers, does not make it look changed).
    from drive import services
    from scoring.models import Result

    result = Result.objects.get(table=table)
    answers = {k: v for k, v in result.summary.items() if k != "digital"}
    with pytest.raises(services.DriveError, match="nothing to correct"):
        services.organiser_result(drive, table, answers, organiser, reason="checking", seen_revision=result.revision)
    assert "digital" in Result.objects.get(table=table).summary


def test_the_finished_drive_tells_each_phone_its_place_in_words(client, organiser):
    from drive import services
    from drive.selectors import standings
    from tests.factories import finish_all_tables, seated_drive

    drive = seated_drive(organiser, 8, target="hands", target_hands=1)
    finish_all_tables(drive, organiser)
    services.close_hand(drive)
    services.show_prizes(drive, True)  # the winner is said once the board has revealed the prizes
    drive.refresh_from_db()
    assert drive.is_finished
    ranked = standings(drive)
    first, last = ranked[0], ranked[-1]
    for row, expected in ((first, "You won, with" if not first.tied else "You share first place, with"),
                          (last, f"You finished {place(last)} of 8, with {last.total} points.")):
        client.cookies[f"ff_{drive.join_code}"] = drive.players.get(pk=row.row.player_id).token
        body = client.get(reverse("phone:me", args=[drive.join_code])).content.decode()
        assert expected in body and "the winner!" not in body


def test_a_seats_basis_ignores_other_seats_moves_however_long_the_log():
    """Other seats' offers bump the version, not what a seat's choice rests on: its basis
    (``digital.seat_basis``) leaves out the game's chatter keys, among them where the view's
    part of the log starts, which moves with every entry once the log is longer than a view
    carries (found by review: a stale move would then have been refused as 'moved on')."""
    from games.film_fantasy.hand import AUCTION, VIEW_LOG
    from tables.digital import seat_basis
    from tests.games.conftest import make_hand

    hand = make_hand([["1-1", "1-2", "2-1", "3-1"], ["4-1", "4-2", "5-1", "6-1"], ["7-1", "7-2", "8-1", "9-1"]],
                     phase=AUCTION)
    for _ in range(VIEW_LOG // 2 - 1):  # seats 1 and 2 chatter: the log passes what a view carries
        for seat, to, card in ((1, 2, "6-1"), (2, 1, "9-1")):
            hand.apply(seat, {"type": "offer", "to": to, "cards": [card]})
            hand.apply(seat, {"type": "withdraw", "offer": next(iter(hand.offers))})
    assert len(hand.log) > VIEW_LOG
    before, log_from = seat_basis(hand.view(0)), hand.view(0)["log_from"]
    hand.apply(1, {"type": "offer", "to": 2, "cards": ["6-1"]})
    assert hand.view(0)["log_from"] == log_from + 1  # the view's part of the log moved on
    assert seat_basis(hand.view(0)) == before  # seat 0 is not part of it: the same basis
