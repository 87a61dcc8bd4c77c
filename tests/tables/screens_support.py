"""Hands set up on a live server for the game-screen browser tests (test_play_screens_browser.py,
test_play_hand_end_browser.py, test_dealer_words_browser.py and the others): each ``*_SETUP`` is Python for
``server.shell_json``; it creates its own drive (its own organiser) and prints the join code and
the seats' [name, token] in seat order. Then what those tests do on a phone: open it, sign the
organiser in, find the drive's id, take an offer."""

from __future__ import annotations

import functools
import itertools
import random
import re

from games import get_game
from games.film_fantasy import declaration
from playwright.sync_api import expect
from tests.browser_support import sign_in
from tests.tables.test_play_browser import pick

SMALL_PHONE = {"width": 360, "height": 640}
LAPTOP = {"width": 1280, "height": 900}
# A game screen shows the player's cards as buttons in ``#hand`` (docs/games.md, step 8): the
# shared browser tests find a game's cards there unless they name a game's own selector.
HAND_CARDS = "#hand button"

DRIVE = """
from django.contrib.auth import get_user_model
from drive import services
from drive.models import Drive
from games import get_game
from tables.models import TableHand
import random
user = get_user_model().objects.create_user(username="olive-%(tag)s", password="organiser-pass-123")
drive = Drive.objects.create(organiser=user, name="Screens %(tag)s", game="%(game)s", play_mode="digital",
                             seed=%(seed)d, preferred_table_size=%(players)d)
services.add_players(drive, %(names)r)
services.draw_seating(drive, random.Random(1))
from django.utils import timezone
drive.players.update(phone_joined_at=timezone.now())  # every player has joined on a phone
services.start_hand(drive)
table = drive.hands.get().tables.get()
seats = [s.player for s in table.seats.select_related("player").order_by("position")]
game = get_game("%(game)s")
state = game.load_hand(table.state)
"""
SAVE = """
TableHand.objects.filter(pk=table.pk).update(state=state.to_json(), version=state.version)
print(json.dumps({"code": drive.join_code, "seats": [[p.name, p.token] for p in seats]}))
"""

# Every seat passes as tests.tables.test_play_browser.pick does until the auction opens.
FF_PASS_TO_AUCTION = """
def film(card):
    return 11 if card == "J" else int(card.split("-")[0])
def pick(hand):
    groups = {}
    for c in hand:
        groups.setdefault(film(c), []).append(c)
    groups = [groups[f] for f in sorted(groups)]
    open_groups = [g for g in groups if len({c for c in g if c != "J"}) < 4] or groups
    return min(open_groups, key=len)[0]
while state.phase == "passing":
    for seat in range(state.players):
        if state.phase == "passing" and state.passes[seat] is None:
            state.apply(seat, {"type": "pass", "card": pick(state.view(seat)["hand"])})
"""
# Film Fantasy: every seat passes as tests.tables.test_play_browser.pick does until the auction
# opens; seat 0 then holds a declaration (the seed is chosen so), and seats 1, 2 and 3 each offer
# seat 0 one to three cards: three open offers on seat 0's phone.
_FF_HAND = FF_PASS_TO_AUCTION + """
assert state.phase == "auction" and state.can_declare(0), "the seed's seat 0 holds no declaration"
for seat in (1, 2, 3):
    state.apply(seat, {"type": "offer", "to": 0, "cards": state.view(seat)["hand"][:seat]})
"""


@functools.cache
def ff_seed() -> int:
    """A drive seed whose first deal, passed as ``pick`` passes, leaves seat 0 able to declare
    when the auction opens (the deal as tables.digital.deal_rng makes it)."""
    game = get_game("film-fantasy")
    for seed in range(1, 5000):
        state = game.new_hand(4, random.Random(f"{seed}-1-1"))
        while state.phase == "passing":
            for seat in range(4):
                if state.phase == "passing" and state.passes[seat] is None:
                    state.apply(seat, {"type": "pass", "card": pick(state.view(seat)["hand"])})
        if state.phase == "auction" and state.can_declare(0):
            return seed
    raise AssertionError("no seed gives seat 0 a declaration")


def ff_three_offers(tag: str) -> str:
    return (DRIVE % {"tag": tag, "game": "film-fantasy", "seed": ff_seed(), "players": 4,
                      "names": ["Ann", "Bob", "Cy", "Di"]}) + _FF_HAND + SAVE


# Film Fantasy: as ``ff_three_offers``, seat 0 having made its 50 offers this hand (the engine's
# MAX_OFFERS_PER_SEAT; each withdrawn but the count kept).
def ff_offers_spent(tag: str) -> str:
    return (DRIVE % {"tag": tag, "game": "film-fantasy", "seed": ff_seed(), "players": 4,
                      "names": ["Ann", "Bob", "Cy", "Di"]}) + _FF_HAND + """
from games.film_fantasy.hand import MAX_OFFERS_PER_SEAT
state.offers_made[0] = MAX_OFFERS_PER_SEAT
""" + SAVE


# Film Fantasy: the dealt hand as it is (every seat's first pass awaited).
def ff_dealt(tag: str) -> str:
    return (DRIVE % {"tag": tag, "game": "film-fantasy", "seed": 5, "players": 4,
                      "names": ["Ann", "Bob", "Cy", "Di"]}) + SAVE


# Film Fantasy: a home game's later hand, dealt by seat 2 (the deal passed to the left: no draw).
def ff_passed_deal(tag: str) -> str:
    return (DRIVE % {"tag": tag, "game": "film-fantasy", "seed": 5, "players": 4, "names": ["Ann", "Bob", "Cy", "Di"]}
            + "state = game.new_hand(4, random.Random(3), 2)\n" + SAVE)


@functools.cache
def ff_draw_seed(drawn: int) -> int:
    """A seed whose Film Fantasy hand at four finds its dealer with ``drawn`` cards dealt face up,
    the last the Joker (1: the first card, to seat 0, who deals)."""
    game = get_game("film-fantasy")
    return next(k for k in range(10_000) if game.new_hand(4, random.Random(k)).view(None)["dealer_drawn"] == drawn)


# Film Fantasy: a drawn dealer, the Joker the ``drawn``-th card dealt face up (0: a home game's
# later hand, dealt by seat 2, the deal passed to the left).
def ff_dealer(tag: str, drawn: int) -> str:
    if not drawn:
        return ff_passed_deal(tag)
    return (DRIVE % {"tag": tag, "game": "film-fantasy", "seed": 5, "players": 4, "names": ["Ann", "Bob", "Cy", "Di"]}
            + f"state = game.new_hand(4, random.Random({ff_draw_seed(drawn)}))\n" + SAVE)


# Film Fantasy at a table of six (two packs): the passes made until the auction opens, then
# seat 0 given both copies of one of its cards (a card of its own swapped with the other seat
# holding the copy). Returns the card as "copy" beside the seats.
def ff_two_copies(tag: str) -> str:
    return (DRIVE % {"tag": tag, "game": "film-fantasy", "seed": 5, "players": 6,
                      "names": ["Ann", "Bob", "Cy", "Di", "Eve", "Fay"]}) + """
rng = random.Random(3)
while state.phase == "passing":
    for seat in range(state.players):
        if state.phase == "passing" and state.passes[seat] is None:
            state.apply(seat, {"type": "pass", "card": state.view(seat)["hand"][0]})
assert state.phase == "auction"
mine = state.hands[0]
copy, other = next((c, k) for c in mine if c != "J" and mine.count(c) == 1
                   for k in range(1, 6) if c in state.hands[k])
given = next(c for c in mine if c != copy and c not in state.hands[other])
mine.remove(given); mine.append(copy)
state.hands[other].remove(copy); state.hands[other].append(given)
""" + SAVE.replace('"seats":', '"copy": copy, "seats":')


# Alice: seat 0 holds a White Rabbit and takes the row's other one (seat 2 deals, seat 0 begins).
def alice_two_rabbits(tag: str) -> str:
    return ((DRIVE % {"tag": tag, "game": "alice", "seed": 5, "players": 3, "names": ["Ann", "Bob", "Cy"]}) + """
from tests.games.alice_support import deal
state = deal(3, [["A1", "A2", "B1", "C1", "D1", "E1", "WR"], ["A4", "B3", "C2", "E2", "F1", "F2", "G1"],
                 ["A5", "B4", "G2", "H1", "H2", "D2", "CC"]], row=["WR", "E3", "G3", "B2", "H3", "F3", "C3"], dealer=2)
state.answer_seconds = 600.0
state.apply(0, {"type": "take", "card": "WR"})
assert state.hands[0].count("WR") == 2
""" + SAVE)


# Alice: the dealt hand as it is (a hand mid-way for the screen: the row, the cards by set).
def alice_dealt(tag: str) -> str:
    return (DRIVE % {"tag": tag, "game": "alice", "seed": 5, "players": 3, "names": ["Ann", "Bob", "Cy"]}) + SAVE


# Alice mid-hand with a long log, chosen as tests.games.alice_support.deal deals (seat 2 deals,
# seat 0 begins). Seat 0 holds four sets (A1-A3, B1, C1, D1) and a White Rabbit; seat 1 holds A4
# and B3 and no Rabbit; seat 2 holds A5 and B4; the row starts with a Cheshire Cat, and B5 tops
# the stock. Twelve rounds of asks for cards the seat asked does not hold (nobody holds a Cat)
# fill the log past what a view carries; then it is seat 0's turn again. Each phone has ten
# minutes to answer a question (a slow machine's test never meets the clock).
_ALICE_MID = """
from tests.games.alice_support import deal
state = deal(3, [["A1", "A2", "A3", "B1", "C1", "D1", "WR"], ["A4", "B3", "C2", "E1", "E2", "F1", "F2"],
                 ["A5", "B4", "G1", "G2", "H1", "H2", "D2"]], row=["CC", "E3", "G3", "B2", "H3", "F3", "C3"],
             stock=["B5"], dealer=2)
state.answer_seconds = 600.0
for _ in range(12):
    state.apply(0, {"type": "ask", "to": 1, "card": "A5"})
    state.apply(1, {"type": "ask", "to": 2, "card": "E4"})
    state.apply(2, {"type": "ask", "to": 0, "card": "G4"})
assert state.turn == 0 and len(state.log) > 100
"""


# Alice at six: seat 5 (the first to play: seat 4 deals) asks seat 0 for A1; seat 0 holds it and
# a White Rabbit, so seat 0's phone asks whether to give it (the dock's tallest state). Ten
# minutes to answer (tests/tables/test_play_layout_browser.py, test_seat_chips_browser.py).
ALICE_ASKED = """
from tests.games.alice_support import deal
state = deal(6, [["A1", "A2", "B1", "C1", "WR"], ["B2", "C2", "D3", "E3", "F3"], ["B3", "C3", "D4", "E4", "F4"],
                 ["B4", "C4", "D5", "E5", "F5"], ["G1", "G2", "H1", "H2", "CC"], ["A3", "D1", "D2", "E1", "E2"]],
             row=["G3", "G4", "H3", "H4", "G5", "H5", "A4"], dealer=4)
state.answer_seconds = 600.0
state.apply(5, {"type": "ask", "to": 0, "card": "A1"})
assert state.answering == 0
"""


def alice_mid_hand(tag: str) -> str:
    return (DRIVE % {"tag": tag, "game": "alice", "seed": 5, "players": 3, "names": ["Ann", "Bob", "Cy"]}) + _ALICE_MID + SAVE


def alice_long_names(tag: str) -> str:
    """``alice_mid_hand`` with long names (seat 2's chip on the third line at 360 px), two more asks
    made: seat 2 is to act."""
    names = ["Ann", "Bartholomew Fitzgerald-Smythe", "Cornelius Archibald Whitmore"]
    return ((DRIVE % {"tag": tag, "game": "alice", "seed": 5, "players": 3, "names": names}) + _ALICE_MID
            + """
state.apply(0, {"type": "ask", "to": 1, "card": "A5"})
state.apply(1, {"type": "ask", "to": 2, "card": "E4"})
assert state.turn == 2
""" + SAVE)


# The bots play: ``moves`` of them, then (``until_seat_0``) on until seat 0 is to play a card
# on a trick already led; ``moves`` past the hand's length plays it to its end.
BOT_MOVES = """
rng = random.Random(3)
def bot_move():
    move = next(((s, m) for s in range(state.players) if (m := game.bot_action(state, s, rng))), None)
    if move is not None:
        state.apply(move[0], move[1])
    return move is not None
for _ in range(%(moves)d):
    if not bot_move():
        break
while %(until_seat_0)s and not (state.turn == 0 and state.trick) and bot_move():
    pass
"""


def wonderland_started(tag: str, moves: int = 6, until_seat_0: bool = False) -> str:
    return ((DRIVE % {"tag": tag, "game": "wonderland", "seed": 11, "players": 4, "names": ["Ann", "Bob", "Cy", "Di"]})
            + BOT_MOVES % {"moves": moves, "until_seat_0": until_seat_0} + SAVE)


def bots_played(tag: str, game: str, moves: int = 6) -> str:
    """A hand of any registered ``game`` after ``moves`` of its bots' moves (past the hand's length:
    to its end), at a table of four where the game is played four at a table, else of its fewest
    (Alice: of three, as it was first checked)."""
    rules = get_game(game)
    players = 3 if game == "alice" else 4 if rules.min_players <= 4 <= rules.max_players else rules.min_players
    names = ["Ann", "Bob", "Cy", "Di", "Eve", "Fay", "Gus", "Hal", "Ivy", "Jo"][:players]
    return ((DRIVE % {"tag": tag, "game": game, "seed": 11, "players": players, "names": names})
            + BOT_MOVES % {"moves": moves, "until_seat_0": False} + SAVE)


def seated(tag: str, game: str) -> str:
    """A drive of any registered ``game`` seated at one table on the phones (as ``bots_played``),
    its first hand not started."""
    script = bots_played(tag, game, moves=0).split("game = get_game(")[0].replace("services.start_hand(drive)\n", "")
    return script + 'print(json.dumps({"code": drive.join_code, "seats": [[p.name, p.token] for p in seats]}))\n'


# The bots' last move, the one that ends the hand, made through the move path: its result is
# recorded as on the phones (who moves after it is read from the result).
_LAST_MOVE = """
Drive.objects.filter(pk=drive.pk).update(target_total=999)  # (a drive to a total: this hand does not reach it)
moves = []
while (move := next(((s, m) for s in range(state.players) if (m := game.bot_action(state, s, rng))), None)):
    state.apply(*move)
    moves.append(move)
assert state.finished
state = game.load_hand(table.state)
for seat, move in moves[:-1]:
    state.apply(seat, move)
TableHand.objects.filter(pk=table.pk).update(state=state.to_json(), version=state.version)
from tables import digital
seat, move = moves[-1]
digital.apply_action(table.pk, seat, {**move, "version": state.version}, player_id=seats[seat].pk)
print(json.dumps({"code": drive.join_code, "seats": [[p.name, p.token] for p in seats]}))
"""


def finished(tag: str, game: str) -> str:
    """A hand of any registered ``game`` the bots played to its end, its result recorded."""
    return bots_played(tag, game, moves=0).replace(SAVE, "\nrng = random.Random(3)\n" + _LAST_MOVE)


def open_phone(browser, server, code: str, token: str, viewport=SMALL_PHONE):
    """A phone-sized page of the player with ``token``, on the game screen."""
    context = browser.new_context(viewport=viewport, is_mobile=True, has_touch=True)
    context.add_cookies([{"name": f"ff_{code}", "value": token, "url": server.url}])
    page = context.new_page()
    page.goto(f"{server.url}/{code}/play")
    return page


def sign_in_organiser(page, server, tag: str) -> None:
    """The organiser of this module's drive ``tag`` (``olive-<tag>``) signs in."""
    sign_in(page, server.url, f"olive-{tag}")


def organiser_page(browser, server, tag: str):
    """A laptop-sized page of the organiser of the drive ``tag``, signed in."""
    page = browser.new_page(viewport=LAPTOP)
    sign_in_organiser(page, server, tag)
    return page


def drive_id(server, code: str) -> int:
    """The id of the drive whose join code is ``code``."""
    return server.shell_json(f"from drive.models import Drive\nprint(json.dumps(Drive.objects.get(join_code={code!r}).pk))")


def cards_on(page) -> list[str]:
    return page.eval_on_selector_all("#hand button.c", "bs => bs.map(b => b.dataset.card)")


def give_keeping_a_declaration(page, count: int) -> list[str]:
    """``count`` of the page's free cards whose loss leaves a declaration in the hand."""
    hand = cards_on(page)
    free = page.eval_on_selector_all("#hand button.c:not([disabled])", "bs => bs.map(b => b.dataset.card)")
    for give in itertools.combinations(free, count):
        rest = list(hand)
        for c in give:
            rest.remove(c)
        if declaration(rest) is not None:
            return list(give)
    raise AssertionError(f"no {count} cards of {hand} keep a declaration")


def take_offer(page, offerer: str, count: int) -> list[str]:
    """Accept ``offerer``'s open offer, giving cards that keep a declaration; the cards received."""
    before = cards_on(page)
    give = give_keeping_a_declaration(page, count)
    page.get_by_role("button", name=re.compile(f"^Accept {offerer}’s offer")).click()
    expect(page.locator("#status")).to_contain_text(f"Tap {count} of your cards to give {offerer}")
    for c in give:
        page.locator(f'#hand button.c[data-card="{c}"]:not([disabled])').first.click()
    page.locator("#give").click()  # the cards chosen are given by Give
    expect(page.locator("#log li").first).to_have_text(f"You took {offerer}’s offer: {count} card{'s' if count > 1 else ''} each way.")
    kept = list(before)
    for c in give:
        kept.remove(c)
    received = cards_on(page)  # what is held now, less what was kept
    for c in kept:
        received.remove(c)
    return received
