"""The seats in order at a table with cards: each phone names its player's left and right
neighbours (left is the next seat, clockwise; the first seat is on the last seat's left:
docs/drive-rules.md), and the dashboard's table cards and the printed ones list the seats in
that order, for every game."""

from __future__ import annotations

import html
import re

import pytest
from django.test import Client

from games import all_games
from tests.factories import seated_drive

pytestmark = pytest.mark.django_db
GAMES = [game.slug for game in all_games()]


def page_text(response) -> str:
    """The page's words: tags dropped, entities read, spaces squeezed."""
    words = re.sub(r"<[^>]+>", " ", response.content.decode())
    return re.sub(r"\s+", " ", html.unescape(words)).replace("\u2068", "").replace("\u2069", "")


def seat_names(table) -> list[str]:
    return [s.player.name for s in table.seats.select_related("player").order_by("position")]


@pytest.mark.parametrize("game", GAMES)
def test_a_phone_at_a_table_names_its_left_and_right_neighbours_in_seat_order(organiser, game):
    drive = seated_drive(organiser, 4, game=game)
    table = drive.hands.get().tables.get()
    names = seat_names(table)
    players = {p.name: p for p in drive.players.all()}
    for at, name in enumerate(names):
        phone = Client()
        phone.cookies[f"ff_{drive.join_code}"] = players[name].token
        text = page_text(phone.get(f"/{drive.join_code}/me"))
        left, right = names[(at + 1) % 4], names[at - 1]
        assert f"On your left: {left} · on your right: {right}" in text, text
        circle = " → ".join(f"Seat {n} {who}" + (" (you)" if who == name else "") for n, who in enumerate(names, 1))
        assert circle in text


def test_at_a_table_of_two_the_other_player_is_on_both_sides(organiser):
    drive = seated_drive(organiser, 2)
    first, second = seat_names(drive.hands.get().tables.get())
    phone = Client()
    phone.cookies[f"ff_{drive.join_code}"] = drive.players.get(name=first).token
    assert f"On your left and right: {second}" in page_text(phone.get(f"/{drive.join_code}/me"))


@pytest.mark.parametrize("game", GAMES)
def test_the_dashboard_and_the_printed_table_cards_list_the_seats_clockwise(organiser_client, organiser, game):
    drive = seated_drive(organiser, 7, game=game)
    tables = list(drive.hands.get().tables.order_by("number"))
    printed = page_text(organiser_client.get(f"/drives/{drive.pk}/print/tables"))
    dashboard = page_text(organiser_client.get(f"/drives/{drive.pk}/"))
    for table in tables:
        names = seat_names(table)
        circle = " → ".join(f"Seat {n} {who}" for n, who in enumerate(names, 1))
        assert circle in printed
        assert " ".join(f"Seat {n} {who}" for n, who in enumerate(names, 1)) in dashboard
    assert printed.count("Sit clockwise in this order") == len(tables)
    assert dashboard.count("Sit clockwise in this order") == len(tables)


def test_a_tables_result_lists_the_players_in_seat_order_on_the_dashboard_and_the_phones(organiser_client, organiser):
    """QA read "Ann 5 · Bob 10 · Ed 20 · Hal 5" on a table seated Bob, Ann, Ed, Hal: the
    result's points were listed by name."""
    from drive import services
    from tests.factories import declared

    drive = seated_drive(organiser, 8)
    tables = list(drive.hands.get().tables.order_by("number"))
    for table in tables:
        services.organiser_result(drive, table, declared(table.seats.count(), 1), organiser)
    assert any(seat_names(t) != sorted(seat_names(t)) for t in tables), "the seating happens to be alphabetical"
    dashboard = organiser_client.get(f"/drives/{drive.pk}/").content.decode()
    players = {p.name: p for p in drive.players.all()}
    for table in tables:
        names = seat_names(table)
        card = re.search(rf'id="table-{table.number}".*?<p class="small" data-points>(.*?)</p>', dashboard, re.S).group(1)
        assert re.findall(r"<bdi>(.*?)</bdi>", card) == names
        phone = Client()
        phone.cookies[f"ff_{drive.join_code}"] = players[names[0]].token
        page = phone.get(f"/{drive.join_code}/me").content.decode()
        listed = re.search(r"<h2[^>]*>Result.*?<ul>(.*?)</ul>", page, re.S).group(1)
        assert re.findall(r"<li><bdi>(.*?)</bdi>", listed) == names
