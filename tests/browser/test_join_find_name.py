"""A hall's join page on a small phone, in Chromium against daphne: "Find your name" shows the
names holding what is typed (48 names made a single column 3,000 px long at 320 px,
and a hall has hundreds)."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

pytestmark = [pytest.mark.browser, pytest.mark.sqlite]

NAMES = ["Élodie Martin", "Ann Lee", "Joanna Banks", "Bob Hanna", "Dée O'Brien", "Seán O’Neill", "Łukasz Nowak",
         *(f"Player {n:02d}" for n in range(1, 34))]


@pytest.fixture(scope="module")
def server(module_server):
    return module_server


@pytest.mark.timeout(600)  # a backstop: a server started on a busy machine
def test_a_few_letters_find_a_name_among_forty(server, browser):
    code = server.shell_json(
        "from django.contrib.auth import get_user_model\nfrom drive import services\nfrom drive.models import Drive\n"
        "user = get_user_model().objects.create_user(username='olive-find', password='organiser-pass-123')\n"
        "drive = Drive.objects.create(organiser=user, name='Hall', game='film-fantasy')\n"
        f"services.add_players(drive, {NAMES!r})\nprint(json.dumps(drive.join_code))")
    context = browser.new_context(viewport={"width": 320, "height": 568}, is_mobile=True, has_touch=True)
    page = context.new_page()
    page.goto(f"{server.url}/{code}")
    names = page.locator("form#names button[name=player]")
    expect(names).to_have_count(len(NAMES))
    find = page.get_by_label("Find your name")
    find.fill("ann")  # any part of the name, any case
    expect(names.filter(visible=True)).to_have_count(3)
    expect(page.locator("#find-name-count")).to_have_text("3 names.")
    assert sorted(names.filter(visible=True).all_inner_texts()) == ["Ann Lee", "Bob Hanna", "Joanna Banks"]
    find.fill("elodie")  # accents or not
    expect(names.filter(visible=True)).to_have_count(1)
    expect(page.locator("#find-name-count")).to_have_text("1 name.")
    for typed, name in (("o’b", "Dée O'Brien"), ("o'n", "Seán O’Neill"), ("lukasz", "Łukasz Nowak")):
        find.fill(typed)  # either apostrophe finds both; a letter typed plain
        expect(names.filter(visible=True)).to_have_text([name])
    find.fill("zz")
    expect(names.filter(visible=True)).to_have_count(0)
    expect(page.locator("#find-name-count")).to_contain_text("No name holds “zz”")
    find.fill("")
    expect(names.filter(visible=True)).to_have_count(len(NAMES))
    find.fill("élo")
    names.filter(visible=True).first.click()
    expect(page).to_have_url(f"{server.url}/{code}/me")
    expect(page.locator("main")).to_contain_text("Élodie Martin")
    context.close()
