"""Three phone-sized pages play an Alice hand to its end in Chromium, against daphne: the asked
player's White Rabbit question, the asker's Cheshire Cat question, asking by tapping a missing
card then a player, taking from the row; names as text in their own <bdi>; the organiser's view
of the table without cards."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import expect

from tests.browser_support import chromium, list_numbers_room, live_server, sign_in

pytestmark = [pytest.mark.browser, pytest.mark.sqlite]

PHONE = {"width": 360, "height": 640}
RTL = "נועה"  # a right-to-left name

# A chosen deal (as tests.games.alice_support.deal builds it): seat 2 deals, seat 0 begins. Seat 0
# holds A1-A4 and a Cheshire Cat; seat 1 holds A5 and a White Rabbit; seat 2 the other Rabbit.
SETUP = """
from django.contrib.auth import get_user_model
from drive import services
from drive.models import Drive
from tables.models import TableHand
from tests.games.alice_support import deal
import random
user = get_user_model().objects.create_user(username="olive", password="organiser-pass-123")
drive = Drive.objects.create(organiser=user, name="Alice hand", game="alice", play_mode="digital", seed=5,
                             preferred_table_size=3)
services.add_players(drive, ["Ann", "Bob", "%s"])
services.draw_seating(drive, random.Random(1))
from django.utils import timezone
drive.players.update(phone_joined_at=timezone.now())  # every player has joined on a phone
services.start_hand(drive)
table = drive.hands.get().tables.get()
state = deal(3, [["A1", "A2", "A3", "A4", "C1", "CC", "D1"], ["A5", "WR", "E1", "E2", "F1", "F2", "G1"],
                 ["B2", "WR", "H1", "H2", "H3", "G2", "G3"]], dealer=2)
TableHand.objects.filter(pk=table.pk).update(state=state.to_json(), version=state.version)
seats = [s.player for s in table.seats.select_related("player").order_by("position")]
print(json.dumps({"code": drive.join_code, "seats": [[p.name, p.token] for p in seats]}))
""" % RTL


DEADLINE = """
import time
from tables.models import TableHand
table = TableHand.objects.get()
state = dict(table.state, deadline=time.time() + 60)
TableHand.objects.filter(pk=table.pk).update(state=state)
print(json.dumps(state["deadline"]))
"""


def version(page) -> int:
    return int(page.get_attribute("#alice", "data-version") or -1)


def tap(page, selector: str) -> bool:
    """Tap a button; the screen re-renders on every frame, so one may be replaced meanwhile:
    False then (the caller's loop tries again)."""
    try:
        page.locator(selector).first.dispatch_event("click", timeout=2000)
        return True
    except PlaywrightError:
        return False


def moved(page, since: int, timeout: float = 30_000) -> bool:
    """Wait until ``page`` shows a version after ``since``."""
    try:
        page.wait_for_function(f"Number(document.getElementById('alice').dataset.version) > {since}", timeout=timeout)
        return True
    except PlaywrightError:
        return False


def same_version(pages) -> int:
    """Wait until every page shows the newest version any of them shows; that version."""
    newest = max(version(p) for p in pages)
    for p in pages:
        p.wait_for_function(f"Number(document.getElementById('alice').dataset.version) >= {newest}", timeout=30_000)
    return newest


def held(page) -> list[str]:
    return page.eval_on_selector_all("#hand .c.held[data-card]", "cs => cs.map(c => c.dataset.card)")


def play_a_turn(page, seat: int, hands: list[list[str]]) -> bool:
    """This seat's turn, as the test plays it (it reads every page's cards): ask the seat holding
    a card missing from one of its sets; else take a row card of a set it holds, else the first."""
    missing = page.eval_on_selector_all("#hand .c.missing:not([disabled])", "cs => cs.map(c => c.dataset.card)")
    for card in missing:
        holder = next((s for s, h in enumerate(hands) if s != seat and card in h), None)
        if holder is not None:
            return tap(page, f'#hand .c.missing[data-card="{card}"]') and tap(
                page, f'#alice-ask button[data-seat="{holder}"]')
    row = page.eval_on_selector_all("#alice-row button.c:not([disabled])", "cs => cs.map(c => c.dataset.card)")
    mine = {c[0] for c in hands[seat] if c not in ("WR", "CC")}
    if row:
        card = next((c for c in row if c[0] in mine), row[0])
        return tap(page, f'#alice-row button.c[data-card="{card}"]')
    if missing:  # nobody else holds it and the row is empty: cannot happen, but ask anyway
        return tap(page, f'#hand .c.missing[data-card="{missing[0]}"]') and tap(page, "#alice-ask button[data-seat]")
    return False


@pytest.mark.timeout(300)
def test_three_phones_play_an_alice_hand_to_its_end(tmp_path):
    with live_server(tmp_path) as server, chromium() as browser:
        data = server.shell_json(SETUP)
        code = data["code"]
        names = [name for name, _token in data["seats"]]
        pages = []
        for name, token in data["seats"]:
            context = browser.new_context(viewport=PHONE)
            context.add_cookies([{"name": f"ff_{code}", "value": token, "url": server.url}])
            page = context.new_page()
            page.goto(f"{server.url}/{code}/play")
            page.wait_for_selector("#alice-row button.c")
            pages.append(page)
        first, second, third = pages
        # Names: each in a <bdi> of its own, as text; the page fits a 360-px phone.
        assert sorted(first.eval_on_selector_all("#seats li bdi", "bs => bs.map(b => b.textContent)")) == sorted(names)
        assert first.locator("#seats bdi *").count() == 0
        expect(first.locator("#alice-deal")).to_have_text(f"Dealt by {names[2]}; first to play: you.")
        assert first.locator("#alice-deal bdi").count() == 1
        expect(first.locator("#alice-stock")).to_have_text("(stock: 16 cards)")
        expect(first.locator("#seats")).to_contain_text("7 cards")
        assert first.locator("#alice-howto summary").inner_text() == "How to play Alice"
        assert first.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
        expect(first.locator("#status")).to_contain_text("Your turn")
        expect(second.locator("#status")).to_have_text(f"It is {names[0]}’s turn.")
        assert second.locator("#alice-row button.c:not([disabled])").count() == 0  # not their turn

        # A card of her sets face up in the row is taken from there, not asked for (
        # asking for it always failed, nobody holding it): her set C's C2 to C4 are in the row.
        row = first.eval_on_selector_all("#alice-row button.c", "bs => bs.map(b => b.dataset.card)")
        in_row = first.eval_on_selector_all("#hand .c.in-row", "bs => bs.map(b => b.dataset.card)")
        assert in_row == [c for c in ("C2", "C3", "C4", "C5") if c in row] and in_row, (row, in_row)
        assert first.locator(f'#hand .c.missing[data-card="{in_row[0]}"]').count() == 0
        expect(first.get_by_role("button", name=re.compile(rf"^Take {in_row[0]}\b.* from the row$"))).to_have_count(1)
        expect(first.locator("#hand").get_by_role("button", name=re.compile(rf"^{in_row[0]}\b.*, in the row: tap to take it$"))).to_have_count(1)

        # Ann taps A5, missing from her set A, then Bob: Bob is asked, and plays his White Rabbit.
        first.locator('#hand .c.missing[data-card="A5"]').click()
        expect(first.locator("#alice-ask")).to_contain_text("Ask for A5 (The Doorknob): tap a player.")
        first.locator('#alice-ask button[data-seat="1"]').click()
        expect(second.locator("#status")).to_have_text(f"{names[0]} asks you for A5: give it or play your White Rabbit?")
        assert second.locator("#status bdi").count() == 1
        expect(first.locator("#status")).to_contain_text(f"You asked {names[1]} for A5: waiting for {names[1]}")
        assert first.locator("#alice-prompt").is_hidden()
        # A deadline stored by the server shows as a countdown on the phone that must answer
        # (tables/ sets none yet: stored here as the server would, then the page looks again).
        server.shell_json(DEADLINE)
        second.reload()
        expect(second.locator("#alice-countdown")).to_contain_text(re.compile(r"^You have \d+ s to answer \(of 20\)\.$"))
        second.locator("#alice-prompt button", has_text="Play your White Rabbit").click()
        expect(second.locator("#alice-countdown")).to_have_text("")
        expect(first.locator("#log li").first).to_have_text(f"{names[1]} refused with a White Rabbit.")
        expect(second.locator("#status")).to_contain_text("Your turn")
        # Bob and the third player take a row card each (the stock's C5 and D2 fill the row);
        # then Ann asks Bob for D3, in the stock: he does not hold it, and she plays her Cheshire
        # Cat and goes on.
        for page in (second, third):
            before = version(page)
            page.locator("#alice-row button.c").first.click()
            assert moved(page, before)
        expect(first.locator("#status")).to_contain_text("Your turn")
        first.locator('#hand .c.missing[data-card="D3"]').click()
        first.locator('#alice-ask button[data-seat="1"]').click()
        expect(first.locator("#status")).to_contain_text(
            f"{names[1]} does not hold D3: play your Cheshire Cat and go on, or let the turn pass?")
        first.locator("#alice-prompt button", has_text="Play your Cheshire Cat").click()
        expect(first.locator("#log li").first).to_have_text("You played a Cheshire Cat and go on.")
        expect(second.locator("#log li").first).to_have_text(f"{names[0]} played a Cheshire Cat and goes on.")

        # The organiser's view of the table: the same table, no cards, nothing to tap.
        organiser = browser.new_page(viewport=PHONE)
        sign_in(organiser, server.url, "olive")
        organiser.goto(f"{server.url}/{code}/tables/1/watch")
        expect(organiser.locator("#status")).to_have_text(f"It is {names[0]}’s turn.")
        assert organiser.locator("#hand").count() == 0
        assert organiser.locator("#alice-row button.c").count() > 0
        assert organiser.locator("#alice-row button.c:not([disabled])").count() == 0

        # Then to the end: each turn as play_a_turn says; a question is answered by giving.
        for _ in range(400):
            if all(p.is_visible("#result") for p in pages):
                break
            now = same_version(pages)
            hands = [held(p) for p in pages]
            acted = None
            for seat, page in enumerate(pages):
                if page.is_visible("#alice-prompt button"):
                    acted = page if tap(page, "#alice-prompt button") else None  # Give / Play your Cheshire Cat
                    break
                if page.inner_text("#status").startswith("Your turn"):
                    acted = page if play_a_turn(page, seat, hands) else None
                    break
            if acted is not None:
                moved(acted, now)
        else:
            pytest.fail("the hand did not end")
        for page in pages:
            expect(page.locator("#result")).to_contain_text("The hand is over")
            expect(page.locator("#status")).to_have_text("All eight sets are laid: the hand is over.")
            # The mover, by the rule that decided it (a tester read "the most sets" for a tie); at
            # a lone table nobody moves, and the box says nothing of moving (a tester).
            expect(page.locator("#result")).to_contain_text(
                re.compile(r"(laid the most sets and|laid a set last and|on the dealer's left,) is the mover\."))
            expect(page.locator("#result")).not_to_contain_text("moves up a table")
            assert page.locator("#hand .c.missing:not([disabled])").count() == 0
        assert "; the mover" in first.inner_text("#result") and "; moves up" not in first.inner_text("#result")
        expect(organiser.locator("#result")).to_contain_text("The hand is over")
        assert first.text_content("#alice-log").count("laid set") == 8
        # Everything that happened, unfolded: the box holds the widest of its numbers (a view
        # keeps the newest 100 entries), which it would clip (it scrolls: nothing outside shows).
        first.click("#alice-history summary")
        fits = list_numbers_room(first, "#alice-log")
        assert fits["count"] >= 10 and fits["pad"] >= fits["widest"], fits
