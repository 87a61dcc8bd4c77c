"""A game screen between hands, in Chromium against daphne: what it says when its player's next
table plays with cards, and a screen opened during a hand with cards showing the next hand's
cards once its table plays on the phones (its watchdog's look, as after a missed message)."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.tables import screens_support as S

pytestmark = [pytest.mark.browser, pytest.mark.sqlite]

# A drive of eight at two tables on the phones, hand 1 dealt; prints the code and, for hand 2 or
# the next step, a player of table 2 with their token.
_TWO_TABLES = """
from django.contrib.auth import get_user_model
from django.utils import timezone
from drive import services
from drive.models import Drive
import random
user = get_user_model().objects.create_user(username="olive-%(tag)s", password="organiser-pass-123")
drive = Drive.objects.create(organiser=user, name="Between %(tag)s", game="%(game)s", play_mode="digital", seed=5,
                             preferred_table_size=4, target="hands", target_hands=5)
services.add_players(drive, ["Ann", "Bob", "Cy", "Di", "Eve", "Fay", "Gus", "Hal"])
services.draw_seating(drive, random.Random(1))
drive.players.update(phone_joined_at=timezone.now())
%(then)s
player = drive.hands.order_by("-number").first().tables.get(number=2).seats.order_by("position").first().player
print(json.dumps({"code": drive.join_code, "token": player.token, "id": drive.pk}))
"""
_NEXT = """
from drive.models import Drive
from drive import services
drive = Drive.objects.get(pk=%(id)d)
%(then)s
print("{}")
"""
QUICK_WATCHDOG = "window.PLAY_QUIET_MS = 500;"  # the screen looks again after half a second of quiet


@pytest.mark.timeout(600)  # a backstop: a server started on a busy machine
def test_a_screen_waiting_for_its_next_table_stops_saying_so_once_that_table_plays_with_cards(server, browser):
    """Hand 1 played on the phones and closed; the screen of a player whose next table is on the
    phones says that hand has not started yet. The organiser turns that table to cards and starts
    the hand: the screen says where it is played, and its status line no longer says the hand has
    not started (it says the hand shown, hand 1, as it ended)."""
    data = server.shell_json(_TWO_TABLES % {"tag": "waiting-cards", "game": "wonderland", "then": (
        "services.start_hand(drive)\nservices.close_hand(drive, force=True)")})
    page = S.open_phone(browser, server, data["code"], data["token"])
    expect(page.locator("#status")).to_contain_text("Hand 2 has not started yet")
    expect(page.locator("#result")).to_contain_text("The hand is over")
    server.shell_json(_NEXT % {"id": data["id"], "then": (
        "services.set_table_mode(drive, 2, 'physical')\nservices.start_hand(drive)")})
    expect(page.locator("#instruction")).to_contain_text("Hand 2 has started: you are at Table 2, playing with cards")
    expect(page.locator("#status")).not_to_contain_text("has not started")
    expect(page.locator("#status")).to_have_text("The organiser ended the hand.")
    page.context.close()


@pytest.mark.timeout(600)  # a backstop: a server started on a busy machine
def test_a_screen_opened_during_a_hand_with_cards_shows_the_next_hand_s_cards(server, browser):
    """Alice, whose screen hides its boxes while no hand of the player's is shown: opened while the
    player's table plays with cards, it shows the cards of the next hand at a table on the phones."""
    data = server.shell_json(_TWO_TABLES % {"tag": "cards-then-phones", "game": "alice", "then": (
        "services.set_table_mode(drive, 2, 'physical')\nservices.start_hand(drive)")})
    context = browser.new_context(viewport=S.SMALL_PHONE, is_mobile=True, has_touch=True)
    context.add_init_script(QUICK_WATCHDOG)
    context.add_cookies([{"name": f"ff_{data['code']}", "value": data["token"], "url": server.url}])
    page = context.new_page()
    page.goto(f"{server.url}/{data['code']}/play")
    expect(page.locator("#instruction")).to_contain_text("Hand 1 has started: you are at Table 2, playing with cards")
    expect(page.locator("#status")).to_have_text("No hand of yours is played on this page now.")
    server.shell_json(_NEXT % {"id": data["id"], "then": (
        "services.close_hand(drive, force=True)\n"
        "services.set_table_mode(drive, 2, 'digital')\nservices.start_hand(drive)")})
    expect(page.locator("#table-title")).to_have_text("Table 2, hand 2")
    expect(page.locator("#alice")).to_be_visible()
    expect(page.locator("#hand .c").first).to_be_visible()
    context.close()
