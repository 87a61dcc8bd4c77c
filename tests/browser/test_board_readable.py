"""The board read from the back of a hall, on a 1920x1080 and a 1280x720 projector, for every
game: the chart's words no smaller than the standings' smallest, no name over another where
totals are equal (and their lines side by side), long names shortened with an ellipsis while
the points stay whole, the whole width used, the Live marker as large as the notes; the
printed score cards, each table within its card; and the prize reveal across the width. Screenshots of each are kept under the test's tmp path."""

from __future__ import annotations

import re
import time

import pytest
from playwright.sync_api import expect

from games import all_games
from tests.browser_support import ORGANISER_TEST_PASSWORD, sign_in

pytestmark = [pytest.mark.browser, pytest.mark.sqlite]

SIZES = [(1920, 1080), (1280, 720)]
LONG = "Winifred Montgomery-Fotheringay Smythe"  # 38 of the 40 characters a name may have

# Everything the board shows, measured in one go in the page (a live update may replace the
# board between two reads).
MEASURE = """() => {
  const visible = el => el && !el.hidden && el.getClientRects().length > 0;
  const size = el => parseFloat(getComputedStyle(el).fontSize);
  const box = el => el.getBoundingClientRect();
  const rows = [...document.querySelectorAll("table[data-pager] tbody tr")].filter(visible);
  const notes = [...document.querySelectorAll(".board .pager-note, .board .tie-note")].filter(visible);
  const standings = [...rows.flatMap(r => [...r.cells]), ...notes];
  const chart = document.querySelector(".board .chart");
  const labels = [...chart.querySelectorAll(".chart-names li")];
  const words = [...labels, ...chart.querySelectorAll(".chart-hands span, .chart-top")];
  const lines = [...chart.querySelectorAll("polyline")].map(pl => {
    const p = pl.points.getItem(pl.points.numberOfItems - 1);
    const end = new DOMPoint(p.x, p.y).matrixTransform(pl.getScreenCTM());
    return {total: pl.dataset.total, y: end.y, width: parseFloat(getComputedStyle(pl).strokeWidth)};
  });
  const content = [...rows, document.querySelector(".side .join"), chart].filter(visible).map(box);
  const half = innerHeight / 2;
  return {
    width: innerWidth, height: innerHeight, rows: rows.length,
    notesBottom: Math.max(...notes.map(n => box(n).bottom)),
    mainBottom: Math.min(innerHeight, box(document.querySelector(".board .main")).bottom),
    smallest: Math.min(...standings.map(size)),
    chartSmallest: Math.min(...words.map(size)),
    live: size(document.querySelector("[data-live-status]")),
    labels: labels.map(li => {
      const name = li.querySelector(".chart-name"), points = li.querySelector(".chart-points");
      return {box: box(li).toJSON(), points: box(points).toJSON(), name: name.textContent,
              clipped: name.scrollWidth > name.clientWidth + 1, ellipsis: getComputedStyle(name).textOverflow};
    }),
    chart: box(chart).toJSON(), lines: lines,
    totals: rows.map(r => ({row: box(r).toJSON(), total: box(r.querySelector(".total")).toJSON(),
                            name: r.querySelector(".name"), cell: r.querySelector(".name")}))
      .map(t => ({row: t.row, total: t.total, ellipsis: getComputedStyle(t.name).textOverflow,
                  clipped: t.name.scrollWidth > t.name.clientWidth + 1})),
    left: Math.min(...content.map(b => b.left)),
    rightTop: Math.max(...content.filter(b => b.top < half).map(b => b.right)),
    rightBottom: Math.max(...content.filter(b => b.bottom > half).map(b => b.right)),
  };
}"""


@pytest.fixture(scope="module")
def hall(module_server):
    """The module's server (tests/conftest.py), with an organiser for each test's drives:
    ``olive`` (a drive of each game) and ``oscar`` (a drive of 120)."""
    module_server.shell_json("from django.contrib.auth import get_user_model\n"
                             "for name in ('olive', 'oscar'):\n"
                             f"    get_user_model().objects.create_user(username=name, password={ORGANISER_TEST_PASSWORD!r})\n"
                             "print('{}')")
    return module_server


def inside(inner: dict, outer: dict, slack: float = 0.5) -> bool:
    return (inner["left"] >= outer["left"] - slack and inner["right"] <= outer["right"] + slack
            and inner["top"] >= outer["top"] - slack and inner["bottom"] <= outer["bottom"] + slack)


def overlap(a: dict, b: dict) -> bool:
    return a["left"] < b["right"] and b["left"] < a["right"] and a["top"] < b["bottom"] and b["top"] < a["bottom"]


def check_board(m: dict, where: str) -> None:
    screen = {"left": 0, "top": 0, "right": m["width"], "bottom": m["height"]}
    assert m["rows"] >= 3, where
    # The notes under the standings whole, within the board's column (the tie-break's was cut
    # by the board's padding below it).
    assert m["notesBottom"] <= m["mainBottom"] + 0.5, f"{where}: the notes under the standings are cut"
    assert m["chartSmallest"] >= m["smallest"] - 0.01, f"{where}: the chart's words are smaller than the standings'"
    assert m["live"] >= m["smallest"] - 0.01, f"{where}: the Live marker is smaller than the notes"
    labels = m["labels"]
    assert len(labels) == 5, where
    for i, a in enumerate(labels):
        assert inside(a["points"], a["box"]) and inside(a["box"], m["chart"]) and inside(a["box"], screen), \
            f"{where}: {a['name']}'s points cut"
        assert not a["clipped"] or a["ellipsis"] == "ellipsis", f"{where}: {a['name']} cut with no ellipsis"
        for b in labels[i + 1:]:
            assert not overlap(a["box"], b["box"]), f"{where}: {a['name']} over {b['name']}"
    ends: dict[str, list[dict]] = {}
    for line in m["lines"]:
        ends.setdefault(line["total"], []).append(line)
    tied = [group for group in ends.values() if len(group) > 1]
    assert tied, f"{where}: no equal totals among the leaders to check (the drive's seed)"
    for group in tied:
        ys = sorted(line["y"] for line in group)
        assert all(b - a >= group[0]["width"] - 0.01 for a, b in zip(ys, ys[1:])), f"{where}: equal totals drawn over each other"
    for row in m["totals"]:
        assert inside(row["total"], row["row"]) and inside(row["total"], screen), f"{where}: a total cut"
        assert not row["clipped"] or row["ellipsis"] == "ellipsis", f"{where}: a name cut with no ellipsis"
    assert m["left"] <= 0.05 * m["width"], where
    assert m["rightTop"] >= 0.9 * m["width"] and m["rightBottom"] >= 0.9 * m["width"], f"{where}: the right of the screen is empty"


# Each score card's box, and the furthest right any of its contents reaches.
CARDS = """() => [...document.querySelectorAll(".print-card")].map(card => {
  const box = card.getBoundingClientRect();
  const right = Math.max(...[...card.querySelectorAll("*")].map(el => el.getBoundingClientRect().right));
  return {left: box.left, right: box.right, top: box.top, bottom: box.bottom, content: right};
})"""


def check_score_cards(browser, server, tmp_path) -> None:
    """The printed score cards, on the laptop's screen and on A4 paper, for every game: each
    card's hands table within the card (a game's facts make 6-8 columns; they ran under the
    next card), no card over another."""
    ids = server.shell_json("from drive.models import Drive\n"
                            "print(json.dumps({d.game: d.pk for d in Drive.objects.filter(organiser__username='olive')}))")
    context = browser.new_context(viewport={"width": 1366, "height": 900})
    page = context.new_page()
    sign_in(page, server.url, "olive")
    for game, pk in ids.items():
        for media, width in (("screen", 1366), ("print", 718)):  # 718 px: an A4 page's printable width
            page.set_viewport_size({"width": width, "height": 900})
            page.emulate_media(media=media)
            page.goto(f"{server.url}/drives/{pk}/print/scorecards")
            expect(page.locator(".print-card").first).to_be_visible()
            page.screenshot(path=str(tmp_path / f"scorecards-{game}-{media}.png"))
            cards = page.evaluate(CARDS)
            assert len(cards) == 40, game
            for i, card in enumerate(cards):
                assert card["content"] <= card["right"] + 0.5, f"{game} ({media}): a score card's table runs out of it"
                assert card["right"] <= width, f"{game} ({media}): a score card off the page"
                assert not any(overlap(card, other) for other in cards[i + 1:]), f"{game} ({media}): cards overlap"
    # The table cards, one to an A4 page, a seated name of 40 letters and no space among them
    # (it pushed the card, the names beside it, off the page).
    server.shell_json("from drive.models import Drive\nfrom drive.selectors import current_hand\n"
                      f"d = Drive.objects.get(pk={ids['film-fantasy']})\n"
                      "seat = current_hand(d).seats.order_by('table__number', 'position').first()\n"
                      "seat.player.name = 'W' * 40\n"  # the widest letter, 40 times
                      "seat.player.save(update_fields=['name'])\nprint('{}')")
    page.emulate_media(media="print")
    page.set_viewport_size({"width": 718, "height": 900})
    page.goto(f"{server.url}/drives/{ids['film-fantasy']}/print/tables")
    expect(page.locator(".print-card").first).to_contain_text("W" * 40)
    for card in page.evaluate(CARDS):
        assert card["content"] <= card["right"] + 0.5 and card["right"] <= 718, "a table card runs off the A4 page"
    overflowing = page.evaluate("""() => [...document.querySelectorAll(".print-card *")]
        .filter(el => el.clientWidth > 0 && el.scrollWidth > el.clientWidth + 1).map(el => el.outerHTML.slice(0, 80))""")
    assert overflowing == [], overflowing  # no text runs out of its box either
    context.close()


@pytest.mark.timeout(900)  # a backstop: servers started and drives played on a busy machine
def test_the_board_reads_from_the_back_of_a_hall_for_every_game(hall, browser, tmp_path):
    server = hall
    # A drive of each game, played three hands (``manage.py demo_drive``), whose leader has a
    # name far too long for the chart.
    codes = server.shell_json(
        "from django.core.management import call_command\n"
        "from drive.models import Drive, Player\nfrom drive import selectors\nfrom games import all_games\nout = {}\n"
        "for game in (g.slug for g in all_games()):\n"
        "    call_command('demo_drive', game=game, players=40, hands=3, seed=1, organiser='olive')\n"
        "    d = Drive.objects.filter(organiser__username='olive').latest('pk')\n"
        f"    Player.objects.filter(pk=selectors.standings(d)[0].row.player_id).update(name={LONG!r})\n"
        "    out[d.game] = d.join_code\n"
        "print(json.dumps(out))")
    for game, code in codes.items():
        for width, height in SIZES:
            page = browser.new_page(viewport={"width": width, "height": height})
            page.goto(f"{server.url}/{code}/board")
            expect(page.locator(".board .chart .chart-names li")).to_have_count(5)
            expect(page.locator("[data-live-status]")).to_have_text("Live")
            page.screenshot(path=str(tmp_path / f"board-{game}-{width}x{height}.png"))
            check_board(page.evaluate(MEASURE), f"{game} at {width}x{height}")
            page.close()

    # After a close, who moves where above the standings (ten tables): the notes under the
    # standings still on the screen, and the names given the row's width (a
    # column of places as wide as the names' cut "Margaret Fitzwilliam" to "Margaret Fitz…").
    server.shell_json(f"from drive.models import Drive\nfrom drive import services\n"
                      f"services.close_hand(Drive.objects.get(join_code={codes['film-fantasy']!r}), force=True)\n"
                      "print('{}')")
    for width, height in SIZES:
        page = browser.new_page(viewport={"width": width, "height": height})
        page.goto(f"{server.url}/{codes['film-fantasy']}/board")
        expect(page.locator("[data-movement]")).to_be_visible()
        expect(page.locator("[data-live-status]")).to_have_text("Live")
        page.screenshot(path=str(tmp_path / f"board-seating-{width}x{height}.png"))
        m = page.evaluate(MEASURE)
        assert m["rows"] >= 1 and m["notesBottom"] <= m["mainBottom"] + 0.5, f"seating at {width}x{height}"
        share = page.evaluate("""() => { const r = document.querySelector('.board table.standings tbody tr:not([hidden])');
          return r.querySelector('.name').getBoundingClientRect().width / r.getBoundingClientRect().width; }""")
        assert share >= 0.6, f"seating at {width}x{height}: the names get {share:.0%} of a row"
        page.close()

    check_score_cards(browser, server, tmp_path)

    # The prizes revealed: across the width, each on the screen.
    server.shell_json(f"from drive.models import Drive\nfrom drive import services\n"
                      f"d = Drive.objects.get(join_code={codes['alice']!r})\n"
                      "services.close_hand(d, force=True); d.refresh_from_db()\n"
                      # Names of two words, long enough to be broken at their space (QA: "Dée / O'Brien").
                      "for p in d.players.all(): p.name = p.name + ' Oppenheimer'; p.save(update_fields=['name'])\n"
                      "services.end_drive(d); d.refresh_from_db(); services.show_prizes(d, True)\n"
                      "print('{}')")
    for width, height in SIZES:
        context = browser.new_context(viewport={"width": width, "height": height}, reduced_motion="reduce")
        page = context.new_page()
        page.goto(f"{server.url}/{codes['alice']}/board")
        expect(page.locator("[data-prizes] .prize.winner")).to_be_visible()
        page.screenshot(path=str(tmp_path / f"prizes-{width}x{height}.png"))
        m = page.evaluate("""() => {
          const box = el => el.getBoundingClientRect().toJSON();
          return {width: innerWidth, height: innerHeight,
                  prizes: box(document.querySelector("[data-prizes]")),
                  each: [...document.querySelectorAll("[data-prizes] .prize")].map(box),
                  // A name with its points on one line, where the line can hold it (found by
                  // QA: "Dée / O'Brien" broken in the runner-up's column).
                  broken: [...document.querySelectorAll("[data-prizes] .prize-entry")].filter(e =>
                    e.getBoundingClientRect().width < e.closest(".prize").getBoundingClientRect().width - 2
                    && e.getBoundingClientRect().height > 1.8 * parseFloat(getComputedStyle(e).fontSize))
                    .map(e => e.textContent),
                  live: document.querySelector("[data-live-status]").getBoundingClientRect().toJSON()};
        }""")
        screen = {"left": 0, "top": 0, "right": width, "bottom": height}
        assert m["prizes"]["right"] - m["prizes"]["left"] >= 0.9 * width
        assert max(p["right"] for p in m["each"]) >= 0.6 * width  # not one narrow column
        assert not m["broken"], m["broken"]
        assert all(inside(p, screen) for p in m["each"]) and inside(m["live"], screen)
        context.close()


# The seating's movement as the board shows it now: its box, the tables shown (each one's box),
# the standings' rows shown and the notes' bottom.
MOVEMENT = """() => {
  const shownEl = el => !el.hidden && el.getClientRects().length > 0, box = el => el.getBoundingClientRect();
  const movement = document.querySelector("[data-movement]");
  const rows = [...document.querySelectorAll("table[data-pager] tbody tr")].filter(shownEl);
  const notes = [...document.querySelectorAll(".board .pager-note, .board .tie-note")].filter(shownEl);
  return {
    height: innerHeight, box: {top: box(movement).top, bottom: box(movement).bottom},
    tables: [...movement.children].filter(shownEl).map(t => ({
      number: t.querySelector("strong").textContent, top: box(t).top, bottom: box(t).bottom})),
    rows: rows.length, bottom: Math.max(...rows.map(r => box(r).bottom), ...notes.map(n => box(n).bottom)),
    note: document.querySelector("[data-movement-note]").textContent,
    standings: document.querySelector("[data-pager-note]").textContent,
    chart: [...document.querySelectorAll(".board .chart")].filter(shownEl).map(c => box(c).bottom),
  };
}"""


@pytest.mark.timeout(900)  # a backstop: a drive of 120 made and a server started on a busy machine
def test_the_seating_of_thirty_tables_turns_in_pages_and_leaves_the_standings_room(hall, browser, tmp_path):
    """While 120 players found their seats, the board listed all 30 tables' movement
    and showed no standings row at all, and tables 17-30 were cut off the screen. The movement
    takes under half the screen, a page of whole tables at a time, every table on some page; the
    standings keep the rest."""
    server = hall
    code = server.shell_json("from django.core.management import call_command\n"
                             "from drive.models import Drive\nfrom drive import services\n"
                             "call_command('demo_drive', game='film-fantasy', players=120, hands=1, seed=3, organiser='oscar')\n"
                             "d = Drive.objects.get(organiser__username='oscar')\n"
                             "services.close_hand(d, force=True)\nprint(json.dumps(d.join_code))")
    for (width, height), every_page in (((1280, 720), True), ((1920, 1080), False), ((1024, 768), False),
                                        ((1080, 1920), False)):
        page = browser.new_page(viewport={"width": width, "height": height})
        # The page's clock is the test's, stopped: the pager turns a page each time the test
        # moves it on 8 s (its timer), never by itself between two reads of a page.
        page.clock.install()
        page.clock.pause_at(time.time() + 60)
        page.goto(f"{server.url}/{code}/board")
        expect(page.locator("[data-live-status]")).to_have_text("Live")
        note = page.locator("[data-movement-note]")
        expect(note).to_have_text(re.compile(r"^Tables, page 1 of \d+$"))
        pages = int(note.inner_text().rsplit(" ", 1)[1])
        seen, standings = [], set()
        for number in range(1, pages + 1 if every_page else 2):
            if number > 1:
                page.clock.run_for(8000)  # the pager's turn
            expect(note).to_have_text(f"Tables, page {number} of {pages}")
            m = page.evaluate(MOVEMENT)
            page.screenshot(path=str(tmp_path / f"board-seating-30-{width}x{height}-{number}.png"))
            where = f"{width}x{height}, page {number}"
            assert m["tables"] and m["box"]["bottom"] - m["box"]["top"] <= 0.45 * m["height"], (where, m["box"])
            for t in m["tables"]:
                assert m["box"]["top"] - 0.5 <= t["top"] and t["bottom"] <= m["box"]["bottom"] + 0.5, (where, t)
            # (a 4:3 screen and a portrait one: the drive's name on two lines, the text in vh)
            fewest = 4 if width / height > 1.5 else 3
            assert m["rows"] >= fewest and m["bottom"] <= m["height"], (where, m["rows"], m["bottom"])
            assert all(bottom <= m["height"] for bottom in m["chart"]), (where, m["chart"])  # (portrait: none)
            seen += [t["number"] for t in m["tables"]]
            standings.add(m["standings"])
        if every_page:
            assert pages > 1 and sorted(seen) == sorted(f"Table {n}:" for n in range(1, 31)), seen
            # The standings' pages keep their count as the tables' turn (pages of
            # tables of other heights made them skip and repeat rows).
            assert len({n.rsplit(" ", 1)[1] for n in standings}) == 1, standings
        page.close()

    # The prizes of the drive, many tied for some: a list too long for the screen is drawn
    # smaller (six runners-up tied pushed the winner off the screen).
    server.shell_json("from drive.models import Drive\nfrom drive import services\nd = Drive.objects.get(organiser__username='oscar')\n"
                      "services.end_drive(d); d.refresh_from_db(); services.show_prizes(d, True)\nprint('{}')")
    for width, height in (*SIZES, (1080, 1920)):
        context = browser.new_context(viewport={"width": width, "height": height}, reduced_motion="reduce")
        page = context.new_page()
        page.goto(f"{server.url}/{code}/board")
        expect(page.locator("[data-prizes] .prize.winner")).to_be_visible()
        page.screenshot(path=str(tmp_path / f"prizes-120-{width}x{height}.png"))
        m = page.evaluate("""() => ({
          entries: document.querySelectorAll("[data-prizes] .prize-entry").length,
          each: [...document.querySelectorAll("[data-prizes] .prize")].map(p => p.getBoundingClientRect().toJSON()),
          winner: parseFloat(getComputedStyle(document.querySelector(".prize.winner")).fontSize),
          other: parseFloat(getComputedStyle(document.querySelector(".prize:not(.winner)")).fontSize)})""")
        screen = {"left": 0, "top": 0, "right": width, "bottom": height}
        assert m["entries"] >= 8, m  # (the drive's seed: enough tied to need the room)
        assert all(inside(p, screen) for p in m["each"]), (width, m)
        assert m["winner"] > m["other"] >= 0.02 * height, (width, m)
        context.close()
