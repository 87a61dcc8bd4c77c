"""A phone that loses its player, in Chromium against daphne: each page lands on the join page
with the reason, once. The page reloads itself when its socket is closed as signed out (close
code 4401): what the page then says is the server's. A phone that leaves by itself ("Leave
this phone") is told what leaving did, its own form's answer not reloaded over."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from drive.access import NOT_JOINED
from tests.browser_support import COUNT_FRAMES
from tests.tables import screens_support as S

pytestmark = [pytest.mark.browser, pytest.mark.sqlite]

@pytest.fixture(scope="module")
def server(module_server):
    """The game screens' live server (tests/conftest.py), whose setups (screens_support) it runs,
    in place of this folder's bare address (tests/browser/conftest.py)."""
    return module_server


def signed_out_by_the_organiser(browser, server, tag: str, drive_id: int, name: str, phone, code: str) -> None:
    """The organiser of the drive ``tag`` signs ``name``'s phone out on the drive's phones page;
    ``phone`` lands on the join page, told why."""
    organiser = S.organiser_page(browser, server, tag)
    organiser.goto(f"{server.url}/drives/{drive_id}/phones")
    organiser.once("dialog", lambda dialog: dialog.accept())  # "Sign …'s phone out?"
    organiser.locator("tr", has_text=name).get_by_role("button", name="Sign phone out").click()
    expect(phone).to_have_url(re.compile(f"/{code}$"))
    expect(phone.locator("main > ul.messages")).to_have_text(NOT_JOINED)
    organiser.close()


@pytest.mark.timeout(600)  # a backstop: a server started on a busy machine
def test_a_game_screen_signed_out_by_the_organiser_lands_on_the_join_page_told_why(server, browser):
    """The organiser signed Al's phone out while it was mid-hand on the game screen;
    the page went to the join list with no word of why, only "Al (private link only)"."""
    data = server.shell_json(S.ff_dealt("signed-out"))
    code, (name, token) = data["code"], data["seats"][0]
    phone = S.open_phone(browser, server, code, token)
    expect(phone.locator("#hand button.c").first).to_be_visible()  # its socket open: the hand came by it
    signed_out_by_the_organiser(browser, server, "signed-out", S.drive_id(server, code), name, phone, code)
    expect(phone.get_by_role("button", name=f"{name} (private link only)", exact=True)).to_be_visible()
    phone.reload()
    expect(phone.get_by_role("button", name=f"{name} (private link only)", exact=True)).to_be_visible()
    expect(phone.locator("main > ul.messages")).to_have_count(0)  # said once
    phone.context.close()


# A drive on paper: hand 1 started, every player joined on a phone; the seats of Table 1.
PAPER_DRIVE = """
from django.contrib.auth import get_user_model
from django.utils import timezone
from drive import services
from drive.models import Drive
import random
user = get_user_model().objects.create_user(username="olive-%(tag)s", password="organiser-pass-123")
drive = Drive.objects.create(organiser=user, name="Paper %(tag)s", game="film-fantasy", seed=5, allow_self_join=True)
services.add_players(drive, ["Ann", "Bob", "Cy", "Di"])
services.draw_seating(drive, random.Random(1))
drive.players.update(phone_joined_at=timezone.now())
services.start_hand(drive)
table = drive.hands.get().tables.get()
seats = [s.player for s in table.seats.select_related("player").order_by("position")]
print(json.dumps({"code": drive.join_code, "id": drive.pk, "seats": [[p.name, p.token] for p in seats]}))
"""


def phone_of(browser, server, code: str, token: str | None):
    """A phone-sized page counting its sockets' frames; ``token``: the player it holds, if any."""
    context = browser.new_context(viewport=S.SMALL_PHONE, is_mobile=True, has_touch=True)
    if token is not None:
        context.add_cookies([{"name": f"ff_{code}", "value": token, "url": server.url}])
    page = context.new_page()
    page.add_init_script(COUNT_FRAMES)
    return page


@pytest.mark.timeout(600)  # a backstop: a server started on a busy machine
def test_an_entry_form_signed_out_by_the_organiser_lands_on_the_join_page_told_why(server, browser):
    """The entry form's socket closed as signed out by the organiser: the form said only that it
    was out of date. It goes to joining, told why (a phone that left by itself in another tab
    keeps the form, out of date: tests/browser/test_offline_entry.py)."""
    data = server.shell_json(PAPER_DRIVE % {"tag": "entry"})
    code, (name, token) = data["code"], data["seats"][0]
    phone = phone_of(browser, server, code, token)
    phone.goto(f"{server.url}/{code}/enter")
    phone.wait_for_function("window.framesIn > 0")  # its socket open: the page's state came by it
    signed_out_by_the_organiser(browser, server, "entry", data["id"], name, phone, code)
    phone.context.close()


@pytest.mark.timeout(600)  # a backstop: a server started on a busy machine
def test_leaving_the_phone_says_the_name_left_the_drive(server, browser):
    """A player who added their own name and had not played tapped "Leave this
    phone" and confirmed; the page's own socket, closed as signed out, reloaded the page over
    the form's answer, and the join page said only "Pick your name to join." The live page
    leaves its own form's answer be: the join page says what leaving did."""
    data = server.shell_json(PAPER_DRIVE % {"tag": "leave"})
    phone = phone_of(browser, server, data["code"], None)
    phone.goto(f"{server.url}/{data['code']}")
    phone.fill("input[name=new_name]", "Zed Newcomer")
    phone.get_by_role("button", name="Join", exact=True).click()
    expect(phone).to_have_url(re.compile(f"/{data['code']}/me$"))
    phone.wait_for_function("window.framesIn > 0")  # its socket open: the page's part came by it
    asked = []
    phone.once("dialog", lambda dialog: (asked.append(dialog.message), dialog.accept()))
    phone.get_by_role("button", name=re.compile("Leave this phone")).click()
    expect(phone).to_have_url(re.compile(f"/{data['code']}$"))
    expect(phone.locator("main > ul.messages")).to_have_text(
        "Zed Newcomer has left this phone and the drive (no hand was played under that name).")
    assert asked and "the name you typed leaves the drive" in asked[0]
    expect(phone.get_by_role("button", name="Zed Newcomer")).to_have_count(0)
    phone.context.close()
