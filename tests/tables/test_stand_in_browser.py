"""A phone whose seat a bot plays for now (the organiser's stand-in), in Chromium against daphne:
nothing on its game screen says the player is to act."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.tables import screens_support as S

pytestmark = [pytest.mark.browser, pytest.mark.sqlite]

# Wonderland: the bots play on until seat 0 is to lead a trick, then a bot stands in for seat 0.
_TO_SEAT_0_S_LEAD = """
while not (state.leader == 0 and not state.trick and state.turn == 0) and bot_move():
    pass
assert state.leader == 0 and not state.finished
TableHand.objects.filter(pk=table.pk).update(state=state.to_json(), version=state.version)
from tables import digital
digital.set_stand_in(drive, table.pk, 0, True)
print(json.dumps({"code": drive.join_code, "seats": [[p.name, p.token] for p in seats]}))
"""


@pytest.mark.timeout(600)  # a backstop: a server started on a busy machine
def test_a_seat_a_bot_plays_is_not_told_it_leads(server, browser):
    """Wonderland: the trick led by the bot playing seat 0 says so, not "You lead this trick" nor
    "Your lead", and the status line says the bot plays the seat for now."""
    script = S.wonderland_started("stood-in", moves=0).replace(S.SAVE, _TO_SEAT_0_S_LEAD)
    data = server.shell_json(script)
    page = S.open_phone(browser, server, data["code"], data["seats"][0][1])
    expect(page.locator("#status")).to_contain_text("A bot is playing your seat for now")
    expect(page.locator("#deal-info")).to_contain_text("The bot playing your seat leads this trick.")
    expect(page.locator("#trick-box")).not_to_contain_text("Your lead")
    expect(page.locator("#screen")).not_to_contain_text("You lead")
    page.context.close()


@pytest.mark.timeout(600)  # a backstop: a server started on a busy machine
def test_a_seat_a_bot_plays_is_not_told_how_to_declare(server, browser):
    """Film Fantasy: while a bot plays the seat, the line on why Declare is not shown (what the
    player needs to declare) is not shown either: Declare is not the player's to tap."""
    script = S.ff_dealt("stood-in-ff").replace(S.SAVE, S.SAVE.replace(
        "print(", "from tables import digital\ndigital.set_stand_in(drive, table.pk, 0, True)\nprint(", 1))
    data = server.shell_json(script)
    page = S.open_phone(browser, server, data["code"], data["seats"][0][1])
    expect(page.locator("#status")).to_contain_text("A bot is playing your seat for now")
    expect(page.locator(S.HAND_CARDS).first).to_be_visible()
    expect(page.locator("#declare-why")).to_be_hidden()
    page.context.close()
