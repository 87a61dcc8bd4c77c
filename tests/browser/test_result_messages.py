"""A "result" message moves the board's and the dashboard's standings (in the order and with the
places the server ranked), progress and table badge at once (static/js/live.js onResult, exposed
as ``window.liveResult``); an older one changes nothing."""

from __future__ import annotations

import json

import pytest
from playwright.sync_api import expect

from scoring.standings import Row, rank
from tests.browser.test_drive_flow import organiser_sets_up, table_players

# Their servers run on SQLite and the in-memory layer whatever the suite runs on: once is enough.
pytestmark = [pytest.mark.browser, pytest.mark.sqlite]

# Count the full updates that carry "read" (the snapshot sent on connect is one), so the test
# knows the page's lastRead is set before checking that an older result is ignored.
COUNT_READS = """(() => {
  const Native = window.WebSocket; window.__reads = 0;
  window.WebSocket = function (url, protocols) {
    const s = new Native(url, protocols);
    s.addEventListener("message", (e) => { try { if (JSON.parse(e.data).read) window.__reads++; } catch (x) {} });
    return s;
  };
})();"""


def rows(page) -> list[list[str]]:
    """(rank, name, total) of every standings row, in page order."""
    return page.eval_on_selector_all(
        "table[data-standings] tbody tr[data-player]",
        "trs => trs.map(r => [r.querySelector('.rank').textContent, r.querySelector('.name').textContent,"
        " r.querySelector('.total').textContent])")


def result(ids: list[str], totals: list[int], decls: list[int], commit: int | float, names: dict[str, str]) -> str:
    """A result message for the players ``ids`` (their new totals and first facts); everybody's
    place ranked as the server ranks it (``names``: every player's id by name, the others on 0)."""
    new = {i: (t, d) for i, t, d in zip(ids, totals, decls)}
    rows = [Row(name, new.get(pid, (0, 0))[0], facts=(new.get(pid, (0, 0))[1], 0), player_id=pid,
                hands_played=int(pid in new)) for name, pid in names.items()]
    return "liveResult(" + json.dumps({
        "type": "result", "table": 1, "current": True, "status": "confirmed", "status_label": "Confirmed",
        "progress": {"done": 1, "total": 2, "entered": 0, "disputed": 0}, "commit": commit,
        "totals": {i: {"total": t, "facts": [d, 0], "hands": 1} for i, (t, d) in new.items()},
        "ranks": [[r.row.player_id, r.label] for r in rank(rows)],
    }) + ")"


def test_result_message_reorders_standings_and_older_one_is_ignored(server, browser):
    organiser = browser.new_page(viewport={"width": 1280, "height": 900})
    organiser.add_init_script(COUNT_READS)
    code = organiser_sets_up(organiser, server)  # 8 players, 2 tables, hand 1 playing
    at_table_1 = table_players(organiser, 1)
    board = browser.new_page(viewport={"width": 1280, "height": 900})
    board.add_init_script(COUNT_READS)
    board.goto(f"{server}/{code}/board")
    expect(board.locator("table[data-standings] tbody tr[data-player]")).to_have_count(8)
    expect(organiser.locator("table[data-standings] tbody tr[data-player]")).to_have_count(8)
    ids = board.eval_on_selector_all("tr[data-player]", "trs => Object.fromEntries(trs.map("
                                     "r => [r.querySelector('.name').textContent, r.dataset.player]))")
    table_1_ids = [ids[name] for name in at_table_1]
    others = sorted((n for n in ids if n not in at_table_1), key=str.lower)
    top, tens, last = at_table_1[0], sorted(at_table_1[1:3], key=str.lower), at_table_1[3]
    expected = ([["1", top, "30"]] + [["=2", n, "10"] for n in tens] + [["4", last, "0"]]
                + [["–", n, "0"] for n in others])  # the others have played no hand yet: after, by name

    for page in (board, organiser):
        page.wait_for_function("window.__reads > 0")  # the connect snapshot has set lastRead
        expect(page.locator("[data-progress]")).to_have_text("0 of 2 tables done")
        page.evaluate(result(table_1_ids, [30, 10, 10, 0], [1, 0, 0, 0], 9e18, ids))
        expect(page.locator("[data-progress]")).to_have_text("1 of 2 tables done")
        assert rows(page) == expected
        before = rows(page)
        # Older than the update the page shows: ignored entirely.
        stale = result(table_1_ids, [0, 0, 0, 99], [0, 0, 0, 3], 1, ids).replace('"done": 1', '"done": 2')
        page.evaluate(stale.replace('"confirmed"', '"disputed"').replace('"Confirmed"', '"Disputed"'))
        assert rows(page) == before
        expect(page.locator("[data-progress]")).to_have_text("1 of 2 tables done")

    badge = organiser.locator("#table-1 .badge")
    expect(badge).to_have_text("Confirmed")
    expect(badge).to_have_class("badge st-confirmed")
    expect(organiser.locator("#table-1")).to_have_attribute("data-status", "confirmed")
    top_row = organiser.locator(f"table[data-standings] tr[data-player='{ids[top]}']")
    expect(top_row.locator(".fact-0")).to_have_text("1")
    expect(top_row.locator(".hands")).to_have_text("1")
    expect(organiser.locator("#table-2 .badge")).to_have_text("Playing")


def test_an_instruction_message_shows_on_the_phone_at_once_and_an_older_one_is_ignored(server, browser, phone_page):
    """static/js/live.js onInstruction (``window.liveInstruction``): a close's movement
    instruction goes on top of the phone's part at once, replacing the one shown, never a
    second one; one older than the update the page shows changes nothing."""
    organiser = browser.new_page(viewport={"width": 1280, "height": 900})
    code = organiser_sets_up(organiser, server)
    name = table_players(organiser, 1)[0]
    phone = phone_page()
    phone.add_init_script(COUNT_READS)
    phone.goto(f"{server}/{code.lower()}")
    phone.get_by_role("button", name=name, exact=True).click()
    expect(phone.locator("h1")).to_have_text(name)
    phone.wait_for_function("window.__reads >= 1")  # its live socket's snapshot is shown
    expect(phone.locator("[data-instruction]")).to_have_count(0)  # hand 1 is being played

    def instruction(text: str, stamp, stay: bool = False) -> str:
        html = f'<p class="instruction {"stay" if stay else ""}" data-instruction>{text}</p>'
        return "liveInstruction(" + json.dumps({"type": "instruction", "stamp": stamp, "hand": 2, "html": html}) + ")"

    phone.evaluate(instruction("Move UP to Table 1", 4e18))
    expect(phone.locator("[data-instruction]")).to_have_text("Move UP to Table 1")
    expect(phone.locator("header + [data-instruction]")).to_have_count(1)  # under the name, at the top
    phone.evaluate(instruction("Stay at Table 2", 4e18, stay=True))
    expect(phone.locator("[data-instruction]")).to_have_count(1)
    expect(phone.locator("[data-instruction].stay")).to_have_text("Stay at Table 2")
    phone.evaluate(instruction("Move DOWN to Table 9", 1))  # older than the snapshot the page shows
    expect(phone.locator("[data-instruction]")).to_have_text("Stay at Table 2")
    # QA: on a narrow phone the table's number wrapped onto a line of its own ("… to Table" / "12").
    phone.evaluate(instruction("Move DOWN to Table 12", 4e18))
    expect(phone.locator("[data-instruction]")).to_have_text("Move DOWN to Table 12")
    apart = phone.locator("[data-instruction]").evaluate("""p => {
        const text = p.firstChild, range = document.createRange(), apart = [];
        const top = i => { range.setStart(text, i); range.setEnd(text, i + 1); return range.getBoundingClientRect().top; };
        for (let width = 200; width <= 420; width += 4) {  // every phone's width, and narrower
            p.style.width = width + "px";
            if (top(text.data.indexOf("Table")) !== top(text.data.length - 1)) apart.push(width);
        }
        p.style.width = "";
        return apart;
    }""")
    assert apart == [], f"the number is not on its table's line at these widths (px): {apart}"
