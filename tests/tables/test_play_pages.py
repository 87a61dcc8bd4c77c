"""The phone's game page, the organiser's watch page, and adding a bot from the dashboard."""

from __future__ import annotations

import pytest
from django.urls import reverse

from tables.models import BotPlayer
from tests.tables.conftest import digital_drive, seated_players, table_of

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
    assert f'data-ws="/ws/play/{drive.join_code}/"' in body and "js/play.js" in body
    assert "<script>" not in body  # no inline script: only a JSON data block and play.js


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
