"""How Film Fantasy's screen says who deals, on a small phone in Chromium against daphne: the
dealer drawn (cards dealt face up round the table until the Joker, docs/rules.md "Choosing the
dealer"), or a home game's deal passed to the left. The setups are screens_support's, as the
other game-screen tests' (test_play_screens_browser.py)."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.tables import screens_support as S

pytestmark = [pytest.mark.browser, pytest.mark.sqlite]


@pytest.mark.timeout(600)  # a backstop: a server started on a busy machine
@pytest.mark.parametrize(("drawn", "dealer", "words"), [
    # "drew the Joker after 0 cards face up" when the first card was the Joker.
    (1, 0, "drew the Joker with the first card face up"),
    (2, 1, "drew the Joker after 1 card face up"),
    (3, 2, "drew the Joker after 2 cards face up"),
    # Found by a rules review: no Joker is drawn for a home game's later hand; the screen said
    # the dealer "drew the Joker after -1 cards".
    (0, 2, "a home game: the deal passes to the left"),
])
def test_the_screen_says_how_the_dealer_was_found(server, browser, drawn, dealer, words):
    data = server.shell_json(S.ff_dealer(f"ff-dealer-{drawn}", drawn))
    page = S.open_phone(browser, server, data["code"], data["seats"][0][1])
    expect(page.locator("#dealer-draw")).to_have_text(f"Dealer: {data['seats'][dealer][0]} ({words})")
    page.context.close()
