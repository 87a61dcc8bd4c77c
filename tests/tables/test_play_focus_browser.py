"""The keyboard's place on each game's screen (WCAG 2.4.3), in Chromium against daphne: found by
QA on Alice's screen, a card acted on with Enter, then the player asked, each dropped the focus to
<body> (every view rebuilds the row, the hand and the ask box). The player's phone is driven by
the keyboard only (Tab, Enter, Space); the other seats' phones tap. After each act, and after a
view another seat's move brought, the focus is on the same control, or the next one, or the
question asked, or the status line: never on <body>."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.tables import screens_support as S
from tests.tables.test_wonderland_browser import whose_turn

pytestmark = [pytest.mark.browser, pytest.mark.sqlite]

MOVED = 30_000  # ms: another phone's move reaching this one (a busy machine)
FOCUSED = "(sel) => document.activeElement.matches(sel)"
HISTORY = "(n) => document.querySelectorAll('#history li').length > n"


def tab_to(page, selector: str) -> None:
    """From the top of the page, Tab until the control ``selector`` has the focus."""
    page.evaluate("window.scrollTo({top: 0, behavior: 'instant'}); document.activeElement.blur()")
    for _ in range(120):
        page.keyboard.press("Tab")
        if page.evaluate(FOCUSED, selector):
            return
    raise AssertionError(f"Tab never reached {selector}")


def cards_of(page, selector: str) -> list[str]:
    return page.eval_on_selector_all(selector, "bs => bs.map(b => b.dataset.card)")


@pytest.mark.timeout(600)  # a backstop: a server started on a busy machine
def test_alice_keeps_the_keyboard_on_the_card_the_ask_and_the_question(server, browser):
    data = server.shell_json(S.alice_mid_hand("focus-alice"))  # Ann's turn; Bob holds A4 and B3
    code, seats = data["code"], data["seats"]
    bob_name = seats[1][0]
    ann = S.open_phone(browser, server, code, seats[0][1])
    expect(ann.locator("#status")).to_contain_text("Your turn", timeout=MOVED)
    card = lambda c: ann.locator(f'#hand button[data-card="{c}"]')  # noqa: E731
    first_player = ann.locator('#alice-ask button[data-seat="1"]')

    # A missing card chosen: the keyboard goes on to the first player to ask; Cancel brings it back.
    tab_to(ann, '#hand button[data-card="A4"]')
    ann.keyboard.press("Enter")
    expect(ann.locator("#alice-ask p")).to_have_text(re.compile(r"^Ask for A4 .*: tap a player\.$"))
    expect(first_player).to_be_focused()
    ann.keyboard.press("Tab")
    ann.keyboard.press("Tab")
    expect(ann.locator("#alice-ask button", has_text="Cancel")).to_be_focused()
    ann.keyboard.press("Enter")
    expect(ann.locator("#alice-ask")).to_be_hidden()
    expect(card("A4")).to_be_focused()

    # Asked again, of Bob, who hands A4 over: Ann goes on, on the next card missing (A4 is held).
    ann.keyboard.press("Enter")
    expect(first_player).to_be_focused()
    ann.keyboard.press("Enter")
    expect(ann.locator("#log li").first).to_have_text(f"{bob_name} handed A4 to you.", timeout=MOVED)
    expect(ann.locator('#hand .held[data-card="A4"]')).to_have_count(1)
    expect(card("A5")).to_be_focused()

    # Bob does not hold A5 and Ann holds no Cat: the turn passes, her cards go grey, and the focus
    # waits on the status line, there still after Bob's move; back on A5 when her turn comes.
    ann.keyboard.press("Enter")
    expect(first_player).to_be_focused()
    ann.keyboard.press("Enter")
    expect(ann.locator("#status")).to_have_text(f"It is {bob_name}’s turn.", timeout=MOVED)
    expect(ann.locator("#status")).to_be_focused()
    bob = S.open_phone(browser, server, code, seats[1][1])
    bob.locator('#alice-row button.c[data-card="E3"]:not([disabled])').click()
    expect(ann.locator("#log li").first).to_have_text(re.compile(f"^{bob_name} took E3 from the row"), timeout=MOVED)
    expect(ann.locator("#status")).to_be_focused()
    cy = S.open_phone(browser, server, code, seats[2][1])
    cy.locator('#alice-row button.c[data-card="G3"]:not([disabled])').click()
    expect(ann.locator("#status")).to_contain_text("Your turn", timeout=MOVED)
    expect(card("A5")).to_be_focused()

    # Ann takes a row card (her turn ends: the status line); Bob asks her for B1, which she holds
    # with a White Rabbit: the focus goes to the question; answered, back to the status line.
    tab_to(ann, '#alice-row button[data-card="B2"]')
    ann.keyboard.press("Enter")
    expect(ann.locator("#log li").first).to_have_text(re.compile(r"^You took B2 from the row"), timeout=MOVED)
    expect(ann.locator("#status")).to_be_focused()
    bob.locator('#hand button.missing[data-card="B1"]:not([disabled])').click()
    bob.locator('#alice-ask button[data-seat="0"]').click()
    expect(ann.locator("#alice-prompt button").first).to_have_text("Give B1", timeout=MOVED)
    expect(ann.locator("#alice-prompt button").first).to_be_focused()
    ann.keyboard.press("Tab")
    expect(ann.locator("#alice-prompt button", has_text="Play your White Rabbit")).to_be_focused()
    ann.keyboard.press("Enter")
    expect(ann.locator("#log li").first).to_have_text("You refused with a White Rabbit.", timeout=MOVED)
    expect(ann.locator("#status")).to_be_focused()
    for page in (ann, bob, cy):
        page.context.close()


@pytest.mark.timeout(600)  # a backstop: a server started on a busy machine
def test_film_fantasy_keeps_the_keyboard_on_the_card_passed_until_it_goes_then_on_the_next(server, browser):
    data = server.shell_json(S.ff_dealt("focus-ff"))  # every seat's first pass awaited
    code, seats = data["code"], data["seats"]
    ann = S.open_phone(browser, server, code, seats[0][1])
    expect(ann.locator("#status")).to_contain_text("choose a card to pass", timeout=MOVED)
    hand = cards_of(ann, "#hand button.c")
    passed, after = hand[1], hand[2]   # the next card: the one after it on the screen
    tab_to(ann, f'#hand button.c[data-card="{passed}"]')
    ann.keyboard.press("Enter")
    card = ann.locator(f'#hand button.c[data-card="{passed}"]')
    expect(card).to_have_attribute("aria-label", re.compile(r"\(passing\)$"))
    expect(card).to_be_focused()

    # Each other seat's pass is a new view on Ann's phone: the focus stays on the card passed,
    # until the passes move left and it is gone: then on the next card.
    waiting = ann.locator("#seats li.waiting")
    for n, (_, token) in enumerate(seats[1:]):
        other = S.open_phone(browser, server, code, token)
        other.locator("#hand button.c").first.click()
        if n < 2:
            expect(waiting).to_have_count(2 - n, timeout=MOVED)
            expect(card).to_be_focused()
        other.context.close()
    expect(ann.locator("#log li").first).to_have_text("The passes moved left and everyone drew a card.", timeout=MOVED)
    expect(card).to_have_count(0)
    expect(ann.locator(f'#hand button.c[data-card="{after}"]')).to_be_focused()
    ann.context.close()


@pytest.mark.timeout(600)  # a backstop: a server started on a busy machine
def test_wonderland_keeps_the_keyboard_in_the_hand_after_a_play_and_the_next_players(server, browser):
    data = server.shell_json(S.wonderland_started("focus-wl", moves=6, until_seat_0=True))  # Ann to play
    code, seats = data["code"], data["seats"]
    ann = S.open_phone(browser, server, code, seats[0][1])
    expect(ann.locator("#status")).to_contain_text("Your turn", timeout=MOVED)
    hand = cards_of(ann, "#hand button.wl-card")
    played = cards_of(ann, "#hand button.wl-card.legal")[0]
    i = hand.index(played)
    after = hand[i + 1] if i + 1 < len(hand) else hand[i - 1]   # the next card, else the one before
    tab_to(ann, f'#hand button.wl-card[data-card="{played}"]')
    count = ann.evaluate("document.querySelectorAll('#history li').length")
    ann.keyboard.press("Space")
    ann.wait_for_function(HISTORY, arg=count, timeout=MOVED)
    expect(ann.locator(f'#hand button[data-card="{played}"]')).to_have_count(0)
    nxt = ann.locator(f'#hand button.wl-card[data-card="{after}"]')
    expect(nxt).to_be_focused()
    expect(nxt).to_have_attribute("aria-label", re.compile(r", not playable now$"))  # not Ann's turn: greyed, yet focusable

    # The next player plays: a new view on Ann's phone, the focus still on that card.
    pages = {name: S.open_phone(browser, server, code, token) for name, token in seats[1:]}
    pages[seats[0][0]] = ann
    turn = whose_turn(ann, pages)
    assert turn != seats[0][0]  # (the set-up's trick: Ann does not lead next)
    count = ann.evaluate("document.querySelectorAll('#history li').length")
    pages[turn].locator("#hand button.wl-card.legal").first.click()
    ann.wait_for_function(HISTORY, arg=count, timeout=MOVED)
    expect(nxt).to_be_focused()
    for page in pages.values():
        page.context.close()
