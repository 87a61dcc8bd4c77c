"""The greedy bot's auction (docs/rules.md, "Bots")."""

import json
import random
from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from games.film_fantasy import FilmFantasyHand, bot_action
from games.film_fantasy.bots import card_values, strays
from games.film_fantasy.cards import CARD_FILM, ICE, JOKER, PACK
from games.film_fantasy.hand import AUCTION
from games.film_fantasy.scoring import can_declare
from games.film_fantasy.simulate import CAPPED, simulate

from .conftest import make_hand


def test_strays_are_the_cards_outside_the_two_films_collected_and_spare_copies():
    hand = ["1-1", "1-2", "1-3", "2-1", "2-2", "2-2", "3-1", "4-1"]
    assert sorted(strays(hand)) == ["2-2", "3-1", "4-1"]


def test_greedy_offers_strays_round_the_table_and_skips_a_seat_that_declined():
    h = make_hand(
        [["1-1", "1-2", "1-3", "2-1", "2-2", "2-3", "3-1", "4-1", "5-3", "6-3"],
         ["5-1", "5-2", "6-1", "6-2", "7-1", "8-1", "9-1", "9-2"],
         ["10-1", "10-2", "10-3", "11-1", "11-2", "11-3", "3-2", "4-2"]],
        phase=AUCTION,
    )
    rng = random.Random(0)
    a = bot_action(h, 0, rng)  # four strays: offers three, keeping one to accept offers with
    assert a["type"] == "offer" and a["to"] == 1 and len(a["cards"]) == 3
    assert set(a["cards"]) <= {"3-1", "4-1", "5-3", "6-3"}
    h.apply(0, a)
    h.apply(1, {"type": "decline", "offer": 1})
    b = bot_action(h, 0, rng)
    assert b["to"] == 2  # round the table
    h.apply(0, b)
    h.apply(2, {"type": "decline", "offer": 2})
    c = bot_action(h, 0, rng)
    assert c["to"] == 1 and len(c["cards"]) == 2  # seat 1 declined three cards: two only now
    # the memory is read from the public log, so a stored copy decides the same way
    again = FilmFantasyHand.load(json.loads(json.dumps(h.to_json())))
    assert bot_action(again, 0, rng) == c


def test_greedy_stops_offering_when_every_seat_declined_and_nothing_changed():
    h = make_hand([["1-1", "1-2", "1-3", "2-1", "2-2", "2-3", "3-1", "4-1"], ["5-1", "5-2", "6-1", "6-2"]],
                  phase=AUCTION)
    rng = random.Random(0)
    a = bot_action(h, 0, rng)
    assert a == {"type": "offer", "to": 1, "cards": ["3-1"]}
    h.apply(0, a)
    h.apply(1, {"type": "decline", "offer": 1})
    assert bot_action(h, 0, rng) is None


def test_greedy_accepts_a_blind_offer_only_when_it_can_give_strays():
    h = make_hand(
        [["1-1", "1-2", "1-3", "2-1", "2-2", "2-3", "3-1", "4-1"], ["1-4", "5-1", "6-1", "7-1"],
         ["8-1", "8-2", "9-1", "9-2"]],
        phase=AUCTION,
    )
    h.apply(1, {"type": "offer", "to": 0, "cards": ["1-4", "5-1"]})
    a = bot_action(h, 0, random.Random(0))
    assert a["type"] == "accept" and sorted(a["cards"]) == ["3-1", "4-1"]
    h.apply(1, {"type": "withdraw", "offer": 1})
    h.apply(1, {"type": "offer", "to": 0, "cards": ["1-4", "5-1", "6-1"]})
    assert bot_action(h, 0, random.Random(0)) == {"type": "decline", "offer": 2}


def test_greedy_table_of_ten_usually_declares():
    r = simulate(10, 150, 3, ["greedy"] * 10)
    assert r.ended[CAPPED] / r.hands < 0.30


def test_greedy_table_of_four_almost_always_declares():
    r = simulate(4, 300, 3, ["greedy"] * 4)
    assert r.ended[CAPPED] / r.hands < 0.03


def test_greedy_beats_random_clearly():
    r = simulate(4, 300, 5, ["greedy", "random", "greedy", "random"], rotate=True)
    m = r.mean_by_bot()
    assert m["greedy"] - m["random"] > 5


_FILMS = st.lists(st.integers(1, 11), min_size=1, max_size=4, unique=True)
_RANK = {c: i for i, c in enumerate(PACK)}


def expected_strays(hand: list[str]) -> list[str]:
    """The rule as docs/rules.md and ``strays`` say it, worked out plainly: the two films the
    hand holds most different cards of (ties: Ice Follies when the Joker is held, then the
    higher film) are kept, one copy of each of their cards, with the Joker beside Ice Follies;
    everything else, spare copies too, is a stray, weakest first (by ``card_values``, then by
    the card's place in the pack)."""
    counts = Counter(hand)
    different = Counter(CARD_FILM[c] for c in counts if c != JOKER)
    plan = sorted(different, key=lambda f: (different[f], f == ICE and JOKER in counts, f))[-2:]
    kept = Counter(c for c in counts if (CARD_FILM[c] in plan if c != JOKER else ICE in plan))
    values = card_values(hand)
    return sorted((counts - kept).elements(), key=lambda c: (values[c], _RANK[c]))


def greedy_in_passing(hand: list[str]) -> dict:
    """What the greedy bot does with ``hand`` while the cards are passed."""
    return bot_action(make_hand([hand, ["5-1", "6-1", "7-1", "8-1"]]), 0, random.Random(0))


@settings(max_examples=400, deadline=None)
@given(packs=st.integers(1, 2), films=st.one_of(st.none(), _FILMS), size=st.integers(0, 24),
       seed=st.integers(0, 2**32))
def test_the_greedy_bots_strays_and_its_pass_follow_the_rule(packs, films, size, seed):
    """Any hand, one pack (the bot's fast path) or two (spare copies): the strays are the rule's,
    weakest first; the bot declares exactly when the hand can, and otherwise passes its weakest
    stray (its weakest card when it has none)."""
    pool = [c for c in PACK * packs if films is None or c == "J" or int(c.split("-")[0]) in films]
    hand = random.Random(seed).sample(pool, min(size, len(pool)))
    assert strays(hand) == expected_strays(hand)
    if not hand:
        return
    action = greedy_in_passing(hand)
    if can_declare(Counter(hand)):
        assert action == {"type": "declare"}
    else:
        values = card_values(hand)
        weakest = (expected_strays(hand) or sorted(hand, key=lambda c: (values[c], _RANK[c])))[0]
        assert action == {"type": "pass", "card": weakest}


def test_the_joker_beside_ice_follies():
    # the Joker's value: 45 beside three or four different Ice Follies (after the films), 15 beside
    # two (after the films of one different card), else 0 (first)
    for hand, declares, weakest_first, n in [
        (["11-1", "11-2", "11-3", "11-4", "J"], False, ["11-1", "11-2", "11-3", "11-4", "J"], 0),
        (["J"], False, ["J"], 1),
        ([], False, [], 0),
        (["11-1", "11-2", "J", "1-1", "1-2", "1-3", "2-1", "2-2"], False, ["2-1", "2-2", "J", "11-1", "11-2", "1-1", "1-2", "1-3"], 2),
        (["11-1", "J", "1-1", "1-2", "1-3", "1-4", "2-1", "2-2", "2-3", "2-4"], True, ["J", "11-1", "1-1", "1-2", "1-3", "1-4", "2-1", "2-2", "2-3", "2-4"], 2),
    ]:
        assert strays(hand) == weakest_first[:n]
        values = card_values(hand)
        kept = (Counter(hand) - Counter(strays(hand))).elements()
        assert sorted(kept, key=lambda c: (values[c], _RANK[c])) == weakest_first[n:]  # the kept, weakest first
        if hand:
            assert greedy_in_passing(hand) == ({"type": "declare"} if declares else {"type": "pass", "card": weakest_first[0]})
