"""The game screens at each game's largest table (long names) on small phones (360x640 and
320x568) in Chromium, against daphne: nothing the player needs stays under the dock."""

from __future__ import annotations

import functools

import pytest
from playwright.sync_api import expect

from games import all_games
from games.film_fantasy import film_names
from tests.tables import screens_support as S

pytestmark = [pytest.mark.browser, pytest.mark.sqlite]

PHONES = [{"width": 360, "height": 640}, {"width": 320, "height": 568}]
LONG = ["Annabelle Montgomery-Hughes", "Bartholomew Fitzgerald-Smythe", "Cornelius Archibald Whitmore",
        "Dora Delacroix-Vandermeer", "Evangeline Worthington-Price", "Fitzwilliam Darcy-Bennet",
        "Gwendolyn Ashcombe-Lyle", "Maximiliana Featherstonehaugh", "Hal Hollingsworth-Pye", "Ivy Isherwood-Quayle"]

# Film Fantasy: every seat passes (tests.tables.test_play_browser.pick) until the auction opens;
# then seats 1, 2 and 3 each offer seat 0 one, two and three cards.
_FF_AUCTION = S.FF_PASS_TO_AUCTION + """
assert state.phase == "auction"
for seat in (1, 2, 3):
    state.apply(seat, {"type": "offer", "to": 0, "cards": state.view(seat)["hand"][:seat]})
"""


def _drive(game: str, players: int, tag: str, seed: int = 11) -> str:
    return S.DRIVE % {"tag": tag, "game": game, "seed": seed, "players": players, "names": LONG[:players]}


def _bots_moved(game: str, players: int, tag: str) -> str:
    return _drive(game, players, tag) + S.BOT_MOVES % {"moves": 3, "until_seat_0": False} + S.SAVE


SETUPS = {
    # four players, seat 0 able to declare (Declare shown in the dock) with three offers open
    "film-fantasy@4": S.ff_three_offers,
    # seven players hold the most cards (twelve, two packs); ten is the most seats (nine cards)
    "film-fantasy@7": lambda tag: _drive("film-fantasy", 7, tag) + _FF_AUCTION + S.SAVE,
    "film-fantasy@10": lambda tag: _drive("film-fantasy", 10, tag) + _FF_AUCTION + S.SAVE,
    "alice@6": lambda tag: _drive("alice", 6, tag) + S.ALICE_ASKED + S.SAVE,
}
# Every registered game not set up above (Wonderland, a new game): at its largest table, after
# three of its bots' moves.
SETUPS.update({f"{g.slug}@{g.max_players}": functools.partial(_bots_moved, g.slug, g.max_players)
               for g in all_games() if not any(key.startswith(g.slug + "@") for key in SETUPS)})
# The screen drawn, and every card on it (the player's, and Alice's row); a game not named: its
# cards, S.HAND_CARDS.
READY = {"alice": "#hand .c", "wonderland": "#hand button.wl-card", "film-fantasy": "#hand button.c"}
CARDS = {"alice": "#alice-row .c, #hand .c", "wonderland": "#hand button.wl-card", "film-fantasy": "#hand button.c"}


def open_phone(browser, server, data, viewport):
    return S.open_phone(browser, server, data["code"], data["seats"][0][1], viewport=viewport)


# Scrolling the page from top to bottom, for each element: was it ever whole in the screen and
# topmost at its centre and at its edges' middles (not under the dock, not clipped by its box)?
REACH = """(sel) => {
  const els = [...document.querySelectorAll(sel)].filter((e) => e.getClientRects().length);
  const top = (e, x, y) => { const h = document.elementFromPoint(x, y); return !!h && (h === e || e.contains(h)); };
  const whole = (e) => {
    const r = e.getBoundingClientRect();
    if (r.top < 0 || r.left < 0 || r.bottom > innerHeight || r.right > innerWidth) return false;
    const x = (r.left + r.right) / 2, y = (r.top + r.bottom) / 2, i = 2;   // its centre and its edges' middles
    return top(e, x, y) && top(e, x, r.top + i) && top(e, x, r.bottom - i) && top(e, r.left + i, y) && top(e, r.right - i, y);
  };
  const seen = els.map(() => false), first = els.map(whole);
  const end = document.documentElement.scrollHeight - innerHeight;
  for (let y = 0; ; y = Math.min(end, y + 10)) {
    window.scrollTo({top: y, behavior: 'instant'});
    els.forEach((e, i) => { if (!seen[i] && whole(e)) seen[i] = true; });
    if (y >= end) break;
  }
  window.scrollTo({top: 0, behavior: 'instant'});
  const dock = document.getElementById('dock'), d = dock.getBoundingClientRect();
  return {
    dock: {height: d.height, scrolls: dock.scrollHeight > dock.clientHeight + 1, screen: innerHeight},
    els: els.map((e, i) => ({name: e.getAttribute('aria-label') || e.textContent.trim().slice(0, 60),
                             seen: seen[i], first: first[i]})),
  };
}"""


def reach_report(page, game):
    return page.evaluate(REACH, CARDS.get(game, S.HAND_CARDS))


# The element focused now: is it one of ``sel``, whole in the screen and topmost (not under the dock)?
FOCUSED = """(sel) => {
  const e = document.activeElement, top = (x, y) => { const h = document.elementFromPoint(x, y); return !!h && (h === e || e.contains(h)); };
  if (!e || !e.matches(sel)) return null;
  const r = e.getBoundingClientRect(), x = (r.left + r.right) / 2, y = (r.top + r.bottom) / 2;
  return {name: e.getAttribute('aria-label') || e.textContent.trim().slice(0, 60),
          ok: r.top >= 0 && r.bottom <= innerHeight && top(x, y) && top(x, r.top + 2) && top(x, r.bottom - 2)};
}"""
FOCUSABLE = "button:not([disabled]), a[href], [tabindex]"


def tab_through(page, cards: str) -> None:
    """Tab from the top of the page through every card a keyboard reaches: each one focused comes
    whole above the dock (the page scrolls it up)."""
    page.evaluate("window.scrollTo({top: 0, behavior: 'instant'}); document.activeElement.blur()")
    wanted = page.evaluate("([c, f]) => [...document.querySelectorAll(c)].filter((e) => e.matches(f)).length", [cards, FOCUSABLE])
    seen = 0
    if not wanted:  # none to tap now (Alice's, while a question waits for this phone's answer)
        return
    for _ in range(wanted + 40):
        page.keyboard.press("Tab")
        if page.evaluate(FOCUSED, cards) is None:
            continue
        page.wait_for_function(f"({FOCUSED})({cards!r})?.ok", polling="raf", timeout=30_000)
        seen += 1
        if seen == wanted:
            return
    raise AssertionError(f"{seen} of {wanted} cards reached by the keyboard")


@pytest.mark.timeout(600)  # a backstop: a server started on a busy machine
@pytest.mark.parametrize("setup", list(SETUPS))
def test_every_card_and_control_can_be_brought_above_the_dock_at_the_largest_table(server, browser, setup):
    """At seven players (twelve cards) a card sat under the dock at 360x640, and at
    320x568 most of the hand did. The dock is sticky, so scrolling the page down brings each card
    whole above it (checked here); but a card focused from the keyboard stayed under the dock
    (failed before: the page now scrolls what a keyboard focuses up above the dock)."""
    game = setup.split("@")[0]
    data = server.shell_json(SETUPS[setup](f"reach-{setup}"))
    for phone in PHONES:
        page = open_phone(browser, server, data, phone)
        page.wait_for_selector(READY.get(game, S.HAND_CARDS))
        report = reach_report(page, game)
        missed = [e for e in report["els"] if not e["seen"]]
        assert not missed, (phone, missed)
        tab_through(page, CARDS.get(game, S.HAND_CARDS))
        page.context.close()


# The dock: does its own content scroll (more in it than it shows)? And each of ``sel`` in it,
# as shown now (``scroll``: after scrolling it into view, which scrolls a list in the dock): is it
# whole in the screen and in the dock, and topmost?
DOCK = """([sel, scroll]) => {
  const dock = document.getElementById('dock'), top = (e, x, y) => {
    const h = document.elementFromPoint(x, y); return !!h && (h === e || e.contains(h)); };
  const d = dock.getBoundingClientRect();
  return {
    scrolls: dock.scrollHeight > dock.clientHeight + 1, height: d.height,
    els: [...dock.querySelectorAll(sel)].filter((e) => e.getClientRects().length).map((e) => {
      if (scroll) e.scrollIntoView({block: 'nearest', behavior: 'instant'});
      const r = e.getBoundingClientRect(), x = (r.left + r.right) / 2, y = (r.top + r.bottom) / 2;
      const d = dock.getBoundingClientRect();
      const ok = r.top >= 0 && r.bottom <= innerHeight && r.top >= d.top - 1 && r.bottom <= d.bottom + 1 &&
                 top(e, x, y) && top(e, x, r.top + 2) && top(e, x, r.bottom - 2);
      return {name: e.getAttribute('aria-label') || e.textContent.trim().slice(0, 60), ok, top: r.top, bottom: r.bottom};
    }),
  };
}"""
LINES = "#status, #log li, #message:not(:empty)"
CONTROLS = "button, select"


def dock_in_sight(page, state: str) -> None:
    """The dock's own content never scrolls out of it: its lines (the status, the last move, a
    message) are whole in sight as the page stands, and each control too, once scrolled into view
    (a list of offers scrolls in its own box)."""
    lines = page.evaluate(DOCK, [LINES, False])
    assert not lines["scrolls"], (state, lines)
    assert all(e["ok"] for e in lines["els"]), (state, lines)
    controls = page.evaluate(DOCK, [CONTROLS, True])
    assert all(e["ok"] for e in controls["els"]), (state, controls)


def in_sight_unscrolled(page, selector: str, state: str) -> None:
    page.evaluate("window.scrollTo({top: 0, behavior: 'instant'}); "
                  "document.querySelectorAll('#dock, #dock *').forEach((e) => { e.scrollTop = 0; })")
    found = page.evaluate(DOCK, [selector, False])
    assert found["els"] and all(e["ok"] for e in found["els"]), (state, found)


@pytest.mark.timeout(600)  # a backstop: a server started on a busy machine
@pytest.mark.parametrize("setup", list(SETUPS))
def test_the_docks_own_lines_and_buttons_are_never_cut_off(server, browser, setup):
    """on a 320x568 phone: the dock (at most 45% of the screen) cut off its last line
    ("The auction is open (1 card left out of…") and, with an offer open, the Decline button,
    reachable only by scrolling inside the dock. Its content now fits it in every state: offers
    open, one being answered (only that offer, its buttons in sight), cards chosen to offer."""
    game = setup.split("@")[0]
    data = server.shell_json(SETUPS[setup](f"dock-{setup}"))
    for phone in PHONES:
        page = open_phone(browser, server, data, phone)
        page.wait_for_selector(READY.get(game, S.HAND_CARDS))
        dock_in_sight(page, (setup, phone, "as dealt"))
        if game == "film-fantasy":
            # the first offer's buttons in sight at once
            in_sight_unscrolled(page, "#offers li:first-child button", (setup, phone, "offers"))
            page.locator("#offers button", has_text="Accept").first.click()
            expect(page.locator("#status")).to_contain_text("in exchange")
            dock_in_sight(page, (setup, phone, "accepting"))
            in_sight_unscrolled(page, "#offers li:not([hidden]) button", (setup, phone, "accepting"))
            page.locator("#offers button", has_text="Not now").click()
            page.locator("#hand button.c:not([disabled])").first.click()
            expect(page.locator("#offer")).to_be_visible()
            dock_in_sight(page, (setup, phone, "a card chosen"))
            in_sight_unscrolled(page, "#offer", (setup, phone, "a card chosen"))
        page.context.close()


def title(card: str) -> str:
    """A Film Fantasy card as the screen names it ("Serenade 3", "Joker")."""
    return "Joker" if card == "J" else f"{film_names[int(card.split('-')[0]) - 1]} {card.split('-')[1]}"


@pytest.mark.timeout(600)  # a backstop: a server started on a busy machine
def test_choosing_cards_for_an_offer_counts_down_says_the_limit_and_gives_only_on_a_last_tap(server, browser):
    """Accepting an offer, "Tap 2 of your cards to give Gwen in exchange" did not
    count down after the first tap, and the exchange happened at the last tap, with no last look
    (a mis-tap gave the wrong card); offering, a fourth card's tap was silently ignored. The line
    now counts down, the cards chosen are given by a Give button naming them (a chosen card can
    still be put back), and a tap past the most cards says why it chose nothing."""
    data = server.shell_json(S.ff_three_offers("limits"))
    offerer = data["seats"][3][0]  # seat 3 offers three cards
    page = open_phone(browser, server, data, PHONES[1])
    page.wait_for_selector("#hand button.c")
    expect(page.locator("#offers li")).to_have_count(3)
    free = page.locator("#hand button.c:not([disabled])")
    chosen = page.locator("#hand button.c.chosen")

    # Offering: three cards at most; a fourth tap says so, and chooses nothing.
    for k in range(3):
        free.nth(k).click()
    expect(chosen).to_have_count(3)
    expect(page.locator("#offer")).to_be_visible()
    free.nth(3).click()
    expect(page.locator("#message")).to_have_text("An offer is at most 3 cards.")
    expect(chosen).to_have_count(3)
    dock_in_sight(page, "a fourth card tapped to offer")
    chosen.first.click()  # put back: the line goes
    expect(chosen).to_have_count(2)
    expect(page.locator("#message")).to_have_text("")
    while chosen.count():
        chosen.first.click()
    expect(chosen).to_have_count(0)

    # Accepting: the line counts down; the last card chosen is given only by Give.
    page.get_by_role("button", name=f"Accept {offerer}’s offer of 3 cards").click()
    status = page.locator("#status")
    expect(status).to_contain_text(f"Tap 3 of your cards to give {offerer} in exchange.")
    expect(page.locator("#offers li:not([hidden])")).to_have_count(1)  # only the offer being answered
    give = page.locator("#give")
    free.nth(0).click()
    expect(status).to_contain_text(f"Tap 2 more cards to give {offerer} in exchange.")
    free.nth(1).click()
    expect(status).to_contain_text(f"Tap 1 more card to give {offerer} in exchange.")
    expect(give).to_be_hidden()
    free.nth(2).click()
    expect(status).to_contain_text(f"Give these 3 cards to {offerer}? Tap Give, or tap a chosen card to put it back.")
    picked = chosen.evaluate_all("bs => bs.map(b => b.dataset.card)")
    words = f"{title(picked[0])}, {title(picked[1])} and {title(picked[2])}"
    expect(give).to_have_text(f"Give {words}")
    expect(give).to_have_accessible_name(f"Give {words} to {offerer} in exchange")
    expect(page.locator("#offers li")).to_have_count(3)  # nothing given yet: the offer stands
    dock_in_sight(page, "three cards chosen to give")
    in_sight_unscrolled(page, "#give", "three cards chosen to give")
    free.nth(3).click()  # a fourth: said, not chosen
    expect(page.locator("#message")).to_have_text("This offer takes 3 cards in exchange.")
    expect(chosen).to_have_count(3)
    chosen.last.click()  # a mis-tap put back: Give goes until the third is chosen again
    expect(status).to_contain_text(f"Tap 1 more card to give {offerer} in exchange.")
    expect(give).to_be_hidden()
    free.nth(3).click()
    picked = chosen.evaluate_all("bs => bs.map(b => b.dataset.card)")
    before = page.eval_on_selector_all("#hand button.c", "bs => bs.map(b => b.dataset.card)")
    give.click()
    expect(page.locator("#log li").first).to_have_text(f"You took {offerer}’s offer: 3 cards each way.")
    expect(page.locator("#offers li")).to_have_count(2)
    after = page.eval_on_selector_all("#hand button.c", "bs => bs.map(b => b.dataset.card)")
    kept = list(before)
    for c in picked:
        kept.remove(c)
    for c in kept:
        after.remove(c)
    assert len(after) == 3, (before, picked, after)  # the three received, in place of those given
    assert page.inner_text("#message") == ""
    page.context.close()
