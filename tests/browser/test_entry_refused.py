"""A phone's entry refused for its answers: the page says why, and the browser logs no error."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.browser.test_drive_flow import organiser_sets_up, table_players
from tests.browser.test_offline_entry import entry_form_answered, sent_while_too_busy

pytestmark = [pytest.mark.browser, pytest.mark.sqlite]


def test_an_entry_refused_for_its_answers_says_why_and_logs_no_error(server, browser, phone_page):
    """QA: every refused entry logged "Failed to load resource: … 400" in the browser's console,
    though the page showed the server's reason. A refusal is the application's answer (``ok``
    false, as the preview's), not a failed request."""
    organiser = browser.new_page(viewport={"width": 1280, "height": 900})
    code = organiser_sets_up(organiser, server)
    name = table_players(organiser, 1)[0]
    phone = phone_page()
    errors: list[str] = []
    phone.on("console", lambda message: message.type == "error" and errors.append(message.text))
    entry_form_answered(phone, server, code, name)
    for seat in (1, 2):  # a pack holds one Joker
        phone.locator(f"fieldset.seat-row[data-seat='{seat}'] label", has_text="The Joker alone").click()
    phone.click("button:has-text('Send the result')")
    expect(phone.locator("[data-entry-error]")).to_contain_text("2 Jokers entered")
    expect(phone).to_have_url(f"{server}/{code}/enter")
    assert errors == []
    organiser.reload()
    expect(organiser.locator("#table-1 .badge")).to_have_text("Playing")  # nothing was stored


def test_answers_kept_from_a_refused_send_come_back_said_so_and_start_again_clears_them(server, browser, phone_page):
    """QA: after a refused send, the form opened again came back with the refused answers and no
    word of it, and the next send was refused again for them."""
    organiser = browser.new_page(viewport={"width": 1280, "height": 900})
    code = organiser_sets_up(organiser, server)
    name = table_players(organiser, 1)[0]
    phone = entry_form_answered(phone_page(), server, code, name)
    joker = phone.locator("fieldset.seat-row[data-seat='1'] label", has_text="The Joker alone").locator("input")
    phone.locator("fieldset.seat-row[data-seat='1'] label", has_text="The Joker alone").click()
    phone.locator("fieldset.seat-row[data-seat='2'] label", has_text="The Joker alone").click()
    phone.click("button:has-text('Send the result')")
    expect(phone.locator("[data-entry-error]")).to_contain_text("2 Jokers entered")
    note = phone.locator("[data-draft-note]")
    expect(note).to_be_hidden()  # the answers on the page are the phone's own, just typed
    phone.goto(f"{server}/{code}/enter")
    expect(note).to_be_visible()
    expect(joker).to_be_checked()
    note.get_by_role("button", name="Start again").click()
    expect(note).to_be_hidden()
    expect(joker).not_to_be_checked()
    declarer = phone.locator("fieldset[data-field=declarer] label", has_text=re.compile(f"^{name}$")).locator("input")
    expect(declarer).not_to_be_checked()
    phone.goto(f"{server}/{code}/enter")
    expect(note).to_be_hidden()  # nothing kept any more


def test_start_again_also_drops_this_forms_entry_waiting_to_be_sent_again(server, browser, phone_page):
    """A review: with an entry still queued (the server too busy to take it), Start again
    cleared the form but the queued answers went all the same at the next try."""
    organiser, code, phone = sent_while_too_busy(server, browser, phone_page)
    phone.goto(f"{server}/{code}/enter")  # opened again: its answers back, the entry still waiting
    note = phone.locator("[data-draft-note]")
    expect(note).to_be_visible()
    note.get_by_role("button", name="Start again").click()
    expect(note).to_be_hidden()
    expect(phone.locator("[data-queue-note]")).to_be_hidden()
    assert phone.evaluate("localStorage.getItem('ff-entry-queue')") is None
    phone.unroute("**/enter")
    phone.evaluate("window.dispatchEvent(new Event('online'))")  # the next try: nothing to send
    expect(phone.get_by_role("button", name="Send the result")).to_be_enabled()
    organiser.reload()
    expect(organiser.locator("#table-1 .badge")).to_have_text("Playing")
