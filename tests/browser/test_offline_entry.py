"""A phone that loses the connection keeps the typed result and sends it, once, when it returns."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.browser.test_drive_flow import organiser_sets_up, table_players

# Their servers run on SQLite and the in-memory layer whatever the suite runs on: once is enough.
pytestmark = [pytest.mark.browser, pytest.mark.sqlite]


def test_entry_made_offline_arrives_once_when_back_online(server, browser, phone_page):
    organiser = browser.new_page(viewport={"width": 1280, "height": 900})
    code = organiser_sets_up(organiser, server)
    name = table_players(organiser, 1)[0]
    phone = phone_page()
    phone.goto(f"{server}/{code}")
    phone.get_by_role("button", name=name, exact=True).click()
    phone.get_by_role("link", name="Enter the result").click()
    phone.locator("fieldset[data-field=declarer] label", has_text=re.compile(f"^{name}$")).click()
    expect(phone.locator("[data-preview-box]")).to_contain_text(f"{name}: 15 points")

    phone.context.set_offline(True)
    phone.click("button:has-text('Send the result')")
    expect(phone.locator("[data-queue-note]")).to_be_visible()
    assert "/enter" in phone.url  # still on the form, answers kept

    phone.context.set_offline(False)
    phone.evaluate("window.dispatchEvent(new Event('online'))")
    expect(phone.locator("main")).to_contain_text("waiting for confirmation", timeout=15000)
    # Reloading the form and the queue flush must not send it a second time.
    phone.wait_for_timeout(500)
    organiser.reload()
    expect(organiser.locator("#table-1 .badge")).to_have_text("Entered, awaiting confirmation")
    phone.goto(f"{server}/{code}/me")
    expect(phone.locator("main")).to_contain_text("Entered by " + name)
