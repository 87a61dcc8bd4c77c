"""A drive of The Game of Alice in Wonderland played on the phones, in Chromium: three players on
360x740 phones and a bot in the fourth seat, the organiser at 1280x800, the board on a 1920x1080
projector. The hand is played to its end by tapping cards; the result enters the drive by itself,
the board follows live without a reload, the close ends the drive, the bot keeps its place but
wins no prize and has no score card. Every page: no script or console error, no server error,
nothing from off the laptop, no sideways scroll on a phone, no other game's words."""

from __future__ import annotations

import csv
import functools
import io
import re
import time

import pytest
from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import expect

from tests.browser.page_checks import Watched, never_reloaded
from tests.browser.test_drive_flow import table_players
from tests.browser.whole_drive import create_and_seat, join_code, no_words, phones_join, watched_board, watched_organiser

pytestmark = [pytest.mark.browser, pytest.mark.sqlite]
NAMES = ["Ann", "Bob", "Cy"]
NOT_WONDERLAND = re.compile(r"declar|film|ice follies|white rabbit|cheshire|sets? laid", re.I)
MOVES = "document.querySelectorAll('#history li').length"


def play_one(page) -> bool:
    """This phone's player plays their first legal card if it is their turn; True once the move is
    in the page's log (a screen re-rendered under the tap loses it: False, the caller goes on)."""
    try:
        if not page.inner_text("#status", timeout=5_000).startswith("Your"):
            return False
        legal = page.locator("#hand button.wl-card.legal")
        if not legal.count():
            return False
        before = page.evaluate(MOVES)
        card = legal.first.get_attribute("data-card", timeout=5_000)
        page.locator(f'#hand button.wl-card.legal[data-card="{card}"]').dispatch_event("click", timeout=5_000)
        page.wait_for_function(f"{MOVES} > {before}", timeout=30_000)
        return True
    except PlaywrightError:
        return False


@pytest.mark.timeout(600)
def test_three_phones_and_a_bot_play_a_wonderland_drive_to_its_prizes(server, browser, phone_page):
    watched = Watched(server)
    words = functools.partial(no_words, NOT_WONDERLAND)

    organiser = watched_organiser(watched, browser, server, "Wonderland on the phones", game="wonderland", hands=1)
    organiser.select_option("select[name=play_mode]", "digital")
    create_and_seat(organiser, NAMES)
    organiser.get_by_role("button", name=re.compile("Add a bot to this table")).click()
    expect(organiser.locator("#table-1")).to_contain_text("a table with a bot plays on the phones")
    seated = table_players(organiser, 1)
    assert sorted(seated) == ["Ann", "Bob", "Bot 1", "Cy"]
    code = join_code(organiser)
    dashboard = organiser.url
    board = watched_board(watched, browser, server, code)

    phones = phones_join(watched, phone_page, server, code, NAMES)
    organiser.click("button:has-text('Start hand 1')")
    expect(board.locator("[data-progress]")).to_have_text("0 of 1 table done")
    for name, phone in phones.items():
        phone.get_by_role("link", name="Play the hand").click()
        expect(phone.locator("#deal-info")).to_contain_text("Deal 1 of 2 (7 cards each).")
        expect(phone.locator("#hand button.wl-card")).to_have_count(7)  # only its own cards
        watched.fits(phone, f"{name}'s game screen")
        words(phone, f"{name}'s game screen")

    deadline = time.monotonic() + 400
    result = phones["Ann"].locator("#result")
    while not result.is_visible():
        assert time.monotonic() < deadline, "the hand did not end"
        if not any([play_one(phone) for phone in phones.values()]):  # the bot's turn: wait for a move
            try:
                seen = phones["Ann"].evaluate(MOVES)
                phones["Ann"].wait_for_function(f"{MOVES} > {seen} || !document.querySelector('#result').hidden",
                                                timeout=10_000)
            except PlaywrightError:
                pass
    for name, phone in phones.items():
        expect(phone.locator("#result")).to_contain_text("The hand is over")
        expect(phone.locator("#result")).to_contain_text("top scorer")
        watched.fits(phone, f"{name}'s finished hand")
    expect(board.locator("[data-progress]")).to_have_text("1 of 1 table done")  # live, no reload
    expect(organiser.locator("#table-1")).to_contain_text("won the hand")
    expect(board.locator("table.standings")).to_contain_text("Bot 1")
    organiser.get_by_role("button", name="Close hand 1").click()
    expect(organiser.locator("main")).to_contain_text("the final standings are frozen")
    expect(board.locator("main")).to_contain_text("Final standings")
    for name, phone in phones.items():
        expect(phone.locator("main")).to_contain_text("The drive has finished")
        phone.get_by_role("link", name="See your final place").click()
        expect(phone.locator("main")).to_contain_text(re.compile(r"You (won|share first place|finished)"))
        watched.fits(phone, f"{name}'s final place")
        words(phone, f"{name}'s final place")

    expect(organiser.locator("main")).to_contain_text("Bots keep their place in the standings but win no prize")
    organiser.get_by_role("button", name="Reveal the prizes on the board").click()
    expect(board.locator("main")).to_contain_text("Most pairs")
    expect(board.locator("main")).to_contain_text("Winner")
    assert "Bot 1" not in board.inner_text("main")
    assert never_reloaded(board)
    words(board, "the board's prizes")

    hands = list(csv.DictReader(io.StringIO(organiser.request.get(dashboard + "export/hands.csv").text().lstrip("\ufeff"))))
    assert sorted(r["player"] for r in hands) == sorted(seated)
    assert {"pairs", "cards_taken"} <= set(hands[0]) and {r["source"] for r in hands} == {"digital"}
    organiser.goto(dashboard + "print/scorecards")
    expect(organiser.locator("main h2")).to_have_text(NAMES)  # none for the bot
    words(organiser, "the score cards")
    assert watched.problems == []
