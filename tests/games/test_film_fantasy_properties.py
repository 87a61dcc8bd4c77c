"""Property tests: whole bot-played hands over seeds and table sizes 2-10."""

import json
import random
import re
from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from games.base import GameError
from games.film_fantasy import FilmFantasyHand, bot_action, declaration, score_hand
from games.film_fantasy.cards import CARD_FILM, build_deck, cards_in_play, end_hand_size, odd_cards
from games.film_fantasy.hand import FINISHED
from tests.view_strings import strings_in

CODE = re.compile(r"^(?:\d{1,2}-\d|J)$")
SETTINGS = settings(max_examples=40, deadline=None)


def all_cards(h):
    return Counter([c for hand in h.hands for c in hand] + h.stack + h.odd)


def bots_play(h, rng, moves: int, kind: str | None = None) -> None:
    """Up to ``moves`` turns of a seat drawn at random: its bot's move, if it has one (a bot of
    ``kind``, else greedy or random, drawn each turn), until the hand is finished."""
    for _ in range(moves):
        if h.finished:
            break
        seat = rng.randrange(h.players)
        a = bot_action(h, seat, rng, kind or rng.choice(["greedy", "random"]))
        if a is not None:
            h.apply(seat, a)


def check_views(h):
    for seat in [None, *range(h.players)]:
        v = h.view(seat)
        json.dumps(v)
        assert v["counts"] == [len(x) for x in h.hands]
        assert not [x for x in strings_in(v, {"hand", "dealer_draw", "my_pass", "received", "my_cards", "declaration"})
                    if CODE.match(x)]
        if seat is None:
            assert "hand" not in v and "dealer_draw" not in v
        else:
            assert Counter(v["hand"]) == Counter(h.hands[seat])
            assert not Counter(v["received"]) - Counter(v["hand"])  # its own cards, still held
            if "declaration" in v:
                assert h.declarer == seat


def play(players, seed, kinds, check_every=True, cap=150):
    rng = random.Random(seed)
    h = FilmFantasyHand.new(players, rng)
    expected = Counter(build_deck(players, h.removed))
    steps = 0
    while not h.finished:
        acted = False
        for seat in range(players):
            a = bot_action(h, seat, rng, kinds[seat])
            if a is None:
                continue
            declaring = a["type"] == "declare"
            h.apply(seat, a)
            acted = True
            steps += 1
            if declaring:
                assert declaration(h.hands[seat]) is not None
            assert all_cards(h) == expected  # nothing created, lost or duplicated
            if check_every:
                check_views(h)
            if h.finished:
                break
        if not h.finished and (not acted or h.auction_actions > cap):
            h.stop()
    return h, expected


@SETTINGS
@given(players=st.integers(2, 10), seed=st.integers(0, 2**32), mix=st.integers(0, 2**10))
def test_bot_played_hand_conserves_cards_and_keeps_views_private(players, seed, mix):
    kinds = ["greedy" if mix >> i & 1 else "random" for i in range(players)]
    h, expected = play(players, seed, kinds)
    assert sum(expected.values()) == cards_in_play(players)
    check_views(h)
    o = h.outcome()
    assert len(o.points) == players and 0 <= o.mover < players
    lo = -5 * (1 if players <= 5 else 2)
    hi = max(25, 5 * (end_hand_size(players) // 4) + 5)  # a five is worth 10 for five cards
    assert all(lo <= p <= hi for p in o.points)
    if h.declarer is not None:
        assert o.points[h.declarer] in (10, 15, 20, 25) and o.mover == h.declarer
        assert o.details["nine_card"] == (len(h.declaration) == 9)
    assert o.points == score_hand(h.hands, h.declarer)


@SETTINGS
@given(players=st.integers(2, 10), seed=st.integers(0, 2**32))
def test_hand_sizes_and_odd_cards_when_the_auction_opens(players, seed):
    rng = random.Random(seed)
    h = FilmFantasyHand.new(players, rng)
    while h.phase == "passing":
        for seat in range(players):
            if h.phase == "passing":
                h.apply(seat, {"type": "pass", "card": rng.choice(h.hands[seat])})
    assert [len(x) for x in h.hands] == [end_hand_size(players)] * players
    assert len(h.odd) == odd_cards(players) and h.stack == []
    assert h.round == end_hand_size(players) - 4 + 1


@SETTINGS
@given(players=st.integers(2, 10), seed=st.integers(0, 2**32), stop_after=st.integers(0, 80))
def test_json_round_trip_is_exact_at_any_point(players, seed, stop_after):
    rng = random.Random(seed)
    h = FilmFantasyHand.new(players, rng)
    bots_play(h, rng, stop_after)
    data = json.loads(json.dumps(h.to_json()))
    again = FilmFantasyHand.load(data)
    assert again.to_json() == h.to_json() and again.version == h.version and again == h
    assert again.view(0) == h.view(0)


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 12) | st.sampled_from(["1-1", "J", "11-4", "x", "", "pass"]),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.sampled_from(["type", "card", "to", "cards", "offer", "zz"]), inner, max_size=4),
    max_leaves=10,
)
actions = st.one_of(
    json_values,
    st.fixed_dictionaries({"type": st.sampled_from(["pass", "declare", "offer", "accept", "decline", "withdraw", "nope"])},
                          optional={"card": json_values, "to": json_values, "cards": json_values, "offer": json_values}),
)


@settings(max_examples=300, deadline=None)
@given(players=st.integers(2, 10), seed=st.integers(0, 2**16), warmup=st.integers(0, 60),
       seat=st.one_of(st.integers(-1, 11), json_values), action=actions)
def test_any_json_action_is_applied_or_refused_with_state_unchanged(players, seed, warmup, seat, action):
    rng = random.Random(seed)
    h = FilmFantasyHand.new(players, rng)
    bots_play(h, rng, warmup, "random")
    before = h.to_json()
    expected = all_cards(h)
    try:
        h.apply(seat, action)
    except GameError:
        assert h.to_json() == before
    else:
        assert h.version == before["version"] + 1
    assert all_cards(h) == expected


def test_a_stored_hand_with_seats_out_of_place_is_refused_not_played():
    """As the other games: a dealer or declarer the table has not, a negative count, or a number
    no integer holds (infinity raised OverflowError) is not a stored hand."""
    h = FilmFantasyHand.new(4, random.Random(2))
    data = json.loads(json.dumps(h.to_json()))
    assert FilmFantasyHand.load(data) == h
    while h.phase == "passing":  # on to the auction, where offers are open
        for seat in range(4):
            if h.phase == "passing":
                h.apply(seat, {"type": "pass", "card": h.hands[seat][0]})
    auction = json.loads(json.dumps(h.to_json()))
    held = h.hands[0][0]
    missing = next(c for c in CARD_FILM if c not in h.hands[0])
    offer = {"id": 1, "from": 0, "to": 1, "cards": [held]}
    assert FilmFantasyHand.load({**auction, "offers": [offer], "next_offer": 2}).offers[1]["cards"] == [held]
    # (Found by review: an offer from seat 9 loaded, and accepting it crashed the engine.)
    for bad in ({**data, "dealer": 4}, {**data, "dealer": float("inf")}, {**data, "declarer": -1},
                {**data, "version": -1}, {**data, "round": -2},
                {**auction, "offers": [{**offer, "from": 9}], "next_offer": 2},
                {**auction, "offers": [{**offer, "to": 0}], "next_offer": 2},
                {**auction, "offers": [{**offer, "cards": [missing]}], "next_offer": 2},
                {**data, "passes": [missing, None, None, None]}):
        try:
            FilmFantasyHand.load(bad)
        except GameError as exc:
            assert str(exc).startswith("Not a stored Film Fantasy hand")
        else:  # pragma: no cover
            raise AssertionError(f"loaded {bad!r}")
