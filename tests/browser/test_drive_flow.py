"""An organiser, four phones and a board run two hands of a drive, from joining to movement."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import ORGANISER_PASSWORD
from tests.browser_support import sign_in

# Their servers run on SQLite and the in-memory layer whatever the suite runs on: once is enough.
pytestmark = [pytest.mark.browser, pytest.mark.sqlite]
NAMES = ["Ann", "Bob", "Cy", "Di", "Ed", "Fay", "Gus", "Hal"]


def organiser_opens_a_new_drive(page, url, name: str) -> None:
    """Sign in as the organiser and fill in the new drive's name."""
    sign_in(page, url, "organiser", ORGANISER_PASSWORD)
    page.click("text=New drive")
    # Its script loaded (deferred: on a busy machine a choice made before it ran was not seen,
    # the game's total left as it was).
    page.wait_for_load_state("load")
    page.fill("input[name=name]", name)


def organiser_sets_up(page, url) -> str:
    organiser_opens_a_new_drive(page, url, "Browser drive")
    # Each game suggests its own total to reach; a total the organiser typed stays.
    total = page.locator("input[name=target_total]")
    expect(total).to_have_value("50")  # Film Fantasy's
    size = page.locator("input[name=preferred_table_size]")
    expect(size).to_have_attribute("max", "10")  # Film Fantasy seats 2 to 10
    page.select_option("select[name=game]", "wonderland")
    expect(total).to_have_value("180")  # about seven hands, as Film Fantasy's 50
    expect(size).to_have_attribute("max", "6")  # the box offers the chosen game's table sizes
    page.select_option("select[name=game]", "alice")
    expect(total).to_have_value("50")  # Alice's
    total.fill("60")
    page.select_option("select[name=game]", "film-fantasy")
    expect(total).to_have_value("60")
    # Only the target fields of the chosen end are shown.
    page.select_option("select[name=target]", "total")
    expect(page.locator("input[name=target_hands]")).to_be_hidden()
    expect(page.locator("input[name=target_total]")).to_be_visible()
    expect(page.locator("input[name=suspense_hands]")).to_be_hidden()  # no known last hands to hide
    page.select_option("select[name=target]", "either")
    expect(page.locator("input[name=target_hands]")).to_be_visible()
    expect(page.locator("input[name=suspense_hands]")).to_be_visible()
    page.select_option("select[name=target]", "hands")
    expect(page.locator("input[name=target_total]")).to_be_hidden()
    expect(page.locator("input[name=suspense_hands]")).to_be_visible()
    page.fill("input[name=target_hands]", "5")
    page.click("button:has-text('Create the drive')")
    page.fill("textarea[name=names]", "\n".join(NAMES))
    page.click("button:has-text('Add players')")
    page.click("button:has-text('Draw the seating')")
    page.click("button:has-text('Start hand 1')")
    expect(page.locator("#progress")).to_have_text("0 of 2 tables done")
    return re.search(r"join code ([A-Z]+)", page.inner_text("main")).group(1)


def table_players(page, number: int) -> list[str]:
    """The names at a table in seat order (each seat's line: "Seat 1 Ann")."""
    names = page.locator(f"#table-{number} ol.seats > li > bdi")
    expect(names).not_to_have_count(0)  # (a live update may be replacing the table's card)
    return names.all_inner_texts()  # read in one go, not name by name across an update


def organiser_enters(page, url, number: int, declarer: str):
    page.locator(f"#table-{number}").get_by_role("link", name=re.compile("Enter result|Correct")).click()
    page.locator("fieldset[data-field=declarer] label", has_text=re.compile(f"^{declarer}$")).click()
    if page.locator("fieldset[data-field=dealer] input:checked").count() == 0:  # a new result: no dealer chosen
        page.locator("fieldset[data-field=dealer] label", has_text=re.compile(f"^{declarer}$")).click()
    page.click("button:has-text('Save the result')")


def test_two_hands_from_joining_to_movement(server, browser, phone_page):
    organiser = browser.new_page(viewport={"width": 1280, "height": 900})
    code = organiser_sets_up(organiser, server)
    board = browser.new_page(viewport={"width": 1280, "height": 720})
    board.goto(f"{server}/{code}/board")
    expect(board.locator("[data-progress]")).to_have_text("0 of 2 tables done")

    at_table_1 = table_players(organiser, 1)
    phones = {}
    for name in at_table_1:
        phone = phone_page()
        phone.goto(f"{server}/{code.lower()}")
        phone.get_by_role("button", name=name, exact=True).click()
        expect(phone.locator("h1")).to_have_text(name)
        expect(phone.locator("main")).to_contain_text("Table 1 — with")
        phones[name] = phone
    enterer, confirmer = at_table_1[0], at_table_1[1]

    # One player enters; the points are shown before sending, computed by the server.
    page = phones[enterer]
    page.get_by_role("link", name="Enter the result").click()
    # Nothing answered yet: a hint where the points will be, not an error.
    expect(page.locator("[data-preview-box] p.muted")).to_contain_text("once every question is answered")
    expect(page.locator("[data-preview-box] .error")).to_have_count(0)
    page.locator("fieldset[data-field=declarer] label", has_text=re.compile(f"^{enterer}$")).click()
    page.locator("fieldset[data-field=dealer] label", has_text=re.compile(f"^{confirmer}$")).click()
    expect(page.locator("[data-preview-box]")).to_contain_text(f"{enterer}: 15 points")
    expect(page.locator("[data-preview-box] li > bdi", has_text=re.compile(f"^{enterer}$"))).to_have_count(1)  # isolated
    page.click("button:has-text('Send the result')")
    expect(page.locator("main")).to_contain_text("waiting for confirmation")

    # Another player sees it live (no reload) and confirms; the board counts the table at once.
    other = phones[confirmer]
    expect(other.get_by_role("button", name="Confirm: this is right")).to_be_visible()
    other.get_by_role("button", name="Confirm: this is right").click()
    expect(other.locator("main")).to_contain_text("confirmed")
    expect(board.locator("[data-progress]")).to_have_text("1 of 2 tables done")

    # The organiser types in table 2 from paper and closes the hand; phones show their move.
    at_table_2 = table_players(organiser, 2)
    organiser_enters(organiser, server, 2, at_table_2[2])
    organiser.click("button:has-text('Close hand 1')")
    expect(organiser.locator("main")).to_contain_text("seating for hand 2 is shown")
    left_of_enterer = at_table_1[1]
    expect(phones[left_of_enterer].locator("[data-instruction]")).to_have_text("Move DOWN to Table 2")
    for name in at_table_1[2:]:
        expect(phones[name].locator("[data-instruction]")).to_have_text("Stay at Table 1")
    expect(board.locator(".movement")).to_contain_text(f"↓{left_of_enterer}")
    expect(board.locator("table.standings")).to_contain_text(enterer)

    # Hand 2: both tables from the dashboard; after the close every phone knows where to go.
    organiser.click("button:has-text('Start hand 2')")
    for number in (1, 2):
        organiser_enters(organiser, server, number, table_players(organiser, number)[0])
    expect(board.locator("[data-progress]")).to_have_text("2 of 2 tables done")
    organiser.click("button:has-text('Close hand 2')")
    for name, phone in phones.items():
        expect(phone.locator("[data-instruction]")).to_have_text(re.compile(r"(Move (UP|DOWN)|Stay at) .*Table \d"))
    # The phones' instruction is sent at the close's commit, ahead of the board's update: wait for it.
    expect(board.locator("main")).to_contain_text("Hand 3")


def a_hand_on_the_phones(page, url, name: str):
    """A drive of four whose one table plays hand 1 on the phones; its "A player has left?" panel."""
    organiser_opens_a_new_drive(page, url, name)
    page.click("button:has-text('Create the drive')")
    page.fill("textarea[name=names]", "\n".join(NAMES[:4]))
    page.click("button:has-text('Add players')")
    page.click("button:has-text('Draw the seating')")
    page.locator("#table-1").get_by_role("button", name="Play on phones").click()
    page.click("button:has-text('Start hand 1')")
    return page.locator("#table-1 details")


def test_an_open_stand_in_panel_stays_open_when_the_dashboard_is_pushed(server, browser):
    """The organiser opens a digital table's "A player has left?"; a push of the dashboard (here:
    a late arrival added from another tab) re-renders the tables and must not close it, and
    brings the players' list up to date."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    panel = a_hand_on_the_phones(page, server, "Stand-in drive")
    for _ in range(5):  # a push landing under the click replaces the panel and loses it: click again
        panel.locator("summary").click()
        if panel.get_attribute("open") is not None:
            break
    expect(panel).to_have_attribute("open", "")
    expect(panel.get_by_role("button", name=re.compile("A bot plays for"))).to_have_count(4)
    page.fill("textarea[name=names]", "Half typed")  # names being typed on this page, not yet added
    other = context.new_page()
    other.goto(page.url)
    other.fill("textarea[name=names]", "Latecomer")
    other.click("button:has-text('Add players')")
    expect(page.locator("#hand")).to_contain_text("Latecomer")  # the push arrived
    expect(panel).to_have_attribute("open", "")
    # The players' count and list follow too (QA: a phone adding its own name appeared only on
    # a reload); what is being typed in the box stays.
    expect(page.locator("[data-live=players-count]")).to_have_text("Players (5)")
    expect(page.locator("[data-live=players] li", has_text="Latecomer")).to_have_count(1)
    expect(page.locator("textarea[name=names]")).to_have_value("Half typed")
    expect(panel.get_by_role("button", name=re.compile("A bot plays for")).first).to_be_visible()
    context.close()


def test_after_a_stand_in_the_tables_panel_is_open_for_the_next_seat(server, browser):
    """Each "A bot plays for …" reloaded the dashboard with the panel closed, so a
    second player who had left needed the panel opened again, and "Give … the seat back" too."""
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    panel = a_hand_on_the_phones(page, server, "Two stand-ins")
    panel.locator("summary").click()
    panel.get_by_role("button", name=re.compile("A bot plays for")).first.click()
    expect(page.locator(".messages")).to_contain_text("A bot plays for")
    expect(panel).to_have_attribute("open", "")
    expect(panel.get_by_role("button", name=re.compile("the seat back"))).to_have_count(1)
    page.close()


def test_a_target_field_the_server_refused_stays_in_sight(server, browser):
    """The drive form hides the target field of the other end, but never one holding the
    server's message: typed under "whichever comes first", then the end changed, it is refused."""
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    organiser_opens_a_new_drive(page, server, "Refused target")
    page.select_option("select[name=target]", "either")
    page.fill("input[name=target_total]", "0")
    page.select_option("select[name=target]", "hands")
    page.fill("input[name=target_hands]", "5")
    page.click("button:has-text('Create the drive')")
    expect(page.locator("select[name=target]")).to_have_value("hands")
    expect(page.locator("[data-field=target_total] .errorlist")).to_be_visible()
    expect(page.locator("input[name=target_total]")).to_be_visible()
    page.close()


HEAR_FRAMES = """(() => {
  window.heardFrames = [];  // every frame the page's live socket receives, as received
  const Real = window.WebSocket;
  window.WebSocket = function (url, protocols) {
    const ws = new Real(url, protocols);
    ws.addEventListener("message", (e) => window.heardFrames.push(JSON.parse(e.data)));
    return ws;
  };
  window.WebSocket.OPEN = Real.OPEN;
})();"""


def test_a_phones_dispute_message_goes_once_the_organiser_settles_it(server, browser, phone_page):
    """'Disputed: the organiser has been told…' stays on the disputing phone while nothing else
    changes (its own live updates included), and goes when the organiser settles the table."""
    organiser = browser.new_page(viewport={"width": 1280, "height": 900})
    organiser.add_init_script(HEAR_FRAMES)
    organiser_opens_a_new_drive(organiser, server, "Dispute drive")
    organiser.click("button:has-text('Create the drive')")
    organiser.fill("textarea[name=names]", "\n".join(NAMES[:4]))
    organiser.click("button:has-text('Add players')")
    organiser.click("button:has-text('Draw the seating')")
    organiser.click("button:has-text('Start hand 1')")
    code = re.search(r"join code ([A-Z]+)", organiser.inner_text("main")).group(1)
    enterer, disputer = table_players(organiser, 1)[:2]
    phones = {}
    for name in (enterer, disputer):
        phone = phone_page()
        phone.goto(f"{server}/{code}")
        phone.get_by_role("button", name=name, exact=True).click()
        phones[name] = phone
    page = phones[enterer]
    page.get_by_role("link", name="Enter the result").click()
    page.locator("fieldset[data-field=declarer] label", has_text=re.compile(f"^{enterer}$")).click()
    page.locator("fieldset[data-field=dealer] label", has_text=re.compile(f"^{enterer}$")).click()
    page.click("button:has-text('Send the result')")
    other = phones[disputer]
    other.fill("input[name=reason]", f"{disputer} declared, not {enterer}")
    other.add_init_script(HEAR_FRAMES)  # the page the dispute leads to
    other.get_by_role("button", name="Dispute").click()
    flash = other.locator("ul.messages")
    expect(flash).to_contain_text("Disputed")
    # The phone's live updates come meanwhile: its snapshot as it connects, and the dispute's own
    # update, built once for every screen, the phones first, then the dashboard's.
    other.wait_for_function("window.heardFrames.some((f) => f.type === 'update')", timeout=30_000)
    organiser.wait_for_function(
        "window.heardFrames.some((f) => f.type === 'update' && (f.parts.dashboard || '').includes('Disputed: '))",
        timeout=30_000)
    expect(flash).to_contain_text("Disputed")  # the message stays
    organiser.reload()
    organiser.locator("#table-1").get_by_role("link", name="Settle").click()
    organiser.locator("fieldset[data-field=declarer] label", has_text=re.compile(f"^{disputer}$")).click()
    organiser.fill("input[name=reason]", "the table agrees")
    organiser.click("button:has-text('Save the correction')")
    expect(other.locator("main")).to_contain_text("confirmed")
    expect(flash).to_have_count(0)


def test_a_private_link_asks_before_the_phone_becomes_that_player(server, browser, phone_page):
    """A private link from the Phones page, opened on a 360-px phone (as a messenger's link
    preview would open it), says whose the phone will be and changes nothing; "Continue" makes
    the phone that player's, and the player it held before is free to join again."""
    organiser = browser.new_page(viewport={"width": 1280, "height": 900})
    organiser_opens_a_new_drive(organiser, server, "Private links")
    organiser.click("button:has-text('Create the drive')")
    organiser.fill("textarea[name=names]", "\n".join(NAMES[:4]))
    organiser.click("button:has-text('Add players')")
    code = re.search(r"join code ([A-Z]+)", organiser.inner_text("main")).group(1)
    phone = phone_page()
    phone.goto(f"{server}/{code}")
    phone.get_by_role("button", name="Bob", exact=True).click()
    expect(phone.locator("h1")).to_have_text("Bob")

    organiser.get_by_role("link", name="Phones").click()
    link = organiser.get_by_label(re.compile("^.?Ann.?'s private link$")).input_value()  # (the name isolated)
    path = re.sub(r"^https?://[^/]+", "", link)  # the link names the laptop's LAN address
    phone.goto(server + path)
    expect(phone.locator("main")).to_contain_text("This phone will be Ann's.")
    expect(phone.locator("main")).to_contain_text("This phone is Bob's now: continuing signs Bob out of it.")
    expect(phone.locator("main")).to_contain_text("Not Ann? This link is Ann's own")
    organiser.reload()
    rows = organiser.locator("table.grid tbody tr")
    expect(rows.filter(has_text="Ann")).to_contain_text("not joined")  # opening the link did nothing
    expect(rows.filter(has_text="Bob")).to_contain_text("joined")
    button = phone.get_by_role("button", name="Continue as Ann")
    box = button.bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= 360  # fits the phone
    assert phone.evaluate("document.documentElement.scrollWidth") <= 360  # nothing scrolls sideways
    button.click()
    expect(phone.locator("h1")).to_have_text("Ann")
    organiser.reload()
    expect(rows.filter(has_text="Ann")).not_to_contain_text("not joined")
    expect(rows.filter(has_text="Bob")).to_contain_text("not joined")


def test_the_drive_cannot_be_ended_while_a_hand_is_in_play_and_the_button_says_why(server, browser):
    """QA: "End the drive now" during hand 2 asked "End the drive now and freeze the
    standings?" and, after OK, said "Close hand 2 first.". While a hand is in play the button
    waits and says why, asking nothing; once the hand is closed (here from another tab, the
    dashboard updated live) it asks, and ends the drive. (One table's result is entered: a hand
    was played, so the standings are frozen, not missing.)"""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    organiser = context.new_page()
    organiser_opens_a_new_drive(organiser, server, "Ending drive")
    organiser.click("button:has-text('Create the drive')")
    organiser.fill("textarea[name=names]", "\n".join(NAMES))
    organiser.click("button:has-text('Add players')")
    organiser.click("button:has-text('Draw the seating')")
    organiser.click("button:has-text('Start hand 1')")
    asked = []
    organiser.on("dialog", lambda d: (asked.append(d.message), d.accept()))
    end = organiser.get_by_role("button", name="End the drive now")
    expect(end).to_have_count(1)
    expect(end).to_be_disabled()
    expect(organiser.locator("#end-drive-why")).to_have_text("Close the hand in play first.")
    expect(end).to_have_accessible_description("Close the hand in play first.")

    other = context.new_page()  # another tab closes the hand: this one is told live
    other.goto(organiser.url)
    other.on("dialog", lambda d: d.accept())
    organiser_enters(other, server, 1, table_players(other, 1)[0])
    other.get_by_role("button", name="Close anyway").click()
    expect(other.locator("main")).to_contain_text("seating for hand 2 is shown")
    expect(end).to_be_enabled()
    expect(organiser.locator("#end-drive-why")).to_be_hidden()
    end.click()
    expect(organiser.locator("main")).to_contain_text("The drive has ended.")
    assert asked == ["End the drive now and freeze the standings?"]
    # The other tab, left open, is told live: what the finished drive would refuse goes.
    expect(other.locator("#hand h2")).to_have_text("The drive has finished")
    expect(other.get_by_role("button", name="Add players")).to_be_hidden()
    expect(other.get_by_role("button", name="End the drive now")).to_be_hidden()
    context.close()


def test_ending_the_drive_before_any_hand_is_played_warns_and_the_standings_say_why_they_are_empty(server, browser):
    """QA: "End the drive now", shown during hand 1's seating, asked "End the drive now and
    freeze the standings?" as any time, and the final standings then said "No players yet."
    with four players in the drive. The question says nobody has played a hand and the drive
    ends with no standings; the empty standings say why."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    organiser = context.new_page()
    organiser_opens_a_new_drive(organiser, server, "Ended at once")
    organiser.click("button:has-text('Create the drive')")
    expect(organiser.locator("table.standings tbody")).to_have_text("No players yet.")  # none yet: so it says
    organiser.fill("textarea[name=names]", "\n".join(NAMES[:4]))
    organiser.click("button:has-text('Add players')")
    organiser.click("button:has-text('Draw the seating')")
    expect(organiser.get_by_role("button", name="Start hand 1")).to_be_visible()
    # The page loaded whole: before its stylesheet applies, the "End the drive now" that waits
    # while a hand is in play shows too, and the click finds two buttons (a busy machine).
    organiser.wait_for_load_state()
    asked = []
    organiser.on("dialog", lambda d: (asked.append(d.message), d.accept()))
    organiser.get_by_role("button", name="End the drive now").click()
    expect(organiser.locator("main")).to_contain_text("The drive has ended.")
    assert asked == ["Nobody has played a hand yet: ended now, the drive has no standings and no prizes. "
                     "End the drive now?"]
    empty = "No hand was played, so there are no standings."
    expect(organiser.locator("h1")).to_contain_text("Standings (final)")  # the standings page
    expect(organiser.locator("table.standings tbody")).to_have_text(empty)
    organiser.get_by_role("link", name="Dashboard").click()
    expect(organiser.locator("#hand")).to_contain_text("The drive has finished")
    expect(organiser.locator("table.standings tbody")).to_have_text(empty)
    context.close()


def test_the_organisers_pages_fit_a_small_phone(server, browser):
    """QA at 360 px: the dashboard's and the standings page's table pushed the page to 390-401
    px (its "Hands" off-screen), the phones page to 703 px (the private links and their buttons
    off-screen). Each fits, at 320 and on a phone on its side too, and so do the printable
    pages; the standings' last column is on the screen."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    organiser = context.new_page()
    organiser_opens_a_new_drive(organiser, server, "A small phone's drive with a long name for its pages")
    organiser.click("button:has-text('Create the drive')")
    # (a 40-letter name among them: the Phones table's first column takes its width)
    organiser.fill("textarea[name=names]", "\n".join([*NAMES, "Maximiliana Wolfeschlegelsteinhausenberg"]))
    organiser.click("button:has-text('Add players')")
    organiser.click("button:has-text('Draw the seating')")
    organiser.click("button:has-text('Start hand 1')")
    for number in (1, 2):
        organiser_enters(organiser, server, number, table_players(organiser, number)[0])
    dashboard = organiser.url
    phone = browser.new_context(viewport={"width": 360, "height": 740}, is_mobile=True, has_touch=True)
    phone.add_cookies(context.cookies())  # the organiser signed in: one sign-in (they are limited a minute)
    context.close()
    page = phone.new_page()
    # And on a phone on its side, and the smallest: the phones page was 889 px wide at 740 (each
    # private link's box as wide as its address).
    for width, height in ((360, 740), (740, 360), (320, 640)):
        page.set_viewport_size({"width": width, "height": height})
        for path in ("", "standings", "phones", "log", "print/scorecards", "print/tables"):
            page.goto(dashboard + path)
            expect(page.locator("h1").first).to_be_visible()
            assert page.evaluate("document.documentElement.scrollWidth") <= width, (width, path)
            far = page.evaluate("""() => Math.max(...[...document.querySelectorAll(
                "table.standings th:last-child, table.grid input, table.grid button")].map(e => e.getBoundingClientRect().right), 0)""")
            assert far <= width, (width, path)
            # Its small controls a fingertip's size (24 px, WCAG 2.5.8): "take out" beside each
            # name was 20 px tall, "Show QR" 16, the top bar's links 23.
            small = page.evaluate("""() => [...document.querySelectorAll(
                ".topbar a, .topbar button, main button.link, table.grid td a, [data-earlier-hands] a")]
                .filter(e => e.offsetParent !== null && e.getBoundingClientRect().height < 24)
                .map(e => e.textContent.trim() + " " + Math.round(e.getBoundingClientRect().height))""")
            assert not small, (width, path, small)
    phone.close()


def test_taking_a_player_out_asks_first_naming_them_and_a_no_changes_nothing(server, browser):
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    organiser = context.new_page()
    organiser_opens_a_new_drive(organiser, server, "Taking out")
    organiser.click("button:has-text('Create the drive')")
    organiser.fill("textarea[name=names]", "\n".join(NAMES[:5]))
    organiser.click("button:has-text('Add players')")
    take_out = organiser.get_by_role("button", name="Take Bob out")
    asked = []
    organiser.once("dialog", lambda d: (asked.append(d.message), d.dismiss()))
    take_out.click()
    organiser.wait_for_load_state()
    organiser.reload()
    expect(take_out).to_have_count(1)  # still in: nothing was sent
    assert asked and asked[0].startswith("Take Bob out of the drive?"), asked
    organiser.once("dialog", lambda d: d.accept())
    take_out.click()
    expect(organiser.get_by_role("button", name="Bring Bob back")).to_have_count(1)
    expect(organiser.get_by_role("button", name="Take Ann out")).to_have_count(1)
    context.close()
