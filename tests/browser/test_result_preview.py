"""The organiser's result page shows the points as the answers change (computed by the server,
static/js/preview.js), and for a correction the points recorded beside the new ones; on a laptop
and on a 360-px phone."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.browser.test_drive_flow import organiser_sets_up, table_players

# Their servers run on SQLite and the in-memory layer whatever the suite runs on: once is enough.
pytestmark = [pytest.mark.browser, pytest.mark.sqlite]


def choose(page, field: str, label: str) -> None:
    page.locator(f"fieldset[data-field={field}] label", has_text=re.compile(f"^{re.escape(label)}$")).click()


def test_the_organiser_sees_the_points_before_saving_and_what_a_correction_changes(server, browser):
    organiser = browser.new_page(viewport={"width": 1280, "height": 900})
    console_errors: list[str] = []
    organiser.on("console", lambda message: message.type == "error" and console_errors.append(message.text))
    organiser_sets_up(organiser, server)
    ann, bob, cy, _di = table_players(organiser, 1)
    box = organiser.locator("[data-preview-box]")

    organiser.locator("#table-1").get_by_role("link", name="Enter result").click()
    expect(box.locator("p.muted")).to_contain_text("once every question is answered")
    expect(box.locator(".error")).to_have_count(0)
    # "Which declaration?" is asked once someone declared: not beside "Nobody".
    declaration = organiser.locator("fieldset[data-field=nine_card]")
    expect(declaration).to_be_hidden()
    choose(organiser, "declarer", "Nobody (the hand was stopped)")
    expect(declaration).to_be_hidden()
    choose(organiser, "declarer", ann)
    expect(declaration).to_be_visible()
    expect(box.locator("p.muted")).to_contain_text("once every question is answered")  # who dealt?
    choose(organiser, "dealer", bob)
    expect(box).to_contain_text(f"{ann}: 15 points; won the hand")
    expect(box.locator("li", has_text=bob)).to_have_text(f"{bob}: 0 points")
    expect(box.locator("p.small")).to_have_text("Points with these answers")  # a heading (a new-user check)
    organiser.click("button:has-text('Save the result')")
    expect(organiser.locator("#table-1 .badge")).to_have_text("Confirmed")

    # A correction: the form opens as recorded; changing an answer shows recorded → new.
    organiser.locator("#table-1").get_by_role("link", name="Correct").click()
    expect(box).to_contain_text(f"{ann}: 15 points, unchanged")
    expect(box.locator("p.small")).to_have_text("Points as recorded → with these answers")
    choose(organiser, "declarer", cy)
    expect(box).to_contain_text(f"{ann}: 15 → 0 points; no longer wins the hand")
    expect(box).to_contain_text(f"{cy}: 0 → 15 points; now wins the hand")
    expect(box).to_contain_text(f"{bob}: 0 points, unchanged")
    expect(box.locator("li.changed")).to_have_count(2)
    choose(organiser, "nine_card", "Nine, with the Joker (25)")
    expect(box).to_contain_text(f"{cy}: 0 → 25 points")
    # An impossible answer says what is wrong, in place of the points.
    organiser.locator("fieldset[data-seat='1'] label:has-text('The Joker alone')").click()
    expect(box.locator(".error")).to_contain_text("Joker")
    expect(box.locator("li")).to_have_count(0)
    # The players it names each in a <bdi>, the text with no invisible mark (found by review).
    expect(box.locator(".error bdi").first).to_be_visible()
    assert not re.search("[\u2066-\u2069]", box.inner_text()), box.inner_text()
    assert console_errors == []  # the preview answered (a tester saw a 400 logged at each tap)
    # Saved all the same, it is refused, saying why; once the answers differ from those, the
    # refusal goes (QA: it stayed above a preview of valid points; a tester: it stayed above
    # the preview of what was still wrong after a first fix), the preview saying what is wrong
    # now, if anything.
    organiser.fill("[name=reason]", "Cy declared")
    organiser.click("button:has-text('Save the correction')")
    refusal = organiser.locator("p.msg-error")
    expect(refusal).to_contain_text("Joker")
    organiser.locator("fieldset[data-seat='2'] label:has-text('The Joker alone')").click()  # still wrong
    expect(refusal).to_be_hidden()
    expect(box.locator(".error")).to_contain_text("Joker")
    for seat in ("1", "2"):
        organiser.locator(f"fieldset[data-seat='{seat}'] label:has-text('No Ice Follies group')").click()
    expect(box).to_contain_text(f"{cy}: 0 → 25 points")

    # The same page on a 360-px phone: the preview shows, and nothing is wider than the screen.
    phone = browser.new_context(viewport={"width": 360, "height": 740}, is_mobile=True, has_touch=True,
                                storage_state=organiser.context.storage_state())
    small = phone.new_page()
    small.goto(organiser.url)
    expect(small.locator("[data-preview-box]")).to_contain_text(f"{ann}: 15 points, unchanged")
    choose(small, "declarer", bob)
    expect(small.locator("[data-preview-box]")).to_contain_text(f"{bob}: 0 → 15 points")
    assert small.evaluate("document.documentElement.scrollWidth") <= 360
    phone.close()
