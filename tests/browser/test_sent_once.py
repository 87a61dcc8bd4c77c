"""A double click or a double tap sends a form once (static/js/send_once.js), in Chromium against
daphne. Found by probing: the browser shows only the second answer, so "Add a bot" twice seated
two bots, "Create the drive" twice made two drives, and a name tapped twice on the join page
answered "already joined on another phone" though the first tap had joined it."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.tables.screens_support import sign_in_organiser

pytestmark = [pytest.mark.browser, pytest.mark.sqlite]


@pytest.fixture(scope="module")
def server(module_server):
    return module_server


def _double_click(page, selector: str, text: str, *, first_kept_back: bool = False) -> None:
    """A double click on the first button matching ``selector`` whose text holds ``text``: two
    clicks before the page has gone. Both fire a submit; the page must let one through (one no
    script kept back): the browser would send the other as well had the first's request left,
    and a double click's second comes about 0.1 s later, when it has. The button is found in
    the same task as the clicks (a live page may swap its parts between two calls).
    ``first_kept_back``: a script listening after the page's own keeps the first click's submit
    back (a confirm() refused): it was never sent, so the second goes."""
    let_through = page.evaluate("""([selector, text, keepFirst]) => {
        const button = [...document.querySelectorAll(selector)].find(b => b.textContent.includes(text));
        let sent = 0, first = keepFirst;
        const count = event => {  // after the page's own listeners: it hears what they let pass
            if (first) { first = false; event.preventDefault(); }
            if (!event.defaultPrevented) sent += 1;
        };
        window.addEventListener("submit", count);
        button.click();
        button.click();
        window.removeEventListener("submit", count);
        return sent;
    }""", [selector, text, first_kept_back])
    assert let_through == 1


def _organiser(server, tag: str) -> None:
    server.shell_json(
        "from django.contrib.auth import get_user_model\n"
        f"get_user_model().objects.create_user(username='olive-{tag}', password='organiser-pass-123')\n"
        "print(json.dumps(1))")


@pytest.mark.timeout(600)  # a backstop: a server started on a busy machine
def test_a_double_click_creates_one_drive_and_seats_one_bot(server, browser):
    _organiser(server, "twice")
    context = browser.new_context(viewport={"width": 1366, "height": 768})
    page = context.new_page()
    sign_in_organiser(page, server, "twice")
    page.goto(f"{server.url}/drives/new")
    page.get_by_label("Name").fill("Twice")
    _double_click(page, "button", "Create the drive")
    expect(page.locator(".messages")).to_contain_text("Drive “Twice” created")
    assert server.shell_json("from drive.models import Drive\n"
                             "print(json.dumps(Drive.objects.filter(name='Twice').count()))") == 1

    drive_id = server.shell_json(
        "from drive import services\nfrom drive.models import Drive\n"
        "drive = Drive.objects.get(name='Twice')\n"
        "services.add_players(drive, ['Ann', 'Ben', 'Cat', 'Dan', 'Eve', 'Fay'])\n"
        "services.draw_seating(drive)\nservices.set_table_mode(drive, 1, 'digital')\n"
        "print(json.dumps(drive.pk))")
    page.goto(f"{server.url}/drives/{drive_id}/")
    _double_click(page, "button", "Add a bot to this table")
    expect(page.locator(".messages")).to_be_visible()
    expect(page.locator(".messages .msg-error")).to_have_count(0)
    assert server.shell_json(
        "from drive.models import Drive\n"
        f"print(json.dumps(Drive.objects.get(pk={drive_id}).players.filter(bot__isnull=False).count()))") == 1
    context.close()


@pytest.mark.timeout(600)
def test_a_name_tapped_twice_joins_the_phone_once(server, browser):
    code = server.shell_json(
        "from django.contrib.auth import get_user_model\nfrom drive import services\nfrom drive.models import Drive\n"
        "user = get_user_model().objects.create_user(username='olive-tap', password='organiser-pass-123')\n"
        "drive = Drive.objects.create(organiser=user, name='Tap', game='film-fantasy')\n"
        "services.add_players(drive, ['Ann', 'Ben', 'Cat'])\nprint(json.dumps(drive.join_code))")
    context = browser.new_context(viewport={"width": 360, "height": 640}, is_mobile=True, has_touch=True)
    page = context.new_page()
    page.goto(f"{server.url}/{code}")
    _double_click(page, "form#names button[name=player]", "Ben", first_kept_back=True)
    expect(page).to_have_url(f"{server.url}/{code}/me")
    expect(page.locator("main")).to_contain_text("Ben")
    expect(page.locator(".msg-error")).to_have_count(0)
    context.close()
