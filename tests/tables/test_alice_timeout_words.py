"""When an Alice answer's time ran out, a phone's log said "Time ran out
for Bob." and no more where the asker's Cheshire Cat question lapsed (the turn passed: said
nowhere), and twice where the asked seat's did ("Time ran out for Bob." then "Time ran out: Bob
handed A5 to Ann."). Each lapse is now one line saying what followed."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser_support import chromium, live_server
from tests.tables.test_alice_browser import PHONE

pytestmark = [pytest.mark.browser, pytest.mark.sqlite]

# The deal of tests/tables/test_alice_browser.py (seat 0: A1-A4 and a Cheshire Cat; seat 1: A5
# and a White Rabbit); then, as the server's clock would: seat 0 asks seat 1 for A5 and seat 1's
# time runs out (A5 handed over, set A laid); seat 0 asks seat 1 for D3, not held, and its time
# to play the Cat runs out (the turn passes to seat 1).
SETUP = """
import random
from django.utils import timezone
from django.contrib.auth import get_user_model
from drive import services
from drive.models import Drive
from tables.models import TableHand
from tests.games.alice_support import deal
user = get_user_model().objects.create_user(username="olive", password="organiser-pass-123")
drive = Drive.objects.create(organiser=user, name="Alice clock", game="alice", play_mode="digital", seed=5,
                             preferred_table_size=3)
services.add_players(drive, ["Ann", "Bob", "Cy"])  # seated as the draw says
services.draw_seating(drive, random.Random(1))
drive.players.update(phone_joined_at=timezone.now())
services.start_hand(drive)
table = drive.hands.get().tables.get()
state = deal(3, [["A1", "A2", "A3", "A4", "C1", "CC", "D1"], ["A5", "WR", "E1", "E2", "F1", "F2", "G1"],
                 ["B2", "WR", "H1", "H2", "H3", "G2", "G3"]], dealer=2)
state.apply(0, {"type": "ask", "to": 1, "card": "A5"})
state.apply(1, {"type": "timeout"})
state.apply(0, {"type": "ask", "to": 1, "card": "D3"})
state.apply(0, {"type": "timeout"})
assert state.turn == 1 and state.laid[0] == ["A"]
TableHand.objects.filter(pk=table.pk).update(state=state.to_json(), version=state.version)
seats = [s.player for s in table.seats.select_related("player").order_by("position")]
print(json.dumps({"code": drive.join_code, "seats": [[p.name, p.token] for p in seats]}))
"""


@pytest.mark.timeout(180)
def test_an_answer_whose_time_ran_out_is_one_line_saying_what_followed(tmp_path):
    with live_server(tmp_path) as server, chromium() as browser:
        data = server.shell_json(SETUP)
        code = data["code"]
        (asker, asker_token), (asked, asked_token), _third = data["seats"]  # seats 0 and 1
        pages = {}
        for name, token in ((asker, asker_token), (asked, asked_token)):
            context = browser.new_context(viewport=PHONE)
            context.add_cookies([{"name": f"ff_{code}", "value": token, "url": server.url}])
            page = context.new_page()
            page.goto(f"{server.url}/{code}/play")
            page.wait_for_selector("#alice-row button.c")
            pages[name] = page
        lines = pages[asked].eval_on_selector_all("#alice-log li", "ls => ls.map(l => l.textContent)")
        assert lines[1:] == [
            f"{asker} asked you for A5.",
            f"Time ran out: you handed A5 to {asker}.",
            f"{asker} laid set A.",
            f"{asker} asked you for D3.",
            "You do not hold D3.",
            f"Time ran out for {asker}: the turn passes without a Cheshire Cat.",
        ], lines
        # The dock's last move, on the phone whose time ran out.
        expect(pages[asker].locator("#log li").first).to_have_text(
            "Time ran out for you: the turn passes without a Cheshire Cat.")
        expect(pages[asked].locator("#status")).to_contain_text("Your turn")
