"""The score cards page on a phone and a laptop: its headings break between words only (found in
a walkthrough: "Declare/d", "Tabl/e" and "Tota/l" at 360 px and 1366 px, the whole card's
``overflow-wrap: anywhere``, kept for a 40-letter name, reaching the hands' table)."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from games import all_games
from tests.browser_support import chromium, demo_drives, live_server, sign_in

pytestmark = [pytest.mark.browser, pytest.mark.sqlite]

# Each heading's words (a hyphen ends a word: "Nine-card" may break after it) on more than one
# line, and whether a card's table runs out of its card, read in one go in the page.
BROKEN_WORDS = """() => {
  const broken = [];
  for (const th of document.querySelectorAll(".print-card table.grid th")) {
    const text = th.firstChild;
    for (const m of th.textContent.matchAll(/[^\\s-]+-?/g)) {
      const range = document.createRange();
      range.setStart(text, m.index);
      range.setEnd(text, m.index + m[0].length);
      if (new Set([...range.getClientRects()].map(r => Math.round(r.top))).size > 1) broken.push(m[0]);
    }
  }
  const out = [...document.querySelectorAll(".print-card")].filter(card =>
    card.querySelector("table").getBoundingClientRect().right > card.getBoundingClientRect().right + 0.5);
  return {broken: [...new Set(broken)], out: out.length, page: document.documentElement.scrollWidth};
}"""


@pytest.mark.timeout(600)  # a backstop: a server started on a busy machine
def test_score_card_headings_break_between_words_on_a_phone_and_a_laptop(tmp_path):
    with live_server(tmp_path) as server, chromium() as browser:
        demo_drives(server, [g.slug for g in all_games()], players=8, hands=2, seed=1)
        ids = server.shell_json("from drive.models import Drive\nprint(json.dumps({d.game: d.pk for d in Drive.objects.all()}))")
        page = browser.new_page(viewport={"width": 1366, "height": 768})
        sign_in(page, server.url, "olive")
        for game, pk in ids.items():
            for width, height in ((320, 640), (360, 740), (1366, 768)):
                page.set_viewport_size({"width": width, "height": height})
                page.goto(f"{server.url}/drives/{pk}/print/scorecards")
                expect(page.locator(".print-card").first).to_be_visible()
                m = page.evaluate(BROKEN_WORDS)
                assert m == {"broken": [], "out": 0, "page": width}, (game, width, m)
