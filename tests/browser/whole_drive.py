"""The set-up the whole-drive walks share (a drive of each game, from joining to the prizes): the
organiser's laptop and the board's projector watched (page_checks.Watched), the drive created
and seated, each phone joined by the join code, and no other game's words on a page."""

from __future__ import annotations

import re

from playwright.sync_api import expect

from tests.browser.page_checks import Watched, mark
from tests.browser.test_drive_flow import organiser_opens_a_new_drive

LAPTOP = {"width": 1280, "height": 800}
PROJECTOR = {"width": 1920, "height": 1080}


def watched_organiser(watched: Watched, browser, server: str, name: str, game: str | None = None,
                      hands: int | None = None):
    """The organiser's laptop, watched, every question answered yes, on the new drive's form
    named ``name``: of ``game`` (else the form's own), to ``hands`` hands (else the form's own
    target); the drive's other settings are the caller's."""
    organiser = watched.page(browser.new_page(viewport=LAPTOP), "organiser")
    organiser.on("dialog", lambda d: d.accept())
    organiser_opens_a_new_drive(organiser, server, name)
    if game is not None:
        organiser.select_option("select[name=game]", game)
    if hands is not None:
        organiser.select_option("select[name=target]", "hands")
        organiser.fill("input[name=target_hands]", str(hands))
    return organiser


def create_and_seat(page, names: list[str]) -> None:
    """The new drive's form sent, ``names`` added and the seating drawn."""
    page.click("button:has-text('Create the drive')")
    page.fill("textarea[name=names]", "\n".join(names))
    page.click("button:has-text('Add players')")
    page.click("button:has-text('Draw the seating')")


def join_code(organiser) -> str:
    """The join code the dashboard shows."""
    return re.search(r"join code ([A-Z]+)", organiser.inner_text("main")).group(1)


def watched_board(watched: Watched, browser, server: str, code: str):
    """The drive's board on the projector, watched and marked (``page_checks.never_reloaded``)."""
    board = watched.page(browser.new_page(viewport=PROJECTOR), "board")
    board.goto(f"{server}/{code}/board")
    mark(board)
    return board


def phones_join(watched: Watched, phone_page, server: str, code: str, names: list[str],
                fits: bool = False) -> dict:
    """Each of ``names`` joins on a phone of its own, watched, by the join code as the QR code's
    link opens it (``fits``: the join page is checked for a sideways scroll first); the phones
    by name."""
    phones = {}
    for name in names:
        phone = watched.page(phone_page(), name)
        phone.goto(f"{server}/{code}")
        if fits:
            watched.fits(phone)
        phone.get_by_role("button", name=name, exact=True).click()
        expect(phone.locator("h1")).to_have_text(name)
        phones[name] = phone
    return phones


def no_words(words: re.Pattern, page, where: str) -> None:
    """``page`` says none of ``words`` (another game's)."""
    found = words.findall(page.inner_text("body"))
    assert not found, (where, found)
