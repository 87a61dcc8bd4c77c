"""A phone's entry refused for its answers: the page says why, and the browser logs no error."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.test_drive_flow import organiser_sets_up, table_players
from tests.browser.test_offline_entry import entry_form_answered

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
