"""What a phone's finished hand says follows it, in Chromium against daphne: who moves up and
who moves down, or, when the hand ends the drive, that nobody moves and the final standings come
next (the frame's ``moves``, ``movement`` and ``ending``, said by the shared client)."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from games import all_games
from tests.tables import screens_support as S

pytestmark = [pytest.mark.browser, pytest.mark.sqlite]


@pytest.mark.timeout(600)  # a backstop: a server started on a busy machine
@pytest.mark.parametrize("slug", [g.slug for g in all_games()])
def test_the_drive_s_last_hand_names_no_move_and_says_the_final_standings_come_next(server, browser, slug):
    """Table 1 of two, in a drive of one hand: its finished hand names no move that will not
    happen, and says the final standings come next, as the phone's page does."""
    script = S.finished(f"{slug}-last", slug)
    names = ["Ann", "Bob", "Cy", "Di"] if slug != "alice" else ["Ann", "Bob", "Cy"]
    script = script.replace(repr(names), repr([*names, *(n + "2" for n in names)]))
    script = script.replace("drive.hands.get().tables.get()", "drive.hands.get().tables.get(number=1)")
    script = script.replace("services.draw_seating(", "Drive.objects.filter(pk=drive.pk).update(target='hands', target_hands=1)\n"
                                                      "drive.refresh_from_db()\nservices.draw_seating(")
    data = server.shell_json(script)
    page = S.open_phone(browser, server, data["code"], data["seats"][0][1])
    expect(page.locator("#result")).to_contain_text("This is the drive's last hand: nobody moves after it, "
                                                    "and the final standings come next.")
    expect(page.locator("#result")).not_to_contain_text("moves up")
    expect(page.locator("#result")).not_to_contain_text("moves down")
    page.context.close()
