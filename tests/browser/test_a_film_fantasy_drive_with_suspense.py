"""A drive of Film Fantasy with cards, in Chromium, with its last hand kept secret: the organiser at
1280x800, the board on a 1920x1080 projector, three phones at 360x740 and a late arrival who adds
their own name on the join page. Three hands typed in from paper; each close moves the declarer
up and the player on their left down (phones, board, dashboard); the last hand's standings stay
secret on the board and the phones until the prizes are revealed. Every page: no script or
console error, no server error, nothing from off the laptop, no sideways scroll on a phone."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.browser.page_checks import Watched, never_reloaded
from tests.browser.test_drive_flow import organiser_enters, table_players
from tests.browser.whole_drive import create_and_seat, join_code, phones_join, watched_board, watched_organiser

pytestmark = [pytest.mark.browser, pytest.mark.sqlite]
NAMES = ["Ann", "Bob", "Cy", "Di"]


def every_table_declared_by(organiser, server, seat: int) -> list[list[str]]:
    """Each table's result typed in from paper, ``seat`` declaring; the tables, in seat order."""
    tables = [table_players(organiser, n) for n in range(1, organiser.locator("#tables article").count() + 1)]
    for number, names in enumerate(tables, start=1):
        organiser_enters(organiser, server, number, names[seat])
        expect(organiser.locator("main")).to_contain_text(f"Table {number}, hand")
    return tables


@pytest.mark.timeout(600)
def test_a_film_fantasy_drive_keeps_its_last_hand_secret_until_the_prizes(server, browser, phone_page):
    watched = Watched(server)
    organiser = watched_organiser(watched, browser, server, "Film Fantasy with a secret", hands=3)
    organiser.fill("input[name=suspense_hands]", "1")
    organiser.check("input[name=allow_self_join]")
    organiser.fill("input[name=preferred_table_size]", "2")
    create_and_seat(organiser, NAMES)
    code = join_code(organiser)
    board = watched_board(watched, browser, server, code)

    phones = phones_join(watched, phone_page, server, code, NAMES[:3])
    late = watched.page(phone_page(), "Zed")
    late.goto(f"{server}/{code}")
    late.get_by_label("Not on the list? Your name").fill("Zed")
    late.get_by_role("button", name="Join", exact=True).click()
    expect(late.locator("h1")).to_have_text("Zed")
    expect(late.locator("main")).to_contain_text("Sit at Table")  # seated at once: no hand yet
    phones["Zed"] = late
    expect(organiser.locator("[data-live=players-count]")).to_have_text("Players (5)")  # live

    for number in (1, 2):
        organiser.click(f"button:has-text('Start hand {number}')")
        tables = every_table_declared_by(organiser, server, seat=0)
        organiser.get_by_role("button", name=f"Close hand {number}").click()
        expect(organiser.locator("main")).to_contain_text(f"seating for hand {number + 1} is shown")
        up, down = tables[1][0], tables[0][1]  # Table 2's declarer; the left of Table 1's
        for name, words in ((up, "Move UP to Table 1"), (down, "Move DOWN to Table 2")):
            if name in phones:  # (Di has no phone)
                expect(phones[name].locator("[data-instruction]")).to_have_text(words)
        expect(board.locator(".movement")).to_contain_text(f"↑{up}")
        expect(board.locator(".movement")).to_contain_text(f"↓{down}")
        expect(organiser.locator("#table-1")).to_contain_text(f"{up} ↑ up from Table 2")
        expect(organiser.locator("#table-2")).to_contain_text(f"{down} ↓ down from Table 1")
        for name, phone in phones.items():
            watched.fits(phone, f"{name} after hand {number}")
    standings_after_2 = board.locator("table.standings").inner_text()

    # The last hand: its points are kept secret on the board and the phones.
    organiser.click("button:has-text('Start hand 3')")
    expect(board.locator("main")).to_contain_text("Standings after hand 2 — the rest is a secret until the end!")
    for phone in phones.values():
        expect(phone.locator("main")).to_contain_text("After hand 2: ")
    every_table_declared_by(organiser, server, seat=1)
    expect(board.locator("[data-progress]")).to_have_text("2 of 2 tables done")
    assert board.locator("table.standings").inner_text() == standings_after_2  # nothing given away
    organiser.get_by_role("button", name="Close hand 3").click()
    expect(organiser.locator("main")).to_contain_text("the final standings are frozen")
    expect(board.locator("main")).to_contain_text("The drive has finished: the winners are revealed next")
    for phone in phones.values():
        expect(phone.locator("main")).to_contain_text("The winners are revealed on the board.")
        expect(phone.locator("main")).not_to_contain_text("points")
    winner = re.search(r"Winners?: (\w+)", organiser.inner_text("main")).group(1)
    organiser.get_by_role("button", name="Reveal the prizes on the board").click()
    expect(board.locator("main")).to_contain_text(re.compile(f"Winners?: .*{winner}"))
    expect(board.locator("main")).to_contain_text("Most declarations")
    if winner in phones:
        expect(phones[winner].locator("main")).to_contain_text(re.compile("You (won|share first place)"))
    organiser.get_by_role("button", name="Back to standings on the board").click()
    expect(board.locator("main")).to_contain_text("Final standings")
    assert never_reloaded(board)
    for name, phone in phones.items():
        expect(phone.locator("main")).to_contain_text(re.compile(r"You (won|share first place|finished)"))
        watched.fits(phone, f"{name} at the end")
    assert watched.problems == []
