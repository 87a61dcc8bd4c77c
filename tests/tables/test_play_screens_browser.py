"""The game screens on a small phone (360x640) in Chromium, against daphne, for all three games:
what matters stays in reach, the cards that came in are marked, the end of a hand says once
what was declared and why each player scored, and every control says what it does (axe-core
finds no serious or critical problem mid-hand)."""

from __future__ import annotations

import itertools
import re

import pytest
from playwright.sync_api import expect

from games.film_fantasy import declaration, film_names
from tests.axe import describe, serious_violations
from tests.browser_support import chromium, live_server
from tests.tables import screens_support as S

pytestmark = [pytest.mark.browser, pytest.mark.sqlite]

IN_VIEW = """(sel) => [...document.querySelectorAll(sel)].map((e) => {
  const r = e.getBoundingClientRect();
  return {name: e.getAttribute('aria-label') || e.textContent.trim(), hidden: e.hidden || r.width === 0,
          inside: r.top >= 0 && r.left >= 0 && r.bottom <= window.innerHeight && r.right <= window.innerWidth,
          top: r.top, bottom: r.bottom};
})"""
FILM_CARD = re.compile(r"^(Pass |Give )?(%s) [1-4]( \(.*\))?$|^(Pass |Give )?Joker( \(.*\))?$"
                       % "|".join(re.escape(f) for f in film_names))


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with live_server(tmp_path_factory.mktemp("screens")) as s:
        yield s


@pytest.fixture(scope="module")
def browser():
    with chromium() as b:
        yield b


def cards_on(page) -> list[str]:
    return page.eval_on_selector_all("#hand button.c", "bs => bs.map(b => b.dataset.card)")


def give_keeping_a_declaration(page, count: int) -> list[str]:
    """``count`` of the page's free cards whose loss leaves a declaration in the hand."""
    hand = cards_on(page)
    free = page.eval_on_selector_all("#hand button.c:not([disabled])", "bs => bs.map(b => b.dataset.card)")
    for give in itertools.combinations(free, count):
        rest = list(hand)
        for c in give:
            rest.remove(c)
        if declaration(rest) is not None:
            return list(give)
    raise AssertionError(f"no {count} cards of {hand} keep a declaration")


def take_offer(page, offerer: str, count: int) -> list[str]:
    """Accept ``offerer``'s open offer, giving cards that keep a declaration; the cards received."""
    before = cards_on(page)
    give = give_keeping_a_declaration(page, count)
    page.get_by_role("button", name=re.compile(f"^Accept {offerer}’s offer")).click()
    expect(page.locator("#status")).to_contain_text(f"Tap {count} of your cards to give {offerer}")
    for c in give:
        page.locator(f'#hand button.c[data-card="{c}"]:not([disabled])').first.click()
    expect(page.locator("#log li").first).to_have_text(f"You took {offerer}’s offer: {count} card{'s' if count > 1 else ''} each way.")
    kept = list(before)
    for c in give:
        kept.remove(c)
    received = cards_on(page)  # what is held now, less what was kept
    for c in kept:
        received.remove(c)
    return received


def new_cards(page) -> list[str]:
    return page.eval_on_selector_all("#hand button.c.new", "bs => bs.map(b => b.dataset.card)")


@pytest.mark.timeout(600)  # a backstop: a server started on a busy machine
def test_three_open_offers_keep_declare_and_every_card_in_reach_on_a_small_phone(server, browser):
    data = server.shell_json(S.ff_three_offers("ff"))
    (ann, token), offerers = data["seats"][0], [name for name, _ in data["seats"][1:]]
    page = S.open_phone(browser, server, data["code"], token)
    expect(page.locator("#offers li")).to_have_count(3)
    expect(page.locator("#declare")).to_be_enabled()

    # Nothing scrolled: the Declare button and every card lie within the 360x640 screen.
    assert page.evaluate("window.scrollY") == 0
    for what in page.evaluate(IN_VIEW, "#declare, #hand button.c"):
        assert not what["hidden"] and what["inside"], what
    # The offers scroll in their own bounded box, not the page.
    box = page.evaluate("(() => { const o = document.getElementById('offers'); const s = getComputedStyle(o);"
                        " return {max: s.maxHeight, overflow: s.overflowY, height: o.getBoundingClientRect().height}; })()")
    assert box["max"] != "none" and box["overflow"] == "auto", box

    # Every control says what it does: a card by its film, an offer's buttons by whose offer.
    names = page.evaluate(IN_VIEW, "#hand button.c")
    assert names and all(FILM_CARD.match(n["name"]) for n in names), [n["name"] for n in names]
    for who in offerers:
        expect(page.get_by_role("button", name=re.compile(f"^Accept {who}’s offer of \\d cards?$"))).to_have_count(1)
        expect(page.get_by_role("button", name=re.compile(f"^Decline {who}’s offer of \\d cards?$"))).to_have_count(1)
    problems = serious_violations(page)
    assert not problems, describe(problems)

    # An exchange marks the cards it brought (seen and heard: "new"); the next one's marks
    # replace them.
    first = take_offer(page, offerers[0], 1)
    expect(page.locator("#hand button.c.new")).to_have_count(len(first))
    assert sorted(new_cards(page)) == sorted(first)
    marked = page.locator("#hand button.c.new").first
    expect(marked).to_contain_text("new")
    expect(marked).to_have_attribute("aria-label", re.compile(r"\(new\)$"))
    second = take_offer(page, offerers[1], 2)
    expect(page.locator("#hand button.c.new")).to_have_count(len(second))
    assert sorted(new_cards(page)) == sorted(second)

    # Declaring: the result says once who declared which films, and every player's points with why.
    page.locator("#declare").click()
    result = page.locator("#result")
    expect(result).to_be_visible()
    items = result.locator("li")
    expect(items).to_have_count(4)
    expect(items.filter(has_text=ann)).to_contain_text(re.compile(
        r"declared (%s) and (%s)" % ("|".join(map(re.escape, film_names)), "|".join(map(re.escape, film_names)))))
    for i in range(4):
        expect(items.nth(i)).to_contain_text(re.compile(r"-?\d+ points? — \S"))
    assert page.inner_text("#play").count("declared") == 1, page.inner_text("#play")
    assert page.inner_text("#log").count("declared") == 0


GAMES = {
    "alice": (S.alice_dealt, "#hand .c", re.compile(r"^(Take .+ from the row|Ask for [A-H][1-5] \(.+\))$"),
              "#alice-row button, #hand button"),
    "wonderland": (S.wonderland_started, "#hand button.wl-card",
                   re.compile(r"^(Play (star|plain|number) \d+( \(the Pool of Tears\))?|"
                              r"(star|plain|number) \d+( \(the Pool of Tears\))?, not playable now)$"),
                   "#hand button"),
}


@pytest.mark.timeout(600)  # a backstop: a server started on a busy machine
@pytest.mark.parametrize("slug", sorted(GAMES))
def test_a_game_screen_names_its_cards_in_the_games_words_and_passes_axe(server, browser, slug):
    setup, cards, named, buttons = GAMES[slug]
    data = server.shell_json(setup(slug))
    page = S.open_phone(browser, server, data["code"], data["seats"][0][1])
    page.wait_for_selector(cards)
    names = page.evaluate(IN_VIEW, buttons)
    assert names and all(named.match(n["name"]) for n in names), [n["name"] for n in names]
    text = page.inner_text("body")
    assert not re.search(r"film|joker|declar|auction", text, re.IGNORECASE), text
    problems = serious_violations(page)
    assert not problems, describe(problems)


@pytest.mark.timeout(600)  # a backstop: a server started on a busy machine
def test_the_phone_says_at_once_when_a_bot_takes_its_seat_and_gives_it_back(server, browser):
    data = server.shell_json(S.wonderland_started("bot", moves=0))
    (ann, token) = data["seats"][0]
    drive_id = server.shell_json(f"from drive.models import Drive\nprint(json.dumps(Drive.objects.get(join_code='{data['code']}').pk))")
    page = S.open_phone(browser, server, data["code"], token)
    page.wait_for_selector("#hand button.wl-card")
    organiser = browser.new_page(viewport={"width": 1280, "height": 900})
    organiser.goto(server.url + "/")
    organiser.fill("input[name=username]", "olive-bot")
    organiser.fill("input[name=password]", "organiser-pass-123")
    organiser.click("button:has-text('Sign in')")
    organiser.goto(f"{server.url}/drives/{drive_id}/")
    organiser.locator("#table-1 details summary").click()
    organiser.locator("#table-1 button", has_text=f"A bot plays for {ann}").click()
    expect(page.locator("#message")).to_have_text("A bot has taken over your seat.", timeout=30_000)
    expect(page.locator("#message")).to_have_attribute("role", "alert")
    organiser.wait_for_selector("text=until you give the seat back")  # the dashboard after the POST
    organiser.locator("#table-1 details summary").click()
    organiser.locator("#table-1 button", has_text=f"Give {ann} the seat back").click()
    expect(page.locator("#message")).to_have_text("Your seat is yours again: play on.", timeout=30_000)
    organiser.close()
