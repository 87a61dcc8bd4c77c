"""Four phone-sized pages play a whole hand of The Game of Alice in Wonderland in Chromium, against
daphne; the organiser watches the table without cards."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.browser_support import chromium, list_numbers_room, live_server, sign_in
from tests.test_game_words import other_games_words

WORDS = other_games_words("wonderland")

pytestmark = [pytest.mark.browser, pytest.mark.sqlite]

SMALL_PHONE = {"width": 360, "height": 640}
RTL = "נועה"
SETUP = """
from django.contrib.auth import get_user_model
from drive import services
from drive.models import Drive
import random
user = get_user_model().objects.create_user(username="olive", password="organiser-pass-123")
drive = Drive.objects.create(organiser=user, name="Wonderland hand", game="wonderland", play_mode="digital",
                             seed=11, preferred_table_size=4)
services.add_players(drive, ["Ann", "Bob", "%s", "<i>Di</i>"])
services.draw_seating(drive, random.Random(1))
from django.utils import timezone
drive.players.update(phone_joined_at=timezone.now())  # every player has joined on a phone
services.start_hand(drive)
print(json.dumps({"code": drive.join_code, "tokens": {p.name: p.token for p in drive.players.all()}}))
""" % RTL

HISTORY = "document.querySelectorAll('#history li').length"
HAND = "document.querySelectorAll('#hand button.wl-card').length"


def whose_turn(page, pages: dict) -> str:
    """The name of the player to play, from this page's status line."""
    status = page.inner_text("#status")
    if status.startswith("Your"):
        return next(name for name, p in pages.items() if p is page)
    return re.match(r"Waiting for (.+) to (play|lead)\.", status).group(1)


@pytest.mark.timeout(300)
def test_four_phones_play_a_wonderland_hand_to_its_end(tmp_path):
    with live_server(tmp_path) as server, chromium() as browser:
        data = server.shell_json(SETUP)
        code = data["code"]
        pages = {}
        for name, token in data["tokens"].items():
            context = browser.new_context(viewport=SMALL_PHONE, is_mobile=True, has_touch=True)
            context.add_cookies([{"name": f"ff_{code}", "value": token, "url": server.url}])
            page = context.new_page()
            page.goto(f"{server.url}/{code}/play")
            page.wait_for_selector("#hand button.wl-card")
            pages[name] = page
        first = pages["Ann"]
        assert "<i>Di</i>" in first.inner_text("#seats")  # a name is text, never HTML
        assert sorted(first.eval_on_selector_all("#seats li bdi", "bs => bs.map(b => b.textContent)")) == sorted(pages)
        assert first.locator("#seats bdi *").count() == 0
        assert first.locator("#deal-info bdi").count() >= 2  # the dealer and the leader, each isolated
        expect(first.locator("#deal-info")).to_contain_text("Deal 1 of 2 (7 cards each). Dealer: ")
        for page in pages.values():
            assert page.evaluate(HAND) == 7
            assert page.evaluate("document.documentElement.scrollWidth") <= SMALL_PHONE["width"]
            assert not WORDS.search(page.inner_text("body")), WORDS.search(page.inner_text("body"))
        expect(first.locator("#how-to-play summary")).to_have_text("How to play")
        assert not first.locator("#how-to-play").get_attribute("open")

        leader = pages[whose_turn(first, pages)]
        assert leader.locator("#hand button.wl-card.dim").count() == 0  # leading: any card
        other = next(p for p in pages.values() if p is not leader)
        # No card played yet: words, not a numbered play (QA read "1. Your lead: no card played yet.").
        expect(leader.locator("#trick-empty")).to_have_text("Your lead: no card played yet.")
        expect(other.locator("#trick-empty")).to_have_text(re.compile(r"^\S.* leads: no card played yet\.$"))
        for page in (leader, other):
            expect(page.locator("#trick-box li")).to_have_count(0)
        other.locator("#hand button.wl-card").first.dispatch_event("click")
        expect(other.locator("#message")).to_contain_text("plays next: wait for your turn")

        organiser = browser.new_page(viewport=SMALL_PHONE)
        sign_in(organiser, server.url, "olive")
        organiser.goto(f"{server.url}/{code}/tables/1/watch")
        expect(organiser.locator("#status")).to_contain_text(re.compile(r".+ to lead\."))
        assert organiser.locator("#hand").count() == 0 and organiser.locator("#play button").count() == 0

        told_why = saw_last_trick = False
        for move in range(52):
            page = pages[whose_turn(first, pages)]
            page.wait_for_selector("#hand button.wl-card.legal")
            dim = page.locator("#hand button.wl-card.dim")
            if not told_why and dim.count():  # a card the rules forbid: dimmed, and a tap says why
                dim.first.dispatch_event("click")
                expect(page.locator("#message")).to_contain_text(re.compile(r"was led and you hold|hold the mate of"))
                told_why = True
            before = page.evaluate(HISTORY)
            card = page.locator("#hand button.wl-card.legal").first.get_attribute("data-card")
            page.locator(f'#hand button.wl-card.legal[data-card="{card}"]').dispatch_event("click")
            page.wait_for_function(f"{HISTORY} > {before}")  # the play is in the log
            seen = page.evaluate(HISTORY)
            for p in pages.values():  # every phone has the move before the next one is chosen
                p.wait_for_function(f"{HISTORY} >= {seen}")
            if move % 4 == 3 and move < 51:  # a trick is complete: it stays in sight, taken
                for p in pages.values():
                    expect(p.locator("#last-trick-box")).to_be_visible()
                    expect(p.locator("#last-trick-title")).to_contain_text("Last trick: taken by ")
                    expect(p.locator("#trick-empty")).to_contain_text(re.compile(r"(Your lead|leads): no card played yet"))
                    expect(p.locator("#log li").first).to_contain_text(  # the newest line of the log
                        re.compile(r"took the trick: |^Deal 2: 6 cards each; .+ lead\.$"))
                saw_last_trick = True
            elif move % 4 == 0 and move:  # the next trick's first card: the last trick goes
                expect(first.locator("#last-trick-box")).to_be_hidden()
                expect(first.locator("#trick li")).to_have_count(1)
                expect(first.locator("#trick li").first).to_contain_text("(led, taking it so far)")
                expect(first.locator("#trick-empty")).to_be_hidden()
        assert told_why and saw_last_trick
        for page in pages.values():
            expect(page.locator("#result")).to_be_visible()
            expect(page.locator("#result")).to_contain_text("The hand is over")
            expect(page.locator("#result")).to_contain_text("top scorer")
            # Nobody moves from a lone table: the box says nothing of moving (a tester).
            expect(page.locator("#result")).not_to_contain_text("moves up a table")
            expect(page.locator("#status")).to_have_text("The hand is played out.")
            expect(page.locator("#trick-box")).to_be_hidden()  # no "No cards on the table." left
            assert page.evaluate(HAND) == 0
        # The moves so far, unfolded: the box holds the widest of its numbers (a view keeps the
        # newest 100 entries), which it would clip (it scrolls: nothing outside it shows).
        first.click("#history-box summary")
        fits = list_numbers_room(first, "#history")
        assert fits["count"] >= 10 and fits["pad"] >= fits["widest"], fits
        expect(first.locator("#taken li")).to_have_count(4)
        taken = [int(re.search(r": (\d+) cards?", t).group(1)) for t in first.locator("#taken li").all_inner_texts()]
        assert sum(taken) == 52
        expect(organiser.locator("#result")).to_contain_text("The hand is over")
        assert not WORDS.search(organiser.inner_text("body"))


LAST_DEAL = """
from django.contrib.auth import get_user_model
from drive import services
from drive.models import Drive
from games import get_game
from tables.models import TableHand
import random
user = get_user_model().objects.create_user(username="olive", password="organiser-pass-123")
drive = Drive.objects.create(organiser=user, name="Three at a table", game="wonderland", play_mode="digital",
                             seed=12, preferred_table_size=3)
services.add_players(drive, ["Ann", "Bob", "Cy"])
services.draw_seating(drive, random.Random(1))
from django.utils import timezone
drive.players.update(phone_joined_at=timezone.now())  # every player has joined on a phone
services.start_hand(drive)
table = drive.hands.get().tables.get()
state = get_game("wonderland").load_hand(table.state)
while state.deal < len(state.plan):  # the first card of each seat's legal ones, to the last deal
    state.apply(state.turn, {"type": "play", "card": state.legal(state.turn)[0]})
TableHand.objects.filter(pk=table.pk).update(state=state.to_json(), version=state.version)
print(json.dumps({"code": drive.join_code, "token": table.seats.get(position=state.turn).player.token,
                  "deals": state.plan}))
"""


def test_in_the_last_deal_the_cards_left_are_said_never_to_be_dealt(tmp_path):
    """Three at a table: 51 cards are dealt in three deals, one card stays out. Before the last
    deal it is "not dealt yet"; in the last it will never be dealt, and the phone says so."""
    with live_server(tmp_path) as server, chromium() as browser:
        data = server.shell_json(LAST_DEAL)
        assert data["deals"] == [7, 7, 3]
        context = browser.new_context(viewport=SMALL_PHONE, is_mobile=True, has_touch=True)
        context.add_cookies([{"name": f"ff_{data['code']}", "value": data["token"], "url": server.url}])
        page = context.new_page()
        page.goto(f"{server.url}/{data['code']}/play")
        expect(page.locator("#deal-info")).to_contain_text("Deal 3 of 3 (3 cards each). ")
        expect(page.locator("#deal-info")).to_contain_text("1 card never dealt.")
        assert "not dealt yet" not in page.inner_text("#deal-info")
