"""A phone that loses the connection keeps the typed result and sends it, once, when it returns."""

from __future__ import annotations

import json
import re

import pytest
from playwright.sync_api import expect

from drive.access import NOT_JOINED
from tests.browser.test_drive_flow import organiser_sets_up, table_players

# Their servers run on SQLite and the in-memory layer whatever the suite runs on: once is enough.
pytestmark = [pytest.mark.browser, pytest.mark.sqlite]


def entry_form_answered(phone, server, code: str, name: str):
    """The phone joins as ``name`` and answers the entry form: ``name`` declared."""
    phone.goto(f"{server}/{code}")
    phone.get_by_role("button", name=name, exact=True).click()
    expect(phone.get_by_role("link", name="Enter the result")).to_be_visible()
    # Straight to the form the link opens: a click on the link as the page's live part was
    # replaced by the socket's first update went to the old link, and nothing opened (a busy CI).
    phone.goto(f"{server}/{code}/enter")
    phone.locator("fieldset[data-field=declarer] label", has_text=re.compile(f"^{name}$")).click()
    phone.locator("fieldset[data-field=dealer] label", has_text=re.compile(f"^{name}$")).click()
    expect(phone.locator("[data-preview-box]")).to_contain_text(f"{name}: 15 points")
    return phone


def sent_offline(server, browser, phone_page):
    """A drive under way; Table 1's first player sends the entry form with the phone offline."""
    organiser = browser.new_page(viewport={"width": 1280, "height": 900})
    code = organiser_sets_up(organiser, server)
    name = table_players(organiser, 1)[0]
    phone = entry_form_answered(phone_page(), server, code, name)
    phone.context.set_offline(True)
    # An answer changed offline: the preview says why it shows no points (a tester read "once
    # every question is answered" with every question answered).
    phone.evaluate("document.querySelector('form[data-preview]').dispatchEvent(new Event('change'))")
    expect(phone.locator("[data-preview-box]")).to_contain_text("No connection just now")
    phone.click("button:has-text('Send the result')")
    expect(phone.locator("[data-queue-note]")).to_be_visible()
    return organiser, code, name, phone


def test_entry_made_offline_arrives_once_when_back_online(server, browser, phone_page):
    organiser, code, name, phone = sent_offline(server, browser, phone_page)
    assert "/enter" in phone.url  # still on the form, answers kept

    phone.context.set_offline(False)
    phone.evaluate("window.dispatchEvent(new Event('online'))")
    expect(phone.locator("main")).to_contain_text("waiting for confirmation", timeout=30_000)
    # Reloading the form and the queue flush must not send it a second time: answered, it is
    # no longer kept, so nothing is left to send.
    assert _queued(phone) is None
    organiser.reload()
    expect(organiser.locator("#table-1 .badge")).to_have_text("Entered, awaiting confirmation")
    phone.goto(f"{server}/{code}/me")
    expect(phone.locator("main")).to_contain_text("Entered by " + name)


def test_an_entry_kept_offline_is_sent_from_the_phones_own_page_too(server, browser, phone_page):
    """Sent with no connection, then the player went to their own page; back
    online, the entry stayed on the phone, unsent, until the entry page was opened again. The
    phone's page sends it as the entry page would, once."""
    organiser, code, name, phone = sent_offline(server, browser, phone_page)
    phone.goto("about:blank")  # (offline, the phone's page cannot load: it is opened once back)
    phone.context.set_offline(False)
    # The page sends the entry, then opens the page its answer names: waited for, as a test's
    # own navigation meanwhile would be cut short by it.
    posted = []
    phone.on("request", lambda request: posted.append(request.url) if request.method == "POST" else None)
    with phone.expect_event("framenavigated", predicate=lambda frame: bool(posted) and frame == phone.main_frame,
                            timeout=30_000):
        phone.goto(f"{server}/{code}/me")
    phone.wait_for_load_state()
    expect(phone.locator("main")).to_contain_text("Entered by " + name)
    assert len(posted) == 1 and posted[0].endswith("/enter")
    assert _queued(phone) is None
    organiser.reload()
    expect(organiser.locator("#table-1 .badge")).to_have_text("Entered, awaiting confirmation")


def test_an_entry_the_server_was_too_busy_to_take_stays_queued_and_arrives_once(server, browser, phone_page):
    """Found by review: a 429 (too many requests at once from one address, config/http_handler.py)
    is plain text; the page read it as an answer, dropped the queued entry and said "The server
    could not read the form". It is no answer: the entry stays queued and goes again."""
    organiser, code, phone = sent_while_too_busy(server, browser, phone_page)
    assert "could not read the form" not in phone.inner_text("main")
    assert _queued(phone) is not None and "/enter" in phone.url
    phone.unroute("**/enter")
    phone.evaluate("window.dispatchEvent(new Event('online'))")
    expect(phone.locator("main")).to_contain_text("waiting for confirmation", timeout=30_000)
    assert _queued(phone) is None
    organiser.reload()
    expect(organiser.locator("#table-1 .badge")).to_have_text("Entered, awaiting confirmation")


def sent_while_too_busy(server, browser, phone_page):
    """A drive under way; Table 1's first player sends the entry form while the server is too
    busy to take it (``too_busy_to_take_it`` stays on the phone's route): the entry is queued."""
    organiser = browser.new_page(viewport={"width": 1280, "height": 900})
    code = organiser_sets_up(organiser, server)
    phone = entry_form_answered(phone_page(), server, code, table_players(organiser, 1)[0])
    phone.route("**/enter", too_busy_to_take_it)
    phone.click("button:has-text('Send the result')")
    expect(phone.locator("[data-queue-note]")).to_be_visible()
    return organiser, code, phone


def too_busy_to_take_it(route):
    """A route handler: a POST answered as the server does when too many requests from one
    address are in at once (429, plain text); the rest go through."""
    if route.request.method == "POST":
        route.fulfill(status=429, content_type="text/plain; charset=utf-8",
                      body="Too many requests at once from this address: wait a moment, then try again.\n")
    else:
        route.continue_()


def _queued(phone):
    return phone.evaluate("localStorage.getItem('ff-entry-queue')")


def test_an_entry_queued_offline_across_a_close_is_dropped_not_recorded_against_the_next_hand(
        server, browser, phone_page):
    organiser, code, name, phone = sent_offline(server, browser, phone_page)
    assert '"hand":"1"' in _queued(phone) and '"table":"1"' in _queued(phone)
    kept = json.loads(_queued(phone))  # the body is the whole form: it names the player it was shown to
    assert f"player={kept['for'].split(':')[1]}" in kept["body"].split("&")

    # Meanwhile the organiser rings the bell on hand 1 and starts hand 2.
    organiser.once("dialog", lambda dialog: dialog.accept())
    organiser.click("button:has-text('Close anyway')")
    expect(organiser.locator("main")).to_contain_text("seating for hand 2 is shown")
    organiser.click("button:has-text('Start hand 2')")
    expect(organiser.locator("#progress")).to_have_text("0 of 2 tables done")

    phone.context.set_offline(False)
    phone.evaluate("window.dispatchEvent(new Event('online'))")
    error = phone.locator("[data-entry-error]")
    # Kept for the organiser, not counted (it was lost to the organiser).
    expect(error).to_contain_text("This was for hand 1, which the organiser closed before it arrived (hand 2 has "
                                  "started), so it does not count yet: the organiser has your answers", timeout=30_000)
    expect(error).not_to_contain_text("Your entry was not sent")
    # Answered: "Not sent yet (no connection…)" is no longer said beside the answer.
    expect(phone.locator("[data-queue-note]")).to_be_hidden()
    assert _queued(phone) is None  # dropped: never sent again
    # The organiser's dashboard names it, live; nothing counts for hand 2.
    late = organiser.locator("[data-late-entries]")
    expect(late).to_contain_text(f"hand 1, Table 1, a result from {name}’s phone")
    expect(organiser.locator("#progress")).to_have_text("0 of 2 tables done")
    expect(organiser.locator(".table-card .badge", has_text="Entered")).to_have_count(0)
    # Its link: the phone's answers beside those recorded (not played), saved as a correction.
    late.get_by_role("link", name="hand 1, Table 1").click()
    expect(organiser.locator("[data-late-entry]")).to_contain_text("they do not count yet")
    expect(organiser.locator("[data-preview-box]")).to_contain_text(f"{name}: 0 → 15 points")
    organiser.click("button:has-text('Save the correction')")
    expect(organiser.locator("main")).to_contain_text("Table 1, hand 1: result saved.")
    expect(organiser.locator("[data-late-entries]")).to_have_count(0)
    phone.goto(f"{server}/{code}/me")
    expect(phone.locator("main")).to_contain_text("Enter the result")  # hand 2: nothing entered for this table


def test_an_entry_another_player_left_queued_on_the_phone_is_not_sent_as_the_new_players(
        server, browser, phone_page):
    organiser = browser.new_page(viewport={"width": 1280, "height": 900})
    code = organiser_sets_up(organiser, server)
    first, second = table_players(organiser, 1)[:2]  # two players of the same table, same hand
    phone = entry_form_answered(phone_page(), server, code, first)
    # The send is lost (the entry stays queued), then the first player hands the phone over.
    phone.route("**/enter", lambda route: route.abort() if route.request.method == "POST" else route.continue_())
    phone.click("button:has-text('Send the result')")
    expect(phone.locator("[data-queue-note]")).to_be_visible()
    assert _queued(phone) is not None
    phone.goto(f"{server}/{code}/me")  # its page tries it too (static/js/entry.js): lost again
    expect(phone.locator("[data-queue-note]")).to_be_visible()
    phone.once("dialog", lambda dialog: dialog.accept())  # "Leave this phone?"
    phone.get_by_role("button", name=re.compile("Leave this phone")).click()
    phone.get_by_role("button", name=second, exact=True).click()
    # The second player's page finds the first player's entry: dropped, unsent, and said.
    expect(phone.locator("[data-entry-error]")).to_have_text("An entry another player left on this phone was not sent.")
    assert _queued(phone) is None  # dropped: never sent
    phone.unroute("**/enter")
    organiser.reload()
    expect(organiser.locator("#table-1 .badge")).to_have_text("Playing")


def test_an_entry_form_left_open_when_the_phone_changed_hands_is_refused_by_the_server(server, browser, phone_page):
    """The browser drops an entry another player left queued; the server refuses one all the
    same. Here a tab keeps the first player's entry form open while another tab of the phone
    leaves it and the second player (same table, same hand) joins: its send carries the second
    player's cookie and the first player's form, and is refused; entry.js shows why as the server
    says it (the hand has not moved on) and keeps nothing."""
    organiser = browser.new_page(viewport={"width": 1280, "height": 900})
    code = organiser_sets_up(organiser, server)
    first, second = table_players(organiser, 1)[:2]
    phone = entry_form_answered(phone_page(), server, code, first)
    other_tab = phone.context.new_page()
    other_tab.goto(f"{server}/{code}/me")
    asked = []
    other_tab.once("dialog", lambda dialog: (asked.append(dialog.message), dialog.accept()))
    other_tab.get_by_role("button", name=re.compile("Leave this phone")).click()
    other_tab.get_by_role("button", name=second, exact=True).click()
    expect(other_tab.locator("main")).to_contain_text("Enter the result")
    assert asked and asked[0].startswith("Leave this phone? It will no longer be")
    # The first player's form hears that this phone no longer holds them (its socket is closed
    # as signed out): out of date, Send disabled. Sent all the same (a script), it is refused.
    expect(phone.locator("[data-entry-stale]")).to_be_visible(timeout=30_000)
    expect(phone.get_by_role("button", name="Send the result")).to_be_disabled()
    phone.evaluate("document.querySelector('[data-entry-form]').requestSubmit()")
    expect(phone.locator("[data-entry-error]")).to_have_text(
        "This was sent from a page shown to another player on this phone. Nothing was saved. Look at your table now.")
    assert _queued(phone) is None
    organiser.reload()
    expect(organiser.locator("#table-1 .badge")).to_have_text("Playing")


def test_answers_not_yet_sent_survive_a_reload_of_the_form(server, browser, phone_page):
    """QA: a phone's browser reloads a tab it put to sleep, and every answer was back at none.
    They are kept on the phone until the entry is answered."""
    organiser = browser.new_page(viewport={"width": 1280, "height": 900})
    code = organiser_sets_up(organiser, server)
    name = table_players(organiser, 1)[0]
    phone = entry_form_answered(phone_page(), server, code, name)
    phone.reload()
    for field in ("declarer", "dealer"):
        expect(phone.locator(f"fieldset[data-field={field}] label", has_text=re.compile(f"^{name}$"))
               .locator("input")).to_be_checked()
    expect(phone.locator("[data-preview-box]")).to_contain_text(f"{name}: 15 points")
    phone.click("button:has-text('Send the result')")
    expect(phone.locator("main")).to_contain_text("waiting for confirmation", timeout=30_000)
    assert phone.evaluate("localStorage.getItem('ff-entry-draft')") is None  # answered: no draft left


def test_an_entry_form_left_open_says_it_is_out_of_date_once_the_table_moves_on(server, browser, phone_page):
    """QA: a phone left on "Enter the result" while the organiser saved that table's result, then
    closed the hand and started the next, still offered Send for the old hand; only a send was
    told. The form follows the phone's live socket and says so as it happens."""
    from tests.browser.test_drive_flow import HEAR_FRAMES, organiser_enters

    organiser = browser.new_page(viewport={"width": 1280, "height": 900})
    code = organiser_sets_up(organiser, server)
    name = table_players(organiser, 1)[0]
    phone = phone_page()
    phone.add_init_script(HEAR_FRAMES)
    entry_form_answered(phone, server, code, name)
    stale, send = phone.locator("[data-entry-stale]"), phone.get_by_role("button", name="Send the result")
    # The socket's first update (the table as it stands, read as it joined) has been handled:
    # it matches what the page was shown with, and the form stays.
    phone.wait_for_function("window.heardFrames.some((f) => f.type === 'update')", timeout=30_000)
    expect(stale).to_be_hidden()
    expect(send).to_be_enabled()
    # This table's result saved by the organiser: the form is out of date.
    organiser_enters(organiser, organiser.url, 1, name)
    expect(stale).to_be_visible(timeout=30_000)
    expect(stale).to_contain_text("this form is out of date")
    expect(send).to_be_disabled()
    # Its link goes on a line of its own, a thumb's size, the sentence whole above it (
    # the link's padding tore "date." away from the rest of the sentence).
    link = stale.get_by_role("link", name="See your page")
    box, text_left = link.bounding_box(), stale.evaluate(
        "p => p.getBoundingClientRect().left + parseFloat(getComputedStyle(p).paddingLeft)")
    assert abs(box["x"] - text_left) < 2 and box["height"] >= 44, (box, text_left)


def test_a_phone_signed_out_while_it_was_offline_goes_to_joining_once_back(server, browser, phone_page):
    """The page of a phone signed out while it was offline retried its refused live
    socket for good, then showed the join page's list inside the old page. Back online, its live
    socket is told it is signed out, and the page goes to joining."""
    organiser = browser.new_page(viewport={"width": 1280, "height": 900})
    code = organiser_sets_up(organiser, server)
    drive_url = organiser.url.rstrip("/")
    name = table_players(organiser, 1)[0]
    phone = phone_page()
    # The page's sockets, kept where the test can drop them (going offline leaves an open one be).
    phone.add_init_script("""(function () {
      var Native = window.WebSocket; window.__sockets = []; window.__closed = 0;
      window.WebSocket = function (url, protocols) {
        var s = new Native(url, protocols); window.__sockets.push(s);
        s.addEventListener("close", function () { window.__closed += 1; });
        return s;
      };
      window.WebSocket.prototype = Native.prototype;
    })();""")
    phone.goto(f"{server}/{code}")
    phone.get_by_role("button", name=name, exact=True).click()
    expect(phone.locator("[data-live-status]")).to_have_text("Live")
    phone.context.set_offline(True)
    phone.evaluate("window.__sockets.forEach(function (s) { s.close(); })")
    # The page saw its socket close (its "reconnecting" may last only until the next try, which
    # a busy machine's polling of the text missed). Closed while offline, the socket's close
    # handshake cannot complete: the browser gives up on it in its own time, over 15 s on a busy CI.
    phone.wait_for_function("window.__closed > 0", timeout=90_000)
    organiser.goto(f"{drive_url}/phones")
    organiser.once("dialog", lambda dialog: dialog.accept())  # "Sign …'s phone out?"
    organiser.locator("tr", has_text=name).get_by_role("button", name="Sign phone out").click()
    expect(organiser.locator("main")).not_to_contain_text(f"{name}Sign phone out")
    phone.context.set_offline(False)
    expect(phone).to_have_url(re.compile(f"/{code}$"), timeout=30000)
    expect(phone.locator("main > ul.messages")).to_have_text(NOT_JOINED)  # told why
    # (Signed out by the organiser, the name now joins only by the player's new private link.)
    expect(phone.get_by_role("button", name=f"{name} (private link only)", exact=True)).to_be_visible()
    expect(phone.locator("[data-live-status]")).to_have_count(0)


def test_a_confirmation_tapped_offline_is_kept_and_arrives_once_when_back_online(server, browser, phone_page):
    """Found by probing: Confirm tapped with no connection (the Wi-Fi dropped, the laptop
    restarting) left the page for the browser's "no internet" page, and the tap was lost. It is
    kept on the phone and sent when the connection returns."""
    organiser = browser.new_page(viewport={"width": 1280, "height": 900})
    code = organiser_sets_up(organiser, server)
    first, second = table_players(organiser, 1)[:2]
    entrant = entry_form_answered(phone_page(), server, code, first)
    entrant.click("button:has-text('Send the result')")
    expect(entrant.locator("main")).to_contain_text("waiting for confirmation", timeout=30_000)

    phone = phone_page()
    phone.goto(f"{server}/{code}")
    phone.get_by_role("button", name=second, exact=True).click()
    confirm = phone.get_by_role("button", name="Confirm: this is right")
    expect(confirm).to_be_visible()
    # The page's deferred scripts have run (static/js/keep_send.js holds the tap): shown is not
    # yet ready on a busy machine, and a tap before them left for the browser's "no internet".
    phone.wait_for_load_state("domcontentloaded")
    phone.context.set_offline(True)
    confirm.click()
    expect(phone.locator("[data-keep-note]")).to_be_visible()
    assert phone.url.endswith(f"/{code}/me")  # still the page, not the browser's "no internet"
    assert phone.evaluate("localStorage.getItem('ff-judge-queue')") is not None

    phone.context.set_offline(False)
    phone.evaluate("window.dispatchEvent(new Event('online'))")
    expect(phone.locator("main")).to_contain_text("Confirmed. Thank you!", timeout=30_000)
    expect(phone.locator("main")).to_contain_text("✓ confirmed")
    assert phone.evaluate("localStorage.getItem('ff-judge-queue')") is None  # sent once: nothing kept
    phone.reload()
    expect(phone.locator("main")).not_to_contain_text("Confirmed. Thank you!")  # no second send
    organiser.reload()
    expect(organiser.locator("#table-1 .badge")).to_have_text(re.compile("Confirmed"))
