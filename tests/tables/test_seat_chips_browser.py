"""The seats' chips on a small phone (360 and 320 px wide) in Chromium, against daphne, for each
game's largest table with long names, a right-to-left name and a player with no phone.

at 360 px the chips scrolled in a two-line box, and a player could not see every
seat: at a table of four the first player's chip was scrolled out of sight, with nothing showing
it was there; at a table of five a phone said "Dora asks you for G5" while Dora's chip was
hidden. Every chip now stands whole in the screen: inside the seats' row (which does not
scroll), inside the screen, not cut, and on top at its centre; a name too long for its chip ends
in an ellipsis, with the whole name in the chip's title.

later: at 320 px a name was cut to about five letters ("Barth… (bot)", "Zoë Ñ…  · 5
cards": the blank after the ellipsis is the rest of the cut name's box) with room to spare in the
row. A common name (ten to twelve letters) now shows whole at 320 and 360 px, so with no blank."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from games import all_games, get_game
from tests.tables import screens_support as S

pytestmark = [pytest.mark.browser, pytest.mark.sqlite]

RTL = "שרה"
AWAY = "Hal Never-Joins"  # his phone never joined: his chip says "(no phone)"
LONG = ["Annabelle Montgomery-Hughes", "Bartholomew Fitzgerald-Smythe", RTL, "Dora Delacroix-Vandermeer", AWAY,
        "Cornelius Archibald Whitmore", "Maximiliana Featherstonehaugh", "Evangeline Worthington-Price",
        "Fitzwilliam Darcy-Bennet", "Gwendolyn Ashcombe-Lyle"]
WIDTHS = (360, 320)
# Common names of ten to twelve letters, each shown whole (seat 1's a bot: "Bartholomew (bot)").
COMMON = ["Christabella", "Bartholomew", "Zoë Martínez", "Gwendolyn Ng", "Maximiliano", "Evangelina", "Fitzwilliam",
          "Rosalind Ho", "Wilhelmina", "Cornelius B."]

# Marks AWAY's phone as never joined: the table waits for it if his seat is to act.
_AWAY = f"""
drive.players.filter(name={AWAY!r}).update(phone_joined_at=None)
"""


def biggest(game: str) -> int:
    return get_game(game).max_players


# The hand each game's chips are checked in (Film Fantasy's as dealt; a game not named here after
# three of its bots' moves).
HANDS = {"alice": S.ALICE_ASKED, "film-fantasy": ""}


def setup(game: str, tag: str, names: list[str] = LONG) -> str:
    players = biggest(game)
    script = S.DRIVE % {"tag": tag, "game": game, "seed": 11, "players": players, "names": names[:players]}
    script += HANDS.get(game, S.BOT_MOVES % {"moves": 3, "until_seat_0": False})
    return script + _AWAY + S.SAVE


# Each chip's box, the seats' row's box and the screen; whether the chip's text is cut (its
# content wider than it) and whether the chip is what shows at its centre.
CHIPS = """() => {
  const row = document.getElementById('seats'), b = row.getBoundingClientRect();
  return {
    row: {top: b.top, bottom: b.bottom, left: b.left, right: b.right,
          scrolls: row.scrollHeight > row.clientHeight + 1 || row.scrollWidth > row.clientWidth + 1},
    screen: {width: window.innerWidth, height: window.innerHeight, scrollWidth: document.documentElement.scrollWidth},
    chips: [...row.children].map((li) => {
      const r = li.getBoundingClientRect(), name = li.querySelector('bdi');
      const x = (r.left + r.right) / 2, y = (r.top + r.bottom) / 2;
      const hit = r.width > 0 && y >= 0 && y < window.innerHeight ? document.elementFromPoint(x, y) : null;
      return {name: name.textContent, text: li.textContent, title: li.title, waiting: li.classList.contains('waiting'),
              top: r.top, bottom: r.bottom, left: r.left, right: r.right, width: r.width,
              cut: li.scrollWidth > li.clientWidth + 1 || li.scrollHeight > li.clientHeight + 1,
              on_top: !!hit && (hit === li || li.contains(hit))};
    }),
  };
}"""

# [right edge of the name, left edge of what follows it] in the chip of ``name``.
NAME_THEN_NOTE = """(name) => {
  const b = [...document.querySelectorAll('#seats li bdi')].find((b) => b.textContent === name);
  if (!b || !b.nextSibling) return null;
  const after = document.createRange();
  after.selectNodeContents(b.nextSibling);
  return [b.getBoundingClientRect().right, after.getBoundingClientRect().left];
}"""


# Each chip's name: whether it is cut (its text wider than its box) and how a cut shows.
NAMES_CUT = """() => [...document.querySelectorAll('#seats li bdi')].map((b) => ({
  name: b.textContent, cut: b.scrollWidth > b.clientWidth, scrollWidth: b.scrollWidth, clientWidth: b.clientWidth,
  overflow: getComputedStyle(b).textOverflow}))"""


def every_chip_in_sight(page, names: list[str]) -> list[dict]:
    """Every seat's chip lies whole inside the seats' row and the screen, on top, its name whole
    in its title; the row does not scroll (nothing is hidden in it)."""
    assert page.evaluate("window.scrollY") == 0
    seen = page.evaluate(CHIPS)
    row, screen, chips = seen["row"], seen["screen"], seen["chips"]
    assert [c["name"] for c in chips] == names, chips
    assert not row["scrolls"], seen
    assert screen["scrollWidth"] <= screen["width"], screen  # nothing wider than the screen
    for c in chips:
        where = (c, row, screen)
        assert c["width"] > 0 and not c["cut"] and c["on_top"], where
        assert row["left"] - 1 <= c["left"] and c["right"] <= row["right"] + 1, where
        assert row["top"] - 1 <= c["top"] and c["bottom"] <= row["bottom"] + 1, where
        assert 0 <= c["left"] and c["right"] <= screen["width"] and 0 <= c["top"] and c["bottom"] <= screen["height"], where
        assert c["name"] in c["title"], where
    return chips


# The screen drawn (a game not named: its cards, S.HAND_CARDS).
READY = {"alice": "#alice-row button.c", "wonderland": "#hand button.wl-card", "film-fantasy": "#hand button.c"}
GAMES = [game.slug for game in all_games()]


@pytest.mark.timeout(600)  # a backstop: a server started on a busy machine
@pytest.mark.parametrize("game", GAMES)
def test_every_seats_chip_is_in_sight_at_the_largest_table_on_a_small_phone(server, browser, game):
    data = server.shell_json(setup(game, f"chips-{game}"))
    names = [name for name, _ in data["seats"]]
    assert len(names) == biggest(game) and RTL in names and AWAY in names
    for width in WIDTHS:
        page = S.open_phone(browser, server, data["code"], data["seats"][0][1], viewport={"width": width, "height": 640})
        page.wait_for_selector(READY.get(game, S.HAND_CARDS))
        expect(page.locator("#seats li")).to_have_count(len(names))
        expect(page.locator("#seats li", has_text=AWAY)).to_contain_text(f"{AWAY} (no phone)")
        if game == "alice":  # the asker's chip and the asked player's (this phone's, waited for)
            expect(page.locator("#status")).to_have_text(f"{names[5]} asks you for A1: give it or play your White Rabbit?")
            expect(page.locator("#seats li.waiting")).to_have_class("me waiting")
        chips = every_chip_in_sight(page, names)
        assert any(c["waiting"] for c in chips), chips  # whose turn it is, among them
        # The right-to-left name stays isolated: its chip's note comes after it, on its right.
        name_right, note_left = page.evaluate(NAME_THEN_NOTE, RTL)
        assert name_right <= note_left + 0.5, (name_right, note_left)
        # A name far longer than a common one is cut, ending in an ellipsis.
        for n in page.evaluate(NAMES_CUT):
            if len(n["name"]) > 20:
                assert n["cut"] and n["overflow"] == "ellipsis", n
        page.context.close()


@pytest.mark.timeout(600)  # a backstop: a server started on a busy machine
@pytest.mark.parametrize("game", GAMES)
def test_a_common_name_shows_whole_on_a_small_phone(server, browser, game):
    script = setup(game, f"common-{game}", COMMON).replace(S.SAVE, "table.bots = [1]\ntable.save(update_fields=['bots'])\n" + S.SAVE)
    data = server.shell_json(script)
    names = [name for name, _ in data["seats"]]
    assert len(names) == biggest(game) and all(10 <= len(name) <= 12 for name in names), names
    for width in WIDTHS:
        page = S.open_phone(browser, server, data["code"], data["seats"][0][1], viewport={"width": width, "height": 640})
        page.wait_for_selector(READY.get(game, S.HAND_CARDS))
        expect(page.locator("#seats li")).to_have_count(len(names))
        expect(page.locator("#seats li", has_text=names[1])).to_contain_text(f"{names[1]} (bot) · ")
        every_chip_in_sight(page, names)
        assert not [n for n in page.evaluate(NAMES_CUT) if n["cut"]], (width, page.evaluate(NAMES_CUT))
        page.context.close()
