"""The board on a 1080p projector: the score chart beside the standings, under the join code
(below them it left room for 7 rows of 40 players: six pages), and the standings paged to fill
the screen's height; on a screen taller than wide, the chart below them and on the screen too
(it once ran off the bottom, hiding the lower lines and labels). The chart's names use the room
of a wide screen, and are shortened with an ellipsis where there is none."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.browser_support import chromium, demo_drives, live_server

# Their servers run on SQLite and the in-memory layer whatever the suite runs on: once is enough.
pytestmark = [pytest.mark.browser, pytest.mark.sqlite]


def demo_drive(server, *, players: int, hands: int, seed: int, game: str | None = None) -> str:
    """The organiser olive, a demo drive of hers (``manage.py demo_drive``), and its code."""
    demo_drives(server, [game], players=players, hands=hands, seed=seed)
    return server.shell_json("from drive.models import Drive\nprint(json.dumps(Drive.objects.get().join_code))")


@pytest.mark.timeout(600)  # a backstop: servers started on a busy machine
def test_the_chart_and_the_standings_fit_on_a_1080p_projector(tmp_path):
    with live_server(tmp_path) as server, chromium() as browser:
        code = demo_drive(server, players=40, hands=3, seed=1)
        tall = browser.new_page(viewport={"width": 1080, "height": 1920})
        tall.goto(f"{server.url}/{code}/board")
        expect(tall.locator(".board .chart")).to_be_visible()
        # Read in one go in the page (a live update may replace the board between two reads):
        # some rows paged away, the chart's bottom on the screen, the shown rows above it.
        tall.wait_for_function("""() => {
          const chart = document.querySelector(".board .chart");
          const rows = [...document.querySelectorAll("table[data-pager] tbody tr")];
          const shown = rows.filter(r => !r.hidden);
          if (!chart || !shown.length || shown.length === rows.length) return false;
          const box = chart.getBoundingClientRect();
          return box.bottom <= window.innerHeight && Math.max(...shown.map(r => r.getBoundingClientRect().bottom)) <= box.top;
        }""", timeout=30_000)
        # The chart below them: pages of even length, so it does not jump as they turn.
        pages = tall.evaluate(SHOWN)
        count = -(-pages["rows"] // pages["shown"])
        assert pages["shown"] == -(-pages["rows"] // count)  # ceil(rows / pages): no short last page of 2
        tall.close()

        board = browser.new_page(viewport={"width": 1920, "height": 1080})
        board.goto(f"{server.url}/{code}/board")
        expect(board.locator(".board .chart")).to_be_visible()
        # Beside the standings, under the join code, on the screen; the standings' rows, paged,
        # reach down past the chart's top (the room it took below them is theirs) and stay on it.
        board.wait_for_function("""() => {
          const chart = document.querySelector(".board .chart");
          const join = document.querySelector(".side .join");
          const rows = [...document.querySelectorAll("table[data-pager] tbody tr")];
          const shown = rows.filter(r => !r.hidden);
          if (!chart || !shown.length || shown.length === rows.length) return false;
          const box = chart.getBoundingClientRect();
          const right = Math.max(...shown.map(r => r.getBoundingClientRect().right));
          const bottom = Math.max(...shown.map(r => r.getBoundingClientRect().bottom));
          return box.left >= right && box.top >= join.getBoundingClientRect().bottom
            && box.bottom <= window.innerHeight && bottom > box.top && bottom <= window.innerHeight;
        }""", timeout=30_000)
        # The chart beside them: full pages, the screen's height used (11 players
        # were shown 6 and 5 where 10 fitted, half the screen empty), and the page said.
        pages = board.evaluate(SHOWN)
        assert pages["room_below"] < 3 * pages["row"], pages  # a part row, and the page and tie notes
        count = -(-pages["rows"] // pages["shown"])
        expect(board.locator("[data-pager-note]")).to_have_text(re.compile(rf"Standings, page 1 of {count}"))

        # The hand closed, the room takes its seats: the moves of its ten tables leave the
        # standings room for five rows a page (every name, a table a line, left three).
        server.shell_json("from drive.models import Drive\nfrom drive import services\n"
                          "services.close_hand(Drive.objects.get(), force=True)\nprint('{}')")
        board.reload()  # (closed in another process: its in-memory layer tells this server nothing)
        expect(board.locator("[data-movement]")).to_be_visible(timeout=30_000)
        board.wait_for_function("""() => {
          const rows = [...document.querySelectorAll("table[data-pager] tbody tr")].filter(r => !r.hidden);
          return rows.length >= 5 && rows[rows.length - 1].getBoundingClientRect().bottom <= innerHeight;
        }""", timeout=30_000)


# The standings' rows and those shown, the room left under the last one shown and a row's height.
SHOWN = """() => {
  const rows = [...document.querySelectorAll("table[data-pager] tbody tr")];
  const shown = rows.filter(r => !r.hidden);
  const last = shown[shown.length - 1].getBoundingClientRect();
  return {rows: rows.length, shown: shown.length, room_below: innerHeight - last.bottom, row: last.height};
}"""


# The join address's lines and size, and the drive name's, read in one go in the page.
JOIN_WORDS = """(address) => {
  const url = document.querySelector(".side .join-url"), h1 = document.querySelector(".board h1");
  if (address) url.textContent = address;
  const range = document.createRange();
  range.selectNodeContents(url);
  const tops = new Set([...range.getClientRects()].map(r => Math.round(r.top)));
  return {text: url.textContent, lines: tops.size, size: parseFloat(getComputedStyle(url).fontSize),
          right: range.getBoundingClientRect().right, nameWhole: h1.scrollWidth <= h1.clientWidth + 1,
          nameShown: h1.textContent.trim(), nameRight: h1.getBoundingClientRect().right};
}"""


@pytest.mark.timeout(600)  # a backstop: a server started on a busy machine
def test_the_join_address_shows_whole_on_one_line_and_a_long_drive_name_wraps(tmp_path):
    """QA saw "http://192.0.2.2:37821/QYCZ" then "S" on a 1920x1080 projector, in a narrow column
    beside the QR code; on a 360-px screen the drive's name ended in "…"."""
    name = "Wonderland QA evening at the village hall"
    with live_server(tmp_path) as server, chromium() as browser:
        demo_drive(server, players=8, hands=1, seed=1, game="wonderland")
        code = server.shell_json(f"from drive.models import Drive\nd = Drive.objects.get()\nd.name = {name!r}\n"
                                 "d.save(update_fields=['name'])\nprint(json.dumps(d.join_code))")
        for width, height in [(1920, 1080), (1280, 720)]:
            board = browser.new_page(viewport={"width": width, "height": height})
            board.goto(f"{server.url}/{code}/board")
            expect(board.locator(".side .join-url")).to_have_text(re.compile(rf"^http://\S+/{code}$"))
            for address in (None, "http://192.168.100.123:65535/ABCDE"):  # this server's; the longest IPv4 one
                m = board.evaluate(JOIN_WORDS, address)
                assert m["lines"] == 1 and m["right"] <= width, (width, m)
                assert m["size"] >= 0.028 * height, (width, m)  # larger than the board's notes (2.4vh)
            assert m["nameWhole"] and m["nameShown"] == name, m
            board.close()
        phone = browser.new_page(viewport={"width": 360, "height": 740})
        phone.goto(f"{server.url}/{code}/board")
        expect(phone.locator(".board h1")).to_have_text(name)
        m = phone.evaluate("""() => { const h1 = document.querySelector(".board h1");
          return {whole: h1.scrollWidth <= h1.clientWidth + 1, right: h1.getBoundingClientRect().right,
                  page: document.documentElement.scrollWidth}; }""")
        assert m["whole"] and m["right"] <= 360 and m["page"] <= 360, m
        # A player's 40-letter name in the phone page's heading wraps too (it scrolled sideways).
        long_name = "Maximiliana Wolfeschlegelsteinhausenbergd"[:40]
        token = server.shell_json("from drive.models import Player\np = Player.objects.order_by('pk').first()\n"
                                  f"p.name = {long_name!r}\np.save(update_fields=['name'])\nprint(json.dumps(p.token))")
        phone.context.add_cookies([{"name": f"ff_{code}", "value": token, "url": server.url}])
        phone.goto(f"{server.url}/{code}/me")
        expect(phone.locator("h1")).to_have_text(long_name)
        wide = phone.evaluate("""() => [...document.querySelectorAll('body *')].filter(e => e.getBoundingClientRect().right > 361)
          .map(e => e.tagName + '.' + e.className + ' ' + Math.round(e.getBoundingClientRect().right) + ' ' + e.textContent.slice(0, 40))""")
        assert phone.evaluate("document.documentElement.scrollWidth") <= 360, wide


# Each of the chart's names as shown: its text, whether it is cut (and how), and whether its
# total is whole within its label and the chart.
CHART_NAMES = """() => {
  const chart = document.querySelector(".board .chart").getBoundingClientRect();
  return [...document.querySelectorAll(".board .chart-names li")].map(li => {
    const name = li.querySelector(".chart-name"), points = li.querySelector(".chart-points").getBoundingClientRect();
    const label = li.getBoundingClientRect();
    return {name: name.textContent.replace(/[\\u2066-\\u2069]/g, ""), cut: name.scrollWidth > name.clientWidth + 1,
            ellipsis: getComputedStyle(name).textOverflow,
            pointsWhole: points.left >= label.left && points.right <= label.right + 0.5 && label.right <= chart.right + 0.5};
  });
}"""


@pytest.mark.timeout(600)  # a backstop: a server started on a busy machine
def test_the_charts_names_use_the_room_of_a_wide_screen_and_are_shortened_on_a_narrow_one(tmp_path):
    """QA saw "Ann Abern… 15" and "Dorothea … 20" in the chart at 1920x1080, with room to spare:
    the names had a fixed 38% of the chart, whatever their length."""
    names = ["Ann Abernathy-Smithe", "Dorothea Featherston"]  # 20 characters each
    longest = "Maximiliana Wolfeschlegelsteinhausenbergd"[:40]  # the most a name may have
    with live_server(tmp_path) as server, chromium() as browser:
        demo_drive(server, players=16, hands=3, seed=1)
        code = server.shell_json(
            "from drive.models import Drive, Player\nfrom drive import selectors\nd = Drive.objects.get()\n"
            f"for r, name in zip(selectors.standings(d), {names!r}):\n"
            "    Player.objects.filter(pk=r.row.player_id).update(name=name)\n"
            "print(json.dumps(d.join_code))")
        board = browser.new_page(viewport={"width": 1920, "height": 1080})
        board.goto(f"{server.url}/{code}/board")
        expect(board.locator(".board .chart .chart-names li")).to_have_count(5)
        shown = board.evaluate(CHART_NAMES)
        assert [n["name"] for n in shown[:2]] == names, shown
        assert not any(n["cut"] for n in shown) and all(n["pointsWhole"] for n in shown), shown
        board.close()

        # A 40-letter name on a screen taller than wide: shortened with an ellipsis, its total whole.
        server.shell_json("from drive.models import Drive, Player\nfrom drive import selectors\n"
                          "r = selectors.standings(Drive.objects.get())[0]\n"
                          f"Player.objects.filter(pk=r.row.player_id).update(name={longest!r})\nprint('{{}}')")
        tall = browser.new_page(viewport={"width": 1080, "height": 1920})
        tall.goto(f"{server.url}/{code}/board")
        expect(tall.locator(".board .chart .chart-names li")).to_have_count(5)
        shown = tall.evaluate(CHART_NAMES)
        assert shown[0]["name"] == longest and shown[0]["cut"] and shown[0]["ellipsis"] == "ellipsis", shown
        assert all(n["pointsWhole"] for n in shown), shown


@pytest.mark.timeout(600)  # a backstop: servers started on a busy machine
def test_a_few_rows_over_what_fits_are_shown_tighter_on_one_page(tmp_path):
    """11 players on a 1080p projector were paged 10 and 1, every other screen a
    single row. A few rows over what fits are drawn a little tighter, all on one screen, and
    still read from the back of the hall (at least 2.5 % of the screen's height)."""
    with live_server(tmp_path) as server, chromium() as browser:
        code = demo_drive(server, players=12, hands=2, seed=3)
        board = browser.new_page(viewport={"width": 1920, "height": 1080})
        board.goto(f"{server.url}/{code}/board")
        expect(board.locator(".board .chart")).to_be_visible()
        expect(board.locator("table[data-pager] tbody tr")).to_have_count(12)
        expect(board.locator("table[data-pager] tbody tr:not([hidden])")).to_have_count(12)
        expect(board.locator("[data-pager-note]")).to_be_hidden()
        expect(board.locator("table[data-pager]")).to_have_class(re.compile(r"\btight\b"))  # (the rows tighter)
        m = board.evaluate("""() => {
          const rows = [...document.querySelectorAll("table[data-pager] tbody tr")];
          const notes = [...document.querySelectorAll(".board .tie-note")].filter(n => n.getClientRects().length);
          return {bottom: Math.max(...rows.concat(notes).map(r => r.getBoundingClientRect().bottom)),
                  size: parseFloat(getComputedStyle(rows[0].cells[1]).fontSize)};
        }""")
        assert m["bottom"] <= 1080, m
        assert m["size"] >= 0.025 * 1080, m


# The drive name's lines (its height over one line's) and whether it shows whole, the standings'
# width and the main column's, and the rows shown, read in one go in the page.
NAME_AND_ROOM = """() => {
  const h1 = document.querySelector(".board h1"), probe = h1.cloneNode();
  probe.textContent = "A";
  h1.after(probe);
  const line = probe.getBoundingClientRect().height;
  probe.remove();
  const rows = [...document.querySelectorAll("table[data-pager] tbody tr")];
  return {lines: Math.round(h1.getBoundingClientRect().height / line), whole: h1.scrollHeight <= h1.clientHeight + 1,
          table: document.querySelector("table.standings").getBoundingClientRect().width,
          main: document.querySelector(".board .main").getBoundingClientRect().width,
          shown: rows.filter(r => !r.hidden).length, rows: rows.length};
}"""


@pytest.mark.timeout(600)  # a backstop: a server started on a busy machine
def test_a_long_drive_name_takes_two_lines_and_leaves_the_standings_their_room(tmp_path):
    """An 80-character name took three lines at 1920x1080 and 1366x768 (two
    standings rows fewer a page) and eight at 1080x1920 (one row a page)."""
    name = "Midsummer Film Fantasy Charity Drive in aid of the Lower Wibbleton Village Halls"  # 80
    screens = [(1920, 1080), (1366, 768), (1080, 1920)]
    with live_server(tmp_path) as server, chromium() as browser:
        code = demo_drive(server, players=40, hands=3, seed=1)
        short = {}
        for width, height in screens:
            board = browser.new_page(viewport={"width": width, "height": height})
            board.goto(f"{server.url}/{code}/board")
            board.wait_for_function("document.querySelectorAll('table[data-pager] tbody tr[hidden]').length > 0")
            short[width] = board.evaluate(NAME_AND_ROOM)
            board.close()
        server.shell_json(f"from drive.models import Drive\nd = Drive.objects.get()\nd.name = {name!r}\n"
                          "d.save(update_fields=['name'])\nprint('{}')")
        for width, height in screens:
            board = browser.new_page(viewport={"width": width, "height": height})
            board.goto(f"{server.url}/{code}/board")
            expect(board.locator(".board h1")).to_have_text(name)
            board.wait_for_function("document.querySelectorAll('table[data-pager] tbody tr[hidden]').length > 0")
            m = board.evaluate(NAME_AND_ROOM)
            wide = width > height
            assert m["lines"] <= (2 if wide else 3), (width, m)
            assert m["whole"] or not wide, (width, m)  # whole on a projector; taller than wide, it may end in "…"
            assert m["table"] >= m["main"] - 1, (width, m)  # the standings keep the column's width
            assert m["shown"] >= short[width]["shown"] - 1, (width, m, short[width])  # and all but a row of their height
            board.close()


# The finished board's side column: the live marker, the chart (its top number included) and
# its names, and the standings' right edge, read in one go in the page.
FINISHED_SIDE = """() => {
  const box = e => e.getBoundingClientRect();
  const chart = box(document.querySelector(".board .chart")), live = box(document.querySelector(".side .live-status"));
  const names = [...document.querySelectorAll(".board .chart-names li")].map(box);
  const rows = [...document.querySelectorAll("table[data-pager] tbody tr")].filter(r => !r.hidden);
  return {chartTop: Math.min(chart.top, box(document.querySelector(".board .chart-top")).top), chartBottom: chart.bottom,
          chartLeft: chart.left, liveBottom: live.bottom, standingsRight: Math.max(...rows.map(r => box(r).right)),
          namesApart: names.every((n, i) => names.every((o, j) => i === j || n.bottom <= o.top + 0.5 || o.bottom <= n.top + 0.5)),
          namesOn: names.every(n => n.top >= chart.top - 0.5 && n.bottom <= chart.bottom + 0.5),
          joinShown: !!document.querySelector(".side .join").getClientRects().length};
}"""


@pytest.mark.timeout(600)  # a backstop: a server started on a busy machine
def test_a_finished_drives_board_gives_the_chart_the_side_columns_height(tmp_path):
    """Once the drive had finished, the join code gone, the side column's
    upper half was empty above the chart."""
    with live_server(tmp_path) as server, chromium() as browser:
        code = demo_drive(server, players=24, hands=3, seed=1)
        server.shell_json("from drive.models import Drive\nfrom drive import services\nd = Drive.objects.get()\n"
                          "services.close_hand(d, force=True); d.refresh_from_db(); services.end_drive(d)\nprint('{}')")
        for width, height in [(1920, 1080), (1366, 768)]:
            board = browser.new_page(viewport={"width": width, "height": height})
            board.goto(f"{server.url}/{code}/board")
            expect(board.locator(".board .status-line")).to_have_text("Final standings")
            expect(board.locator(".board .chart .chart-names li")).to_have_count(5)
            m = board.evaluate(FINISHED_SIDE)
            assert not m["joinShown"], m
            # Under the live marker, a little room for the chart's top number, down to the foot.
            assert m["liveBottom"] <= m["chartTop"] <= m["liveBottom"] + 0.06 * height, (width, m)
            assert m["chartBottom"] <= height and m["chartBottom"] >= 0.9 * height, (width, m)
            assert m["chartLeft"] >= m["standingsRight"], (width, m)
            assert m["namesApart"] and m["namesOn"], (width, m)
            board.close()
