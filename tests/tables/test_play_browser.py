"""Four phone-sized pages play one digital hand to a declaration in Chromium, against daphne."""

from __future__ import annotations

import random
import re
import time
from collections import OrderedDict

import pytest
from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import expect

from games import get_game
from tests.browser_support import PHONE, chromium, live_server, sign_in

# Their servers run on SQLite and the in-memory layer whatever the suite runs on: once is enough.
pytestmark = [pytest.mark.browser, pytest.mark.sqlite]

GAME = get_game("film-fantasy")


def film(card: str) -> int:
    return 11 if card == "J" else int(card.split("-")[0])


def pick(hand: list[str]) -> str:
    """The test's pass, as a player would tap it: the first card of the smallest film group that
    is not complete (groups in film order, as the page shows them)."""
    groups: OrderedDict[int, list[str]] = OrderedDict()
    for c in hand:
        groups.setdefault(film(c), []).append(c)
    groups = OrderedDict(sorted(groups.items()))
    open_groups = [g for g in groups.values() if len({c for c in g if c != "J"}) < 4] or list(groups.values())
    return min(open_groups, key=len)[0]


def declares_while_passing(seed: int) -> bool:
    """Does the pass strategy above reach a declaration before the auction, for this drive seed?"""
    state = GAME.new_hand(4, random.Random(f"{seed}-1-1"))  # as tables.digital.deal_rng
    for _ in range(40):
        if any(state.can_declare(s) for s in range(4)):
            return True
        if state.phase != "passing":
            return False
        for seat in range(4):
            if state.phase == "passing" and state.passes[seat] is None:
                state.apply(seat, {"type": "pass", "card": pick(state.view(seat)["hand"])})
    return False


SETUP = """
from django.contrib.auth import get_user_model
from drive import services
from drive.models import Drive
import random
import re
user = get_user_model().objects.create_user(username="olive", password="organiser-pass-123")
drive = Drive.objects.create(organiser=user, name="Browser hand", play_mode="digital", seed=%d, preferred_table_size=4)
services.add_players(drive, ["Ann", "Bob", "%s", "<i>Di</i>"])
services.draw_seating(drive, random.Random(1))
from django.utils import timezone
drive.players.update(phone_joined_at=timezone.now())  # every player has joined on a phone
services.start_hand(drive)
print(json.dumps({"code": drive.join_code, "tokens": {p.name: p.token for p in drive.players.all()}}))
"""
RTL = "נועה"  # a right-to-left name: without isolation "נועה · 8" shows as "8 · נועה"

# [right edge of the name's <bdi>, left edge of the text after it] on the seats' line: the
# seat's card count stays after the name.
NAME_THEN_COUNT = """(name) => {
  const b = [...document.querySelectorAll("#seats li bdi")].find((b) => b.textContent === name);
  if (!b || !b.nextSibling) return null;
  const after = document.createRange();
  after.selectNodeContents(b.nextSibling);
  return [b.getBoundingClientRect().right, after.getBoundingClientRect().left];
}"""


def tap(page, selector: str) -> None:
    """Tap a card. The hand re-renders whenever a state frame arrives (other phones' moves), so
    a button can be replaced between finding and clicking it: tap the current one, and if it was
    replaced meanwhile, the loop simply tries again on its next round."""
    try:
        page.locator(selector).first.dispatch_event("click", timeout=2000)
    except PlaywrightError:
        pass


@pytest.mark.timeout(600)  # a backstop: servers started on a busy machine
def test_four_phones_play_a_hand_to_a_declaration(tmp_path):
    seed = next(s for s in range(1, 5000) if declares_while_passing(s))
    with live_server(tmp_path) as server, chromium() as browser:
        data = server.shell_json(SETUP % (seed, RTL))
        code = data["code"]
        pages = []
        for name, token in data["tokens"].items():
            context = browser.new_context(viewport=PHONE)
            context.add_cookies([{"name": f"ff_{code}", "value": token, "url": server.url}])
            page = context.new_page()
            page.goto(f"{server.url}/{code}/play")
            page.wait_for_selector("#hand button.c")
            pages.append(page)
        assert "<i>Di</i>" in pages[0].inner_text("#seats")  # the name is shown as text, not HTML
        # Each name in a <bdi> of its own (as text: no element in it), in the seats and in the
        # sentences that name players.
        assert sorted(pages[0].eval_on_selector_all("#seats li bdi", "bs => bs.map(b => b.textContent)")) == sorted(
            data["tokens"])
        assert pages[0].locator("#seats bdi *").count() == 0
        assert pages[0].locator("#dealer-draw bdi").count() == 1 and pages[0].locator("#status bdi").count() >= 1
        name_right, count_left = pages[0].evaluate(NAME_THEN_COUNT, RTL)
        assert name_right <= count_left + 0.5, (name_right, count_left)
        assert pages[0].evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
        unable = next(p for p in pages if not p.is_enabled("#declare"))
        expect(unable.locator("#declare-why")).to_contain_text("two complete sets")  # why it cannot be tapped
        # A pass chosen, every card is still named by what a tap does: pass that one instead
        # (the others were named as bare cards).
        first = pages[0]
        cards = first.eval_on_selector_all("#hand button.c", "bs => bs.map(b => b.dataset.card)")
        tap(first, f'#hand button.c[data-card="{pick(cards)}"]')
        expect(first.locator("#hand button.c.chosen")).to_have_count(1)
        # The server's view of it (the chosen card is marked at once, while the pass is on its way).
        expect(first.locator("#status")).to_contain_text("Passing ")
        names = first.eval_on_selector_all("#hand button.c:not(.chosen)", "bs => bs.map(b => b.getAttribute('aria-label'))")
        assert names and all(n.startswith("Pass ") for n in names), names
        # The card passed already offers nothing (a tap on it does nothing): it says it is passing.
        passed = first.locator("#hand button.c.chosen").get_attribute("aria-label")
        assert passed.endswith("(passing)") and not passed.startswith("Pass "), passed
        declared, news = None, []
        deadline = time.monotonic() + 90  # (a hand of greedy taps declares within seconds)
        while time.monotonic() < deadline:
            for page in pages:
                if page.is_enabled("#declare"):
                    # Read before declaring: the finished hand's screen shows the result instead.
                    news += [p.inner_text("#news") for p in pages if p.is_visible("#news")]
                    page.click("#declare")
                    declared = page
                    break
                status = page.inner_text("#status")
                if "choose a card" in status:
                    cards = page.eval_on_selector_all("#hand button.c", "bs => bs.map(b => b.dataset.card)")
                    tap(page, f'#hand button.c[data-card="{pick(cards)}"]')
            if declared:
                break
            pages[0].wait_for_timeout(150)
        assert declared is not None, "no page could declare"
        # After a passing round each phone said what came into its hand (the card passed from
        # the right and the one drawn), and marked them.
        assert news and all(n.startswith("New in your hand: ") and " and " in n for n in news), news
        for page in pages:
            page.wait_for_selector("#result:not([hidden])", timeout=30_000)
            # The result at the top, above the cards; no Declare button left to tap.
            assert page.locator("#result").bounding_box()["y"] < page.locator("#hand").bounding_box()["y"]
            assert page.is_hidden("#declare") and page.is_hidden("#declare-why")
        assert "declared" in declared.inner_text("#result")
        assert "reconnecting" not in pages[1].inner_text("body") or pages[1].is_hidden("#conn")


RECORD_FRAMES = """(() => {
  window.PLAY_QUIET_MS = 1500;  // the watchdog's quiet time, short for the test
  window.sentFrames = []; window.heardFrames = [];
  const Real = window.WebSocket;
  window.WebSocket = function (url, protocols) {
    const ws = new Real(url, protocols);
    ws.addEventListener("message", (e) => window.heardFrames.push(JSON.parse(e.data).type));
    const send = ws.send.bind(ws);
    ws.send = (data) => { window.sentFrames.push(JSON.parse(data).type); send(data); };
    return ws;
  };
  window.WebSocket.OPEN = Real.OPEN;
})();"""


def anns_recorded_game_screen(browser, server, data):
    """Ann's game screen on a phone-sized page, recording its frames (``RECORD_FRAMES``)."""
    code = data["code"]
    context = browser.new_context(viewport=PHONE)
    context.add_cookies([{"name": f"ff_{code}", "value": data["tokens"]["Ann"], "url": server.url}])
    page = context.new_page()
    page.add_init_script(RECORD_FRAMES)
    page.goto(f"{server.url}/{code}/play")
    return page


@pytest.mark.timeout(600)  # a backstop: servers started on a busy machine
def test_a_quiet_game_screen_asks_for_its_view_again(tmp_path):
    """The watchdog: a phone that has heard nothing for a while (a move it missed, however it
    was missed) asks for its view and gets it, without reloading or reconnecting."""
    with live_server(tmp_path) as server, chromium() as browser:
        data = server.shell_json(SETUP % (1, RTL))
        code = data["code"]
        page = anns_recorded_game_screen(browser, server, data)
        page.wait_for_selector("#hand button.c")
        assert page.evaluate("window.sentFrames") == ["sync"]  # on connecting
        page.wait_for_function("window.sentFrames.length >= 2", timeout=30_000)
        assert page.evaluate("window.sentFrames")[:2] == ["sync", "sync"]
        page.wait_for_function("window.heardFrames.filter(t => t === 'state').length >= 2", timeout=30_000)
        assert page.is_hidden("#conn")  # answered: the same socket, no reconnection
        assert page.locator("#hand button.c").count() > 0


AUCTION_SETUP = """
from django.contrib.auth import get_user_model
from drive import services
from drive.models import Drive
from games import get_game
from tables.models import TableHand
import random
import re
user = get_user_model().objects.create_user(username="olive", password="organiser-pass-123")
drive = Drive.objects.create(organiser=user, name="Auction", play_mode="digital", seed=3, preferred_table_size=4)
services.add_players(drive, ["Ann", "Bob", "Cy", "Di"])
services.draw_seating(drive, random.Random(1))
from django.utils import timezone
drive.players.update(phone_joined_at=timezone.now())  # every player has joined on a phone
services.start_hand(drive)
table = drive.hands.get().tables.get()
state = get_game("film-fantasy").load_hand(table.state)
while state.phase == "passing":  # everyone passes their first card until the auction opens
    for seat in range(4):
        if state.phase == "passing" and state.passes[seat] is None:
            state.apply(seat, {"type": "pass", "card": state.view(seat)["hand"][0]})
TableHand.objects.filter(pk=table.pk).update(state=state.to_json(), version=state.version)
seats = [s.player for s in table.seats.select_related("player").order_by("position")]
print(json.dumps({"code": drive.join_code, "seats": [[p.name, p.token] for p in seats]}))
"""


@pytest.mark.timeout(600)  # a backstop: servers started on a busy machine
def test_the_auction_keeps_a_half_made_choice_shows_offers_first_and_the_close_says_where_to_go(tmp_path):
    """Another seat's offer arrives while a player has a card tapped: the choice stays, the
    status line says who offers what, and the offers stand above the cards (in sight on a
    small phone). The organiser's view of the table shows it without cards. Closing the hand
    (the bell, asked first) tells the game screen where to sit next."""
    from playwright.sync_api import expect

    with live_server(tmp_path) as server, chromium() as browser:
        data = server.shell_json(AUCTION_SETUP)
        code = data["code"]
        (ann, ann_token), (bob, bob_token) = data["seats"][0], data["seats"][1]
        pages = []
        for token in (ann_token, bob_token):
            context = browser.new_context(viewport=PHONE)
            context.add_cookies([{"name": f"ff_{code}", "value": token, "url": server.url}])
            page = context.new_page()
            page.goto(f"{server.url}/{code}/play")
            expect(page.locator("#status")).to_contain_text("Auction open")
            pages.append(page)
        ann_page, bob_page = pages
        card = ann_page.locator("#hand button.c").first.get_attribute("data-card")
        ann_page.locator(f'#hand button.c[data-card="{card}"]').first.click()
        expect(ann_page.locator(f'#hand button.c.chosen[data-card="{card}"]')).to_have_count(1)
        # The line says what is left to do with a card chosen (it still asked for cards).
        expect(ann_page.locator("#status")).to_have_text(
            "Auction open: tap up to 2 cards more, or choose whom to offer it to and tap Offer.")

        bob_page.locator("#hand button.c").first.click()
        bob_page.select_option("#offer-to", label=ann)
        bob_page.click("#offer")
        expect(ann_page.locator("#status")).to_have_text("An offer for you: accept or decline it below.")
        expect(ann_page.locator("#offers")).to_be_visible()
        expect(ann_page.locator("#offers li")).to_have_count(1)
        expect(ann_page.locator("#offers li span").first).to_have_text(f"{bob} offers you 1 card.")
        expect(ann_page.locator(f'#hand button.c.chosen[data-card="{card}"]')).to_have_count(1)  # still chosen
        # The offer is in sight wherever the cards are scrolled: the dock stays at the screen's bottom.
        for where in ("0", "document.body.scrollHeight"):
            ann_page.evaluate(f"window.scrollTo(0, {where})")
            expect(ann_page.locator("#offers")).to_be_in_viewport()
            expect(ann_page.locator("#status")).to_be_in_viewport()
        expect(bob_page.locator("#status")).to_contain_text("Waiting for an answer to your offer")
        expect(bob_page.locator("#offers li span").first).to_have_text(f"You offer 1 card to {ann}.")
        expect(ann_page.locator("#log li").first).to_have_text(f"{bob} offered 1 card to you.")  # the last move, in words
        expect(bob_page.locator("#log li").first).to_have_text(f"You offered 1 card to {ann}.")

        # Ann starts to accept, then thinks again: "Not now" leaves the offer open, unanswered.
        ann_page.locator("#offers button", has_text="Accept").click()
        expect(ann_page.locator("#status")).to_contain_text(f"Tap 1 of your cards to give {bob}")
        ann_page.locator("#offers button", has_text="Not now").click()
        expect(ann_page.locator("#status")).to_contain_text("An offer for you")
        expect(ann_page.locator("#offers button", has_text="Not now")).to_have_count(0)
        expect(bob_page.locator("#status")).to_contain_text("Waiting for an answer to your offer")

        # Ann takes it: Accept, one card of hers, then Give. Her own answer ends the offer: no complaint.
        ann_page.locator("#offers button", has_text="Accept").click()
        expect(ann_page.locator("#status")).to_contain_text(f"Tap 1 of your cards to give {bob}")
        ann_page.locator("#hand button.c:not([disabled])").first.click()
        ann_page.locator("#give").click()
        expect(ann_page.locator("#log li").first).to_have_text(f"You took {bob}’s offer: 1 card each way.")
        expect(bob_page.locator("#log li").first).to_have_text(f"{ann} took your offer: 1 card each way.")
        assert ann_page.inner_text("#message") == ""
        expect(ann_page.locator("#offers")).to_be_hidden()

        organiser = browser.new_page(viewport={"width": 1280, "height": 800})
        sign_in(organiser, server.url, "olive")
        organiser.goto(f"{server.url}/{code}/tables/1/watch")
        expect(organiser.locator("#table-title")).to_have_text("Table 1, hand 1")
        expect(organiser.locator("#seats")).to_contain_text(ann)
        expect(organiser.locator("#status")).to_contain_text("Auction open")
        assert organiser.locator("#hand button").count() == 0 and organiser.is_hidden("#declare")

        organiser.click("text=Back to the dashboard")
        asked = []
        organiser.on("dialog", lambda dialog: (asked.append(dialog.message), dialog.accept()))
        organiser.click("button:has-text('Close hand 1')")
        expect(ann_page.locator("#instruction")).to_be_visible()
        expect(ann_page.locator("#instruction")).to_contain_text(re.compile(r"(Move (UP|DOWN)|Stay at) .*Table \d"))
        # One way back named so (the page's own link beside the instruction's made two).
        expect(ann_page.get_by_role("link", name="Back to the drive")).to_have_count(1)
        assert asked and "ring the bell" in asked[0]
        expect(ann_page.locator("#result")).to_contain_text("The hand is over")


@pytest.mark.timeout(600)  # a backstop: servers started on a busy machine
def test_the_players_screen_says_a_bot_plays_their_seat_until_it_is_given_back(tmp_path):
    """The organiser has a bot stand in for Ann from the dashboard: Ann's open game screen says
    so at once, offers nothing to tap meanwhile (its cards stayed playable, and a tap
    was refused), and stops saying so when the seat is given back. (The bot takes its time here,
    60 s: while it waits, Ann's pass is still to choose, and her phone offers no card for it.)"""
    with live_server(tmp_path, BOT_DELAY_SECONDS="60") as server, chromium() as browser:
        data = server.shell_json(SETUP % (1, RTL))
        code = data["code"]
        drive_id = server.shell_json("from drive.models import Drive\nprint(json.dumps(Drive.objects.get().pk))")
        phone = browser.new_context(viewport=PHONE)
        phone.add_cookies([{"name": f"ff_{code}", "value": data["tokens"]["Ann"], "url": server.url}])
        ann = phone.new_page()
        ann.goto(f"{server.url}/{code}/play")
        ann.wait_for_selector("#hand button.c")
        assert "bot is playing your seat" not in ann.inner_text("#status")
        playable = ann.locator("#hand button.c:not([disabled])")
        choices = playable.count()  # her pass to choose
        assert choices > 0
        organiser = browser.new_page(viewport={"width": 1280, "height": 900})
        sign_in(organiser, server.url, "olive")
        organiser.goto(f"{server.url}/drives/{drive_id}/")
        organiser.locator("#table-1 details summary").click()
        organiser.locator("#table-1 button", has_text="A bot plays for Ann").click()
        ann.wait_for_function("document.getElementById('status').textContent.includes('bot is playing your seat')",
                              timeout=30_000)
        assert "Ann (bot)" in ann.inner_text("#seats")
        expect(playable).to_have_count(0)
        organiser.wait_for_selector("text=until you give the seat back")  # the dashboard after the POST
        expect(organiser.locator("#table-1 details")).to_have_attribute("open", "")  # back at the table's panel
        organiser.locator("#table-1 button", has_text="Give Ann the seat back").click()
        ann.wait_for_function("!document.getElementById('status').textContent.includes('bot is playing your seat')",
                              timeout=30_000)
        assert "Ann (bot)" not in ann.inner_text("#seats")


NEXT_HAND_WITH_CARDS = """
from drive import services
from drive.models import Drive
drive = Drive.objects.get(join_code="%s")
services.close_hand(drive, force=True)  # the hand on the phones is stopped and scored
services.set_table_mode(drive, 1, "physical")
services.start_hand(drive)
print(json.dumps({"hand": drive.hands.order_by("-number").first().number}))
"""


@pytest.mark.timeout(600)  # a backstop: servers started on a busy machine
def test_a_game_screen_left_on_a_finished_hand_says_the_next_one_started_and_links_to_it(tmp_path):
    """A phone left on the game screen while the organiser closed the hand and started the next
    at a table with cards: the screen says so in words, above the old hand, with a button to
    the player's page for the new hand, on a 360-px phone (it said only "You are not seated at
    a table played on the phones in this hand", at the bottom, and nothing to tap)."""
    with live_server(tmp_path) as server, chromium() as browser:
        data = server.shell_json(SETUP % (1, RTL))
        code = data["code"]
        page = anns_recorded_game_screen(browser, server, data)  # a short quiet time: it looks again soon
        page.wait_for_selector("#hand button.c")
        # (From another process, as a second server would: this one's screens hear it at their next look.)
        assert server.shell_json(NEXT_HAND_WITH_CARDS % code) == {"hand": 2}
        box = page.locator("#instruction")
        expect(box).to_be_visible(timeout=30_000)
        expect(box).to_contain_text("Hand 2 has started: you are at Table 1, playing with cards.")
        link = box.get_by_role("link", name="Go to hand 2")
        expect(link).to_have_attribute("href", f"/{code}/me")
        assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
        # Opened again, the page has no hand to show: where to go is said once, above (found by
        # QA: the status line said it again).
        page.reload()
        expect(box).to_contain_text("Hand 2 has started: you are at Table 1, playing with cards.")
        expect(page.locator("#status")).to_have_text("No hand of yours is played on this page now.")
        expect(page.get_by_text("Hand 2 has started: you are at Table 1, playing with cards.")).to_have_count(1)
        link.click()
        expect(page.get_by_role("link", name="Enter the result")).to_be_visible()
