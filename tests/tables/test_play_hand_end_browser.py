"""The game screens in Chromium, against daphne, at a hand's end and what follows it, for every
game: the finished hand's box (axe-core finds no serious or critical problem on it; who moves up
and who down), a seat waiting for its hand, a screen reloaded after the close and the drive's end,
the organiser's watch page, and the message line once what it said no longer holds."""

from __future__ import annotations

import functools
import re

import pytest
from playwright.sync_api import expect

from games import all_games
from tests.axe import describe, serious_violations
from tests.tables import screens_support as S

pytestmark = [pytest.mark.browser, pytest.mark.sqlite]


@pytest.mark.timeout(600)  # a backstop: a server started on a busy machine
@pytest.mark.parametrize("slug", [g.slug for g in all_games()])
def test_a_finished_hand_passes_axe(server, browser, slug):
    data = server.shell_json(S.finished(f"{slug}-done", slug))
    page = S.open_phone(browser, server, data["code"], data["seats"][0][1])
    expect(page.locator("#result")).to_contain_text("The hand is over")
    expect(page.locator("#result li")).to_have_count(len(data["seats"]))
    problems = serious_violations(page)
    assert not problems, describe(problems)
    page.context.close()


@pytest.mark.timeout(600)  # a backstop: a server started on a busy machine
@pytest.mark.parametrize("slug", [g.slug for g in all_games()])
def test_a_seat_waiting_for_its_hand_shows_only_where_to_sit_until_it_starts(server, browser, slug):
    """Found in a browser: seated, the hand not started, a game screen showed its empty boxes and
    buttons beside "Hand 1 has not started yet" (Film Fantasy's Declare, Wonderland's empty "On
    the table", Alice's row's heading). Only the status line shows until the hand comes."""
    data = server.shell_json(S.seated(f"{slug}-waiting", slug))
    page = S.open_phone(browser, server, data["code"], data["seats"][0][1])
    expect(page.locator("#status")).to_have_text(re.compile(r"^Hand 1 has not started yet: sit at Table 1\."))
    shown = page.evaluate("""() => [...document.querySelectorAll('#screen *')].filter(e => e.getClientRects().length
      && e.closest('#status, #message') === null && !e.querySelector('#status, #message')).map(e => e.outerHTML.slice(0, 60))""")
    assert shown == [], shown
    server.shell_json(f"from drive.models import Drive\nfrom drive import services\n"
                      f"services.start_hand(Drive.objects.get(join_code={data['code']!r}))\nprint('{{}}')")
    expect(page.locator(S.HAND_CARDS).first).to_be_visible()
    page.context.close()


@pytest.mark.timeout(600)  # a backstop: a server started on a busy machine
def test_a_game_screen_reloaded_after_the_close_and_the_end_still_shows_the_hands_result(server, browser):
    """A game screen opened (reloaded) after the organiser closed the hand said only
    that the next hand had not started, and after the drive's end only that it had finished: the
    hand just played, and its result, were gone. The result stays, under where to go now."""
    data = server.shell_json(S.finished("reload-done", "wonderland"))
    close = ("from drive.models import Drive\nfrom drive import services\n"
             f"drive = Drive.objects.get(join_code={data['code']!r})\n%s\nprint('{{}}')")
    server.shell_json(close % "services.close_hand(drive, force=True)")  # (the set-up stored the hand, not its result)
    page = S.open_phone(browser, server, data["code"], data["seats"][0][1])
    expect(page.locator("#result")).to_contain_text("The hand is over")
    expect(page.locator("#result li")).to_have_count(len(data["seats"]))
    expect(page.locator("#instruction")).to_contain_text("Hand 2 has not started yet")
    server.shell_json(close % "services.end_drive(drive)")
    page.reload()
    expect(page.locator("#instruction")).to_contain_text("The drive has finished")
    expect(page.locator("#result")).to_contain_text("The hand is over")
    expect(page.locator("#result li")).to_have_count(len(data["seats"]))
    page.context.close()


@pytest.mark.timeout(600)  # a backstop: a server started on a busy machine
@pytest.mark.parametrize("slug", [g.slug for g in all_games()])
def test_a_finished_hand_at_a_table_of_several_says_who_moves_up_and_who_moves_down(server, browser, slug):
    """Table 1 of a drive of two tables: the box names the mover by the game's rule, and says by
    name what the mover does (stays at the top table) and that the player on their left moves
    down a table."""
    script = S.finished(f"{slug}-moves", slug)
    names = re.search(r"services\.add_players\(drive, (\[[^]]*\])\)", script).group(1)
    twice = [*eval(names), *(n + "2" for n in eval(names))]  # (a list of plain names, written by the support module)
    script = script.replace(names, repr(twice)).replace("drive.hands.get().tables.get()",
                                                        "drive.hands.get().tables.get(number=1)")
    data = server.shell_json(script)
    page = S.open_phone(browser, server, data["code"], data["seats"][0][1])
    expect(page.locator("#result")).to_contain_text("The hand is over")
    expect(page.locator("#result")).to_contain_text(re.compile(r"\S stays at the top table; \S.*, on .+’s left, moves down a table\."))
    if slug != "wonderland":  # (Wonderland's says "the top scorer", and marks them in the list)
        expect(page.locator("#result")).to_contain_text("is the mover.")
    page.context.close()


# The hand these games' watch pages are checked on, and what their status line then says (a game
# left out: a hand as its bots leave it, any status).
WATCHED = {
    "film-fantasy": (S.ff_three_offers, "Auction open"),
    "alice": (S.alice_mid_hand, "It is "),
    "wonderland": (S.wonderland_started, " to play."),
}


@pytest.mark.timeout(600)  # a backstop: a server started on a busy machine
@pytest.mark.parametrize("slug", [g.slug for g in all_games()])
def test_the_organisers_watch_page_passes_axe(server, browser, slug):
    setup, status = WATCHED.get(slug, (functools.partial(S.bots_played, game=slug), ""))
    tag = f"{slug}-watch"
    data = server.shell_json(setup(tag))
    organiser = S.organiser_page(browser, server, tag)
    organiser.goto(f"{server.url}/{data['code']}/tables/1/watch")
    expect(organiser.locator("#status")).not_to_be_empty()
    expect(organiser.locator("#status")).to_contain_text(status)
    assert organiser.locator("#hand button, #hand .c").count() == 0  # no cards
    if slug == "film-fantasy":  # found in a browser: the watch page said a drawn dealer was a home game's
        expect(organiser.locator("#dealer-draw")).to_contain_text(" (drew the Joker after ")
    problems = serious_violations(organiser)
    assert not problems, describe(problems)
    organiser.close()


@pytest.mark.timeout(600)  # a backstop: a server started on a busy machine
def test_the_message_line_goes_when_what_it_said_no_longer_holds(server, browser):
    """QA on the phones: "Cy plays next: wait for your turn." stayed after Cy had played; "A bot
    has taken over your seat." stayed after the hand was over; "Hand 2 has started: you are at
    Table 1." stayed after the organiser ended the hand. Each goes when its state changes."""
    data = server.shell_json(S.wonderland_started("stale", moves=0))
    code, seats = data["code"], data["seats"]
    (ann, token) = seats[0]
    turn_of = ("from tables.models import TableHand\nfrom games import get_game\n"
               f"t = TableHand.objects.filter(hand__drive__join_code='{code}').latest('pk')\n"
               "print(json.dumps(get_game('wonderland').load_hand(t.state).turn))")
    page = S.open_phone(browser, server, code, token)
    message = page.locator("#message")
    page.wait_for_selector("#hand button.wl-card")
    if server.shell_json(turn_of) == 0:  # Ann leads: she plays, and the turn passes
        page.locator("#hand button.wl-card.legal").first.click()
        expect(page.locator("#status")).to_contain_text("Waiting for")
    turn = server.shell_json(turn_of)
    page.get_by_role("button", name=re.compile(", not playable now$")).first.click()  # not her turn: a tap says why
    expect(message).to_have_text(f"{seats[turn][0]} plays next: wait for your turn.")
    other = S.open_phone(browser, server, code, seats[turn][1])
    other.locator("#hand button.wl-card.legal").first.click()
    expect(message).to_have_text("")  # the turn has moved on
    other.context.close()

    organiser = S.organiser_page(browser, server, "stale")
    organiser.on("dialog", lambda d: d.accept())
    organiser.goto(f"{server.url}/drives/{S.drive_id(server, code)}/")
    organiser.locator("#table-1 details summary").click()
    organiser.locator("#table-1 button", has_text=f"A bot plays for {ann}").click()
    expect(message).to_have_text("A bot has taken over your seat.", timeout=30_000)
    organiser.get_by_role("button", name="Close anyway").click()  # the bell: the hand ends as it stands
    expect(page.locator("#status")).to_have_text("The organiser ended the hand.", timeout=30_000)
    expect(message).to_have_text("")
    # Cards were left in hands: the log says the organiser rang the bell, not that every card was
    # played, nor again what the status line says (a tester read "The organiser ended the hand." twice).
    expect(page.locator("#log")).to_have_text("The organiser rang the bell: the cards taken so far count.")

    organiser.get_by_role("button", name="Start hand 2").click()
    expect(message).to_have_text(re.compile(r"^Hand 2 has started: you are at Table \d\.$"), timeout=30_000)
    organiser.get_by_role("button", name="Close anyway").click()
    expect(page.locator("#status")).to_have_text("The organiser ended the hand.", timeout=30_000)
    expect(message).to_have_text("")
    organiser.close()
    page.context.close()
