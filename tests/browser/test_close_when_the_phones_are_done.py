"""A hand played on the phones ends; the dashboard counts the table done at once (the result's own
message), its full update following later (``LIVE_GATHER_MS``). Meanwhile "Close hand 1" must not
ask to ring a bell on a table whose hand is over, nor "Close anyway" stay offered."""

from __future__ import annotations

import re
from contextlib import contextmanager

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import ORGANISER_PASSWORD
from tests.browser.test_drive_flow import organiser_opens_a_new_drive
from tests.browser.whole_drive import LAPTOP, create_and_seat
from tests.browser_support import live_server

pytestmark = [pytest.mark.browser, pytest.mark.sqlite]


@contextmanager
def organiser_and_server(tmp_path, bot_delay: str):
    """A server of its own whose bots wait ``bot_delay`` seconds a move and whose dashboards'
    full update waits its longest (the page lives on the result's own message meanwhile), its
    organiser made."""
    with live_server(tmp_path, BOT_DELAY_SECONDS=bot_delay, LIVE_GATHER_MS="5000",
                     DJANGO_SUPERUSER_PASSWORD=ORGANISER_PASSWORD) as server:
        server.manage("createsuperuser", "--noinput", "--username", "organiser", "--email", "o@example.com")
        yield server

# The close's forms as the page holds them when its progress first reads every table done.
AT_DONE = """() => {
  const progress = document.querySelector('#progress');
  if (!progress || progress.textContent !== '1 of 1 table done') return null;
  const closes = [...document.querySelectorAll('form[action$="/close"]')];
  return {asks: closes.filter(f => !f.hidden && f.getAttribute('onsubmit')).map(f => f.getAttribute('onsubmit')),
          bell: closes.map(f => f.getAttribute('data-bell')).filter(Boolean),
          anyway: closes.filter(f => !f.hidden && f.querySelector('input[name=force]')).length};
}"""


@pytest.mark.timeout(300)
def test_closing_at_once_after_the_phones_finish_asks_nothing(tmp_path, browser):
    # The full update waits its longest: the page lives on the result's own message meanwhile.
    with organiser_and_server(tmp_path, "0.02") as server:
        page = browser.new_page(viewport=LAPTOP)
        organiser_opens_a_new_drive(page, server.url, "Over on the phones")
        page.select_option("select[name=game]", "wonderland")
        page.select_option("select[name=target]", "hands")
        page.fill("input[name=target_hands]", "1")
        page.select_option("select[name=play_mode]", "digital")
        create_and_seat(page, ["Ann", "Bob"])
        page.click("button:has-text('Start hand 1')")
        panel = page.locator("#table-1 details")
        panel.locator("summary").click()
        for name in ("Ann", "Bob"):  # both have left: bots play the hand out
            panel.get_by_role("button", name=re.compile(f"A bot plays for {name}")).click()
            expect(page.locator(".messages")).to_contain_text(f"A bot plays for {name}")
        expect(page.locator("#table-1 details")).to_have_attribute("open", "")
        at_done = page.wait_for_function(AT_DONE, timeout=120_000, polling="raf").json_value()
        assert at_done == {"asks": [], "bell": [], "anyway": 0}, at_done
        asked = []
        page.on("dialog", lambda d: (asked.append(d.message), d.accept()))
        page.get_by_role("button", name="Close hand 1").click()
        expect(page.locator("main")).to_contain_text("the final standings are frozen")
        assert asked == []
        page.close()


# The close's question, and which tables show done, when the page's progress first reads one done.
AT_ONE_DONE = """() => {
  const progress = document.querySelector('#progress');
  if (!progress || progress.textContent !== '1 of 2 tables done') return null;
  const close = document.querySelector('form[action$="/close"]');
  return {ask: close.getAttribute('onsubmit'), bell: close.getAttribute('data-bell'),
          done: [...document.querySelectorAll('.table-card')].filter(c => c.dataset.status !== 'playing').map(c => c.id)};
}"""


@pytest.mark.timeout(300)
def test_the_close_s_question_names_only_the_tables_still_playing(tmp_path, browser):
    # Bots slow enough that the second table is still playing when the page has loaded after
    # its last stand-in: the page then sees the first table's end as it comes.
    with organiser_and_server(tmp_path, "0.15") as server:
        page = browser.new_page(viewport=LAPTOP)
        organiser_opens_a_new_drive(page, server.url, "Two tables on the phones")
        page.select_option("select[name=game]", "wonderland")
        page.fill("input[name=preferred_table_size]", "2")
        page.select_option("select[name=play_mode]", "digital")
        create_and_seat(page, ["Ann", "Bob", "Cy", "Di"])
        page.click("button:has-text('Start hand 1')")
        for number in (1, 2):  # everybody has left: bots play both hands out, one table first
            panel = page.locator(f"#table-{number} details")
            if panel.get_attribute("open") is None:
                panel.locator("summary").click()
            while panel.get_by_role("button", name=re.compile("A bot plays for")).count():
                panel.get_by_role("button", name=re.compile("A bot plays for")).first.click()
                expect(page.locator(".messages")).to_contain_text("A bot plays for")
        at_one = page.wait_for_function(AT_ONE_DONE, timeout=120_000, polling="raf").json_value()
        assert len(at_one["done"]) == 1, at_one
        playing = "2" if at_one["done"] == ["table-1"] else "1"
        assert at_one["bell"] == playing
        assert at_one["ask"].startswith(f"return confirm('Table {playing} still playing on the phones: ring the bell?"), at_one
        page.close()
