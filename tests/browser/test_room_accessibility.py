"""The room's pages for every game, checked with axe-core (tests/axe.py): the join page, a
phone, the result entry, the board, the dashboard and the standings have no serious or
critical violation (names of controls, labels, contrast, text alternatives), and a phone's
controls are a thumb's size; the dashboard's
repeated buttons say whom they are for; the QR codes' images are named for what they join. And a dashboard's flash message goes when the live part
moves on past it."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from games import all_games
from tests.axe import describe, serious_violations, violations
from tests.browser_support import COUNT_FRAMES, ORGANISER_TEST_PASSWORD as PASSWORD, sign_in

pytestmark = [pytest.mark.browser, pytest.mark.sqlite]
GAMES = [g.slug for g in all_games()]


@pytest.fixture(scope="module")
def room(module_server):
    """The module's server (tests/conftest.py), with an organiser for each test's drives:
    ``olive`` (a drive of each game) and ``oscar`` (one whose dashboard moves on)."""
    module_server.shell_json("from django.contrib.auth import get_user_model\n"
                             "for name in ('olive', 'oscar'):\n"
                             f"    get_user_model().objects.create_user(username=name, password={PASSWORD!r})\n"
                             "print('{}')")
    return module_server


def assert_accessible(page, where: str) -> None:
    found = serious_violations(page)
    assert not found, f"{where}:\n{describe(found)}"


# Every control shown on a phone's page, with its height when under 44 px (a thumb's target).
SMALL_TARGETS = """() => [...document.querySelectorAll("main a, main button, main summary")]
    .filter(e => e.offsetParent !== null && e.getBoundingClientRect().height < 44)
    .map(e => [e.tagName, e.innerText.trim().slice(0, 40), Math.round(e.getBoundingClientRect().height)])"""


def assert_thumb_sized(page, where: str) -> None:
    """QA: "Not Ann? Leave this phone", "How to play", "Back" were 19-20 px tall on a phone."""
    small = page.evaluate(SMALL_TARGETS)
    assert not small, f"{where}: controls under 44 px tall: {small}"


@pytest.mark.timeout(900)  # a backstop: a server started and drives played on a busy machine
def test_the_rooms_pages_have_no_serious_accessibility_violation_in_any_game(room, browser):
    server = room
    # A drive of each game (``manage.py demo_drive``); per drive: its code, its id, a player at
    # a table still playing with cards, and its name.
    drives = server.shell_json(
        "from django.core.management import call_command\n"
        "from drive.models import Drive\nfrom drive import selectors\nout = {}\n"
        f"for game in {GAMES!r}:\n"
        "    call_command('demo_drive', game=game, players=12, hands=1, seed=3, organiser='olive')\n"
        "for d in Drive.objects.filter(organiser__username='olive').order_by('pk'):\n"
        "    table = next(t for t in selectors.tables_of(selectors.current_hand(d)) if t.status == 'playing')\n"
        "    out[d.game] = [d.join_code, d.pk, table.seats.first().player.token, d.name]\n"
        "print(json.dumps(out))")
    organiser = browser.new_context(viewport={"width": 1280, "height": 800})
    desk = organiser.new_page()
    sign_in(desk, server.url, "olive")
    for game, (code, pk, token, name) in drives.items():
        qr_name = f"QR code to join {name}"  # (an attribute: the name as it is)
        stranger = browser.new_context(viewport={"width": 360, "height": 740}, is_mobile=True)
        page = stranger.new_page()
        page.goto(f"{server.url}/{code}")
        expect(page.get_by_role("button").first).to_be_visible()
        assert_accessible(page, f"{game}: join")
        stranger.close()

        phone = browser.new_context(viewport={"width": 360, "height": 740}, is_mobile=True)
        phone.add_cookies([{"name": f"ff_{code}", "value": token, "url": server.url}])
        page = phone.new_page()
        page.goto(f"{server.url}/{code}/me")
        expect(page.locator("[data-neighbours]")).to_be_visible()
        assert_accessible(page, f"{game}: phone")
        assert_thumb_sized(page, f"{game}: phone")
        page.get_by_role("link", name="Enter the result").click()
        expect(page.locator("form[data-entry-form]")).to_be_visible()
        assert_accessible(page, f"{game}: entry")
        assert_thumb_sized(page, f"{game}: entry")
        phone.close()

        board = browser.new_page(viewport={"width": 1920, "height": 1080})
        board.goto(f"{server.url}/{code}/board")
        expect(board.locator(".board .chart")).to_be_visible()
        expect(board.get_by_role("img", name=qr_name, exact=True)).to_have_count(1)
        expect(board.locator(".qr svg")).to_have_attribute("role", "img")
        assert_accessible(board, f"{game}: board")
        board.close()

        desk.goto(f"{server.url}/drives/{pk}/")
        expect(desk.get_by_role("heading", name="Standings")).to_be_visible()
        first = desk.locator("form ul.small li bdi").first.inner_text()
        expect(desk.get_by_role("button", name=f"Take {first} out", exact=True)).to_be_visible()
        expect(desk.get_by_role("textbox", name="Names")).to_be_visible()
        desk.get_by_text("Players join with their phones").click()  # the QR code's box, closed once seated
        expect(desk.get_by_role("img", name=qr_name, exact=True)).to_be_visible()
        assert_accessible(desk, f"{game}: dashboard")
        desk.goto(f"{server.url}/drives/{pk}/standings")
        expect(desk.locator("table[data-standings]")).to_be_visible()
        assert_accessible(desk, f"{game}: standings")
    # QA found minor ones too on the organiser's other pages (an empty column heading, a
    # heading level skipped, a page with no h1): none at all there now.
    pk = drives[GAMES[0]][1]
    for path in ("phones", "hands/1", "print/scorecards"):
        desk.goto(f"{server.url}/drives/{pk}/{path}")
        expect(desk.locator("h1")).to_have_count(1)
        found = violations(desk, impacts=("minor", "moderate", "serious", "critical"))
        assert not found, f"{path}:\n{describe(found)}"
    # The keyboard's first stop skips the navigation (QA: every form sent put focus back at
    # the top, eight links before the page).
    desk.goto(f"{server.url}/drives/{pk}/")
    desk.keyboard.press("Tab")
    expect(desk.locator(":focus")).to_have_text("Skip to the page")
    expect(desk.locator(":focus")).to_be_visible()
    desk.keyboard.press("Enter")
    expect(desk.locator("main:focus")).to_have_count(1)
    organiser.close()


@pytest.mark.timeout(600)
def test_a_flash_message_goes_when_the_dashboards_live_part_moves_on(room, browser):
    server = room
    pk = server.shell_json("from django.core.management import call_command\nfrom drive.models import Drive\n"
                           "call_command('demo_drive', game='alice', players=8, hands=1, seed=3, organiser='oscar')\n"
                           "print(json.dumps(Drive.objects.get(organiser__username='oscar').pk))")
    organiser = browser.new_context(viewport={"width": 1280, "height": 800})
    organiser.add_init_script(script=COUNT_FRAMES)
    desk = organiser.new_page()
    sign_in(desk, server.url, "oscar")
    desk.goto(f"{server.url}/drives/{pk}/")
    desk.once("dialog", lambda dialog: dialog.accept())
    desk.get_by_role("button", name="Close anyway").click()
    expect(desk.locator("ul.messages")).to_contain_text("Hand closed.")
    desk.get_by_role("button", name=re.compile(r"^Start hand \d+$")).click()
    flash = desk.locator("main.page > ul.messages")
    expect(flash).to_have_text(re.compile(r"^Hand \d+ started\.$"))
    # The live part's first update shows what the page shows: the message stays.
    desk.wait_for_function("() => window.framesIn >= 1")
    expect(flash).to_have_text(re.compile(r"^Hand \d+ started\.$"))
    expect(desk.locator("#progress")).to_have_text(re.compile(r"^0 of \d+ tables? done$"))
    # Someone else moves the drive on (a late arrival waits for the next hand): it goes.
    other = organiser.new_page()
    other.goto(f"{server.url}/drives/{pk}/")
    other.get_by_role("textbox", name="Names").fill("Latecomer")
    other.get_by_role("button", name="Add players").click()
    expect(desk.locator("#hand")).to_contain_text("Waiting to be seated at the next hand: Latecomer")
    expect(flash).to_have_count(0)
    organiser.close()
