"""A whole drive of Alice played with cards, in Chromium: the organiser at 1280x800, the board on a
1920x1080 projector and six phones at 360x740, two tables of three, two hands. Results entered on
one phone and confirmed on another, an impossible one refused, one typed in from paper, a dispute
settled by the organiser's correction, a hand closed with a table missing, the drive ending at its
number of hands, the prizes revealed, the exports and score cards. Every page: no script or
console error, no server error, nothing from off the laptop, no sideways scroll on a phone, no
other game's words; the board is never reloaded."""

from __future__ import annotations

import csv
import functools
import io
import re

import pytest
from playwright.sync_api import expect

from tests.browser.page_checks import Watched, mark, never_reloaded
from tests.browser.test_drive_flow import table_players
from tests.browser.whole_drive import create_and_seat, join_code, no_words, phones_join, watched_board, watched_organiser

pytestmark = [pytest.mark.browser, pytest.mark.sqlite]
NAMES = ["Ann", "Bob", "Cy", "Di", "Ed", "Fay"]
NOT_ALICE = re.compile(r"declar|film|ice follies|pairs?\b|tricks?\b", re.I)  # the other games' words


def pick(page, field: str, answer: str) -> None:
    page.locator(f"fieldset[data-field={field}] label", has_text=re.compile(f"^{re.escape(answer)}")).first.click()


def sets_laid(page, seat: int, sets: int) -> None:
    page.locator(f"fieldset[data-seat='{seat}'] .seg label", has_text=re.compile(f"^{sets}$")).click()


def answer(page, dealer: str, sets: list[int], last: str | None) -> None:
    """Alice's questions: who dealt, each seat's sets, who laid last on a tie, all eight laid."""
    pick(page, "dealer", dealer)
    for seat, n in enumerate(sets):
        sets_laid(page, seat, n)
    if last:
        pick(page, "last_set", last)
    pick(page, "stopped", "Yes")


@pytest.mark.timeout(600)
def test_an_alice_drive_with_cards_from_joining_to_the_prizes(server, browser, phone_page):
    watched = Watched(server)
    words = functools.partial(no_words, NOT_ALICE)

    organiser = watched_organiser(watched, browser, server, "Alice with cards", game="alice", hands=2)
    organiser.fill("input[name=preferred_table_size]", "3")
    create_and_seat(organiser, NAMES)
    code = join_code(organiser)
    dashboard = organiser.url
    board = watched_board(watched, browser, server, code)

    phones = phones_join(watched, phone_page, server, code, NAMES, fits=True)
    organiser.click("button:has-text('Start hand 1')")
    t1, t2 = table_players(organiser, 1), table_players(organiser, 2)
    expect(board.locator("[data-progress]")).to_have_text("0 of 2 tables done")
    for name, phone in phones.items():
        expect(phone.locator("main")).to_contain_text(f"Table {1 if name in t1 else 2} — with")
        watched.fits(phone)
        words(phone, "a phone in hand 1")

    # Nine sets: the pack holds eight. Said before sending, refused if sent.
    enterer = phones[t1[0]]
    enterer.get_by_role("link", name="Enter the result").click()
    answer(enterer, t1[0], [3, 3, 3], None)
    expect(enterer.locator("[data-preview-box]")).to_contain_text("the pack holds only 8")
    enterer.click("button:has-text('Send the result')")
    expect(enterer.locator("main")).to_contain_text("the pack holds only 8")
    watched.fits(enterer)
    # Level on three sets, the second player laid last: they won the hand.
    answer(enterer, t1[0], [3, 3, 2], t1[1])
    expect(enterer.locator("[data-preview-box]")).to_contain_text(f"{t1[1]}: 15 points; won the hand")
    words(enterer, "the entry form")
    enterer.click("button:has-text('Send the result')")
    expect(enterer.locator("main")).to_contain_text("waiting for confirmation")
    confirmer = phones[t1[2]]
    mark(confirmer)
    confirm = confirmer.get_by_role("button", name="Confirm: this is right")
    expect(confirm).to_be_visible()  # shown live, no reload
    assert never_reloaded(confirmer)
    watched.fits(confirmer)
    confirm.click()
    expect(confirmer.locator("main")).to_contain_text("confirmed")
    expect(board.locator("[data-progress]")).to_have_text("1 of 2 tables done")

    # Table 2 from paper, on the dashboard: the middle seat laid four.
    organiser.locator("#table-2").get_by_role("link", name="Enter result").click()
    answer(organiser, t2[0], [2, 4, 2], None)
    expect(organiser.locator("[data-preview-box]")).to_contain_text(f"{t2[1]}: 20 points; won the hand")
    organiser.click("button:has-text('Save the result')")
    expect(board.locator("[data-progress]")).to_have_text("2 of 2 tables done")
    organiser.get_by_role("button", name="Close hand 1").click()
    expect(organiser.locator("main")).to_contain_text("seating for hand 2 is shown")

    # Movement: the winner moves up (at the top table, stays), the player on their left down
    # (at the last table, stays); every phone says so, the board names who moved.
    moves = {t1[2]: "Move DOWN to Table 2", t2[1]: "Move UP to Table 1"}
    for name, phone in phones.items():
        here = "Table 1" if name in t1 else "Table 2"
        expect(phone.locator("[data-instruction]")).to_have_text(moves.get(name, f"Stay at {here}"))
    expect(board.locator(".movement")).to_contain_text(f"↑{t2[1]}")
    expect(board.locator(".movement")).to_contain_text(f"↓{t1[2]}")
    assert t2[1] in table_players(organiser, 1) and t1[2] in table_players(organiser, 2)
    expect(organiser.locator("#table-1")).to_contain_text(f"{t2[1]} ↑ up from Table 2")  # the dashboard too
    expect(organiser.locator("#table-2")).to_contain_text(f"{t1[2]} ↓ down from Table 1")
    words(board, "the board after the close")

    # Hand 2: Table 1's entry is disputed; the organiser corrects it. Table 2 sends nothing.
    organiser.click("button:has-text('Start hand 2')")
    t1 = table_players(organiser, 1)
    enterer = phones[t1[0]]
    enterer.get_by_role("link", name="Enter the result").click()
    answer(enterer, t1[0], [4, 4, 0], t1[0])
    enterer.click("button:has-text('Send the result')")
    disputer = phones[t1[2]]
    expect(disputer.get_by_role("button", name="Dispute")).to_be_visible()
    disputer.fill("input[name=reason]", "I laid two sets")
    disputer.get_by_role("button", name="Dispute").click()
    expect(disputer.locator("ul.messages")).to_contain_text("Disputed")
    expect(organiser.locator("#table-1")).to_contain_text("Disputed")
    expect(organiser.get_by_role("button", name="Close hand 2")).to_be_disabled()
    organiser.locator("#table-1").get_by_role("link", name="Settle").click()
    expect(organiser.locator("main")).to_contain_text("“I laid two sets”")
    sets_laid(organiser, 1, 2)
    sets_laid(organiser, 2, 2)
    pick(organiser, "last_set", "No tie")
    expect(organiser.locator("[data-preview-box]")).to_contain_text(f"{t1[1]}: 20 → 10 points")
    organiser.fill("input[name=reason]", "The table agrees: two sets each")
    organiser.click("button:has-text('Save the correction')")
    expect(disputer.locator("main")).to_contain_text("confirmed")
    expect(disputer.locator("ul.messages")).to_have_count(0)
    organiser.get_by_role("button", name="Close anyway").click()  # the last hand: the drive ends
    expect(organiser.locator("main")).to_contain_text("the final standings are frozen")

    expect(board.locator("main")).to_contain_text("Final standings")
    for phone in phones.values():
        expect(phone.locator("main")).to_contain_text("The drive has finished.")
        expect(phone.locator("main")).to_contain_text("The prizes are revealed on the board.")
    standings = list(csv.DictReader(io.StringIO(organiser.request.get(dashboard + "export/standings.csv").text().lstrip("\ufeff"))))
    assert len(standings) == 6
    winners = [r["player"] for r in standings if r["rank"] == "1"]
    winner = winners[0]
    expect(organiser.locator("main")).to_contain_text("Most hands won: ")
    words(organiser, "the final standings")
    organiser.get_by_role("button", name="Reveal the prizes on the board").click()
    expect(board.locator("main")).to_contain_text(re.compile(f"Winners?: .*{winner}"))
    expect(board.locator("main")).to_contain_text("Most hands won")
    expect(phones[winner].locator("main")).to_contain_text("You won, with" if len(winners) == 1 else "You share first place")
    for name, phone in phones.items():
        watched.fits(phone)
        words(phone, f"{name}'s phone at the end")
    assert never_reloaded(board)

    hands = list(csv.DictReader(io.StringIO(organiser.request.get(dashboard + "export/hands.csv").text().lstrip("\ufeff"))))
    assert len(hands) == 12 and {"won", "sets", "mover", "corrected"} <= set(hands[0])
    assert {r["source"] for r in hands if r["hand"] == "2" and r["table"] == "2"} == {"not_played"}
    assert {r["corrected"] for r in hands if r["hand"] == "2" and r["table"] == "1"} == {"1"}
    organiser.goto(dashboard + "print/scorecards")
    cards = organiser.locator("main h2")
    expect(cards).to_have_count(6)
    expect(organiser.locator("main table").first.locator("th")).to_have_text(["Hand", "Table", "Points", "Won", "Sets", "Total"])
    expect(organiser.locator("main")).to_contain_text("not played")
    for path in ("print/tables", "hands/1", "hands/2", "log"):
        organiser.goto(dashboard + path)
        words(organiser, path)
    expect(organiser.locator("main")).to_contain_text("The table agrees: two sets each")
    assert watched.problems == []
