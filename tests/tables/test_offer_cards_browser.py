"""Film Fantasy's cards held in the player's own open offer, on a small phone in Chromium against
daphne: they say so, seen and heard, and a tap says why it chooses nothing and what frees them.

a bot played a seat for its player (the organiser's "A bot plays for X") and made an
offer; the seat given back, the offered cards were only faded (one still tagged "(NEW)"), and a
tap on them did nothing, with no word: the player had to find "You offer 3 cards… Withdraw"."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.axe import describe, serious_violations
from tests.tables import screens_support as S
from tests.tables.screens_support import take_offer

pytestmark = [pytest.mark.browser, pytest.mark.sqlite]


def in_sight(page, locator) -> None:
    box = locator.bounding_box()
    width, height = page.viewport_size["width"], page.viewport_size["height"]
    assert box and box["x"] >= 0 and box["x"] + box["width"] <= width and box["y"] + box["height"] <= height, box


@pytest.mark.timeout(600)  # a backstop: a server started on a busy machine
def test_a_card_in_ones_own_offer_says_so_and_a_tap_points_to_withdraw(server, browser):
    data = server.shell_json(S.ff_three_offers("offered"))
    (_, token), (first, _), (other, _) = data["seats"][:3]  # seats 1 and 2 have offers open to seat 0
    page = S.open_phone(browser, server, data["code"], token)
    expect(page.locator("#offers li")).to_have_count(3)
    # The player takes seat 1's offer (a card comes in: marked new), then offers that very card
    # to seat 2.
    card = take_offer(page, first, 1)[0]
    button = page.locator(f'#hand button.c[data-card="{card}"]')
    expect(button).to_have_class(re.compile(r"\bnew\b"))
    button.click()
    page.select_option("#offer-to", label=other)
    page.locator("#offer").click()
    expect(page.locator("#offers li", has_text=f"You offer 1 card to {other}.")).to_have_count(1)

    # Locked: it reads "in your offer", not "new", on the screen and to a screen reader.
    expect(button).to_have_class(re.compile(r"\blocked\b"))
    expect(button).not_to_have_class(re.compile(r"\bnew\b"))
    expect(button).to_contain_text("in your offer")
    expect(button).not_to_contain_text("new")
    expect(button).to_have_attribute("aria-label", re.compile(r"^\S.* \(in your offer\)$"))
    expect(button).not_to_have_attribute("aria-disabled", "true")  # a tap says why: it is not dead
    in_sight(page, button)  # the longer label still fits the small phone
    problems = serious_violations(page)
    assert not problems, describe(problems)

    # A tap chooses nothing and says why, and what frees the card.
    title = button.get_attribute("aria-label").removesuffix(" (in your offer)")
    button.click()
    expect(page.locator("#message")).to_have_text(
        f"{title} is in your offer to {other}: to choose it, first tap Withdraw on that offer.")
    expect(button).to_have_attribute("aria-pressed", "false")
    expect(page.locator("#offer-form")).to_be_hidden()

    # Withdrawn, the card is free again: a tap chooses it.
    page.get_by_role("button", name=f"Withdraw your offer to {other}").click()
    expect(button).not_to_have_class(re.compile(r"\blocked\b"))
    button.click()
    expect(button).to_have_attribute("aria-pressed", "true")
    expect(page.locator("#offer-form")).to_be_visible()
    page.context.close()


@pytest.mark.timeout(600)
def test_a_seat_whose_offers_are_all_made_sees_no_offer_form_but_what_is_left_to_do(server, browser):
    data = server.shell_json(S.ff_offers_spent("spent"))
    (_, token), (first, _) = data["seats"][:2]
    page = S.open_phone(browser, server, data["code"], token)
    expect(page.locator("#offers li")).to_have_count(3)
    spent = "You have made your 50 offers this hand: answer the offers made to you, or declare."
    expect(page.locator("#offers-spent")).to_have_text(spent)
    in_sight(page, page.locator("#offers-spent"))
    # A tap on a free card chooses nothing: no form to send a refused offer, the line said again.
    button = page.locator("#hand button.c:not(.locked)").first
    button.click()
    expect(button).to_have_attribute("aria-pressed", "false")
    expect(page.locator("#offer-form")).to_be_hidden()
    expect(page.locator("#message")).to_have_text(spent)
    expect(page.locator("#status")).not_to_contain_text("offer more")
    # Answering stays open: accepting an offer chooses the cards to give, the line out of the way.
    page.get_by_role("button", name=re.compile(f"^Accept {first}’s offer")).click()
    expect(page.locator("#offers-spent")).to_be_hidden()
    button.click()
    expect(button).to_have_attribute("aria-pressed", "true")
    expect(page.locator("#give")).to_be_visible()
    expect(page.locator("#offer-form")).to_be_hidden()
    page.context.close()


# The page's socket holds back each answer to an offer it sends (accept, decline, withdraw)
# until ``window.releaseHeld()``: the answer on its way for as long as the test likes.
HOLD_ANSWERS = """(() => {
  const Real = window.WebSocket, held = [];
  window.releaseHeld = () => held.splice(0).forEach((f) => f());
  window.WebSocket = function (url, protocols) {
    const ws = new Real(url, protocols), send = ws.send.bind(ws);
    ws.send = (data) => {
      const type = JSON.parse(data).type;
      if (["accept", "decline", "withdraw"].includes(type)) held.push(() => send(data)); else send(data);
    };
    return ws;
  };
  window.WebSocket.OPEN = Real.OPEN;
})();"""


@pytest.mark.timeout(600)
def test_a_double_tap_on_give_does_not_open_the_offer_just_taken_again(server, browser):
    """Give tapped, the offer's own Accept button took its place under the finger
    while the exchange was on its way; a double tap's second opened the offer again, and once the
    exchange was made the phone said "That offer is no longer open". Its buttons wait for it now."""
    data = server.shell_json(S.ff_three_offers("double-give"))
    (_, token), (first, _) = data["seats"][:2]
    page = S.open_phone(browser, server, data["code"], token)
    page.add_init_script(HOLD_ANSWERS)
    page.reload()
    expect(page.locator("#offers li")).to_have_count(3)
    (card,) = S.give_keeping_a_declaration(page, 1)
    page.get_by_role("button", name=re.compile(f"^Accept {first}’s offer")).click()
    page.locator(f'#hand button.c[data-card="{card}"]').first.click()
    page.locator("#give").click()
    expect(page.locator("#give")).to_be_hidden()
    # While the exchange is on its way the dock has changed under the finger (on a phone, the
    # offer's Accept can stand where Give was): a second tap on it does nothing.
    accept = page.get_by_role("button", name=re.compile(f"^Accept {first}’s offer"))
    expect(accept).to_be_disabled()
    accept.scroll_into_view_if_needed()
    box = accept.bounding_box()
    page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    expect(page.locator("#status")).not_to_contain_text("Tap 1 of your cards")
    page.evaluate("window.releaseHeld()")
    expect(page.locator("#log li").first).to_have_text(f"You took {first}’s offer: 1 card each way.")
    expect(page.locator("#offers li")).to_have_count(2)
    expect(page.locator("#message")).to_have_text("")
    page.context.close()
