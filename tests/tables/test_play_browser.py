"""Four phone-sized pages play one digital hand to a declaration in Chromium, against daphne."""

from __future__ import annotations

import random
from collections import OrderedDict

import pytest
from playwright.sync_api import Error as PlaywrightError

from games import get_game
from tests.browser_support import PHONE, chromium, live_server

pytestmark = pytest.mark.browser

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
user = get_user_model().objects.create_user(username="olive", password="organiser-pass-123")
drive = Drive.objects.create(organiser=user, name="Browser hand", play_mode="digital", seed=%d, preferred_table_size=4)
services.add_players(drive, ["Ann", "Bob", "Cy", "<i>Di</i>"])
services.draw_seating(drive, random.Random(1))
services.start_hand(drive)
print(json.dumps({"code": drive.join_code, "tokens": {p.name: p.token for p in drive.players.all()}}))
"""


def tap(page, selector: str) -> None:
    """Tap a card. The hand re-renders whenever a state frame arrives (other phones' moves), so
    a button can be replaced between finding and clicking it: tap the current one, and if it was
    replaced meanwhile, the loop simply tries again on its next round."""
    try:
        page.locator(selector).first.dispatch_event("click", timeout=2000)
    except PlaywrightError:
        pass


@pytest.mark.timeout(240)
def test_four_phones_play_a_hand_to_a_declaration(tmp_path):
    seed = next(s for s in range(1, 5000) if declares_while_passing(s))
    with live_server(tmp_path) as server, chromium() as browser:
        data = server.shell_json(SETUP % seed)
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
        assert pages[0].evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
        declared = None
        for _ in range(120):
            for page in pages:
                if page.is_enabled("#declare"):
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
        for page in pages:
            page.wait_for_selector("#result:not([hidden])", timeout=10000)
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


@pytest.mark.timeout(120)
def test_a_quiet_game_screen_asks_for_its_view_again(tmp_path):
    """The watchdog: a phone that has heard nothing for a while (a move it missed, however it
    was missed) asks for its view and gets it, without reloading or reconnecting."""
    with live_server(tmp_path) as server, chromium() as browser:
        data = server.shell_json(SETUP % 1)
        code = data["code"]
        context = browser.new_context(viewport=PHONE)
        context.add_cookies([{"name": f"ff_{code}", "value": data["tokens"]["Ann"], "url": server.url}])
        page = context.new_page()
        page.add_init_script(RECORD_FRAMES)
        page.goto(f"{server.url}/{code}/play")
        page.wait_for_selector("#hand button.c")
        assert page.evaluate("window.sentFrames") == ["sync"]  # on connecting
        page.wait_for_function("window.sentFrames.length >= 2", timeout=10000)
        assert page.evaluate("window.sentFrames")[:2] == ["sync", "sync"]
        page.wait_for_function("window.heardFrames.filter(t => t === 'state').length >= 2", timeout=5000)
        assert page.is_hidden("#conn")  # answered: the same socket, no reconnection
        assert page.locator("#hand button.c").count() > 0
