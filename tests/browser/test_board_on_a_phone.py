"""The room's board opened on a player's phone (on a 360-px phone held
upright its 3.6vh rows and its columns for the place and the points, sized for a projector, left
about 100 px for a name: "Ann …", "Isabe…", one standings row a page while the seating was
shown, the tie-break's note cut at the bottom, and the prizes drawn at 7 px). Upright, the board
is sized by the width too: every name whole (a long one on two lines), the pages filled and each
row on one page only, the notes on the screen and the prizes legible; on its side (740x360), the
notes no smaller than 12 px. Screenshots are kept under the test's tmp path."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.test_board_projector import demo_drive
from tests.browser_support import chromium, live_server

pytestmark = [pytest.mark.browser, pytest.mark.sqlite]

LONG = "Maximiliana Wolfeschlegelsteinhausenberg"  # the 40 characters a name may have

# The standings as the phone shows them now, read in one go in the page.
SHOWN = """() => {
  const rows = [...document.querySelectorAll("table[data-pager] tbody tr")];
  const shown = rows.filter(r => !r.hidden);
  const notes = [...document.querySelectorAll(".board .pager-note, .board .tie-note")].filter(n => !n.hidden);
  const names = shown.map(r => r.querySelector(".name"));
  return {
    rows: rows.length, first: rows.indexOf(shown[0]), last: rows.indexOf(shown[shown.length - 1]),
    contiguous: shown.every((r, i) => rows.indexOf(r) === rows.indexOf(shown[0]) + i),
    // (a text wider than its cell: scrollWidth of a table cell says nothing of its overflow)
    cut: names.filter(n => { const r = document.createRange(); r.selectNodeContents(n);
                             return r.getBoundingClientRect().width > n.clientWidth + 1; }).map(n => n.textContent),
    nameWidth: Math.min(...names.map(n => n.getBoundingClientRect().width)),
    names: names.map(n => n.textContent.replace(/[\\u2066-\\u2069]/g, "").trim()),
    size: parseFloat(getComputedStyle(shown[0]).fontSize),
    rowsBottom: Math.max(...shown.map(r => r.getBoundingClientRect().bottom)),
    notesTop: Math.min(...notes.map(n => n.getBoundingClientRect().top)),
    notesBottom: Math.max(...notes.map(n => n.getBoundingClientRect().bottom)),
    noteSize: Math.min(...notes.map(n => parseFloat(getComputedStyle(n).fontSize))),
    pager: (document.querySelector("[data-pager-note]") || {}).textContent || "",
    page: document.documentElement.scrollWidth, height: innerHeight,
  };
}"""


@pytest.mark.timeout(600)  # a backstop: a server started on a busy machine
def test_the_board_on_a_phone_shows_whole_names_and_full_pages(tmp_path):
    with live_server(tmp_path) as server, chromium() as browser:
        code = demo_drive(server, players=24, hands=2, seed=3)
        server.shell_json("from drive.models import Player\np = Player.objects.order_by('pk').first()\n"
                          f"p.name = {LONG!r}\np.save(update_fields=['name'])\nprint('{{}}')")
        for width, height in ((360, 740), (320, 640)):
            context = browser.new_context(viewport={"width": width, "height": height}, is_mobile=True, has_touch=True)
            page = context.new_page()
            page.goto(f"{server.url}/{code}/board")
            expect(page.locator("[data-pager-note]")).to_contain_text("page 1 of")
            page.screenshot(path=str(tmp_path / f"board-{width}x{height}.png"))
            m = page.evaluate(SHOWN)
            where = (width, height, m)
            assert m["page"] <= width, where
            assert not m["cut"], where  # every name whole: no "Ann …"
            assert m["nameWidth"] >= 0.5 * width, where  # the names' column the room the place and points leave
            assert m["size"] >= 16, where  # read on a phone in the hand
            assert m["contiguous"] and m["first"] == 0 and m["last"] + 1 >= 8, where  # a page of rows, not one
            assert m["rowsBottom"] <= m["notesTop"] + 0.5 and m["notesBottom"] <= m["height"], where
            assert m["noteSize"] >= 12, where
            # The next page starts with the row after this page's last: none skipped or shown twice.
            page.wait_for_function("document.querySelector('[data-pager-note]').textContent.startsWith('Standings, page 2')",
                                   timeout=20_000)
            after = page.evaluate(SHOWN)
            assert after["contiguous"] and after["first"] == m["last"] + 1 and not after["cut"], (width, after)
            assert after["rowsBottom"] <= after["notesTop"] + 0.5 and after["notesBottom"] <= after["height"], (width, after)
            context.close()

        # On its side: the side column's join code beside the standings, its notes legible.
        context = browser.new_context(viewport={"width": 740, "height": 360}, is_mobile=True, has_touch=True)
        page = context.new_page()
        page.goto(f"{server.url}/{code}/board")
        expect(page.locator("[data-pager-note]")).to_contain_text("page 1 of")
        m = page.evaluate(SHOWN)
        assert m["page"] <= 740 and m["noteSize"] >= 12 and m["notesBottom"] <= 360, m
        assert page.evaluate("parseFloat(getComputedStyle(document.querySelector('[data-live-status]')).fontSize)") >= 12
        context.close()

        # The prizes, in one column on the phone held upright: on the screen and legible.
        server.shell_json("from drive.models import Drive\nfrom drive import services\nd = Drive.objects.get()\n"
                          "services.close_hand(d, force=True); d.refresh_from_db()\n"
                          "services.end_drive(d); d.refresh_from_db(); services.show_prizes(d, True)\nprint('{}')")
        for width, height in ((360, 740), (320, 640)):
            context = browser.new_context(viewport={"width": width, "height": height}, reduced_motion="reduce",
                                          is_mobile=True, has_touch=True)
            page = context.new_page()
            page.goto(f"{server.url}/{code}/board")
            expect(page.locator("[data-prizes] .prize.winner")).to_be_visible()
            page.screenshot(path=str(tmp_path / f"prizes-{width}x{height}.png"))
            m = page.evaluate("""() => ({
              page: document.documentElement.scrollWidth,
              bottom: Math.max(...[...document.querySelectorAll("[data-prizes] .prize")].map(p => p.getBoundingClientRect().bottom)),
              smallest: Math.min(...[...document.querySelectorAll("[data-prizes] .prize")].map(p => parseFloat(getComputedStyle(p).fontSize)))})""")
            assert m["page"] <= width and m["bottom"] <= height and m["smallest"] >= 16, (width, m)
            context.close()
