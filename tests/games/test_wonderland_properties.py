"""Property tests: whole bot-played Wonderland hands over seeds and table sizes 2-6."""

import json
import random
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.base import GameError
from games.wonderland import PACK, WONDERLAND, WonderlandHand, bot_action, count, deals, legal_plays
from tests.view_strings import strings_in

SETTINGS = settings(max_examples=40, deadline=None)
CARDS = set(PACK)
# Keys of a view that may hold card codes seen by everyone at the table
PUBLIC = {"trick", "taken", "last_trick", "log", "result"}


def all_cards(h):
    return Counter([*h.stock, *(c for x in h.hands for c in x), *h.trick_cards, *(c for x in h.taken for c in x)])


def codes_in(obj, skip=()):
    return (s for s in strings_in(obj, skip) if s in CARDS)


def check_views(h):
    played = set(h.trick_cards) | {c for t in h.taken for c in t}
    for seat in [None, *range(h.players)]:
        v = h.view(seat)
        json.dumps(v)
        assert v["counts"] == [len(x) for x in h.hands]
        # cards outside the seat's own hand: only cards already played, and never undealt ones
        assert set(codes_in(v, {"hand", "legal", "pool_of_tears"})) <= played
        if seat is None:
            assert "hand" not in v and "legal" not in v
        else:
            assert Counter(v["hand"]) == Counter(h.hands[seat])
            assert set(v["legal"]) <= set(v["hand"])
        assert not set(codes_in(v, {"pool_of_tears"})) & set(h.stock)


def play(players, seed, kinds, check_every=True):
    rng = random.Random(seed)
    h = WonderlandHand.new(players, rng, dealer=rng.randrange(players))
    while not h.finished:
        seat = h.turn
        for other in range(players):
            if other != seat:
                assert bot_action(h, other, rng, kinds[other]) is None
        a = bot_action(h, seat, rng, kinds[seat])
        assert a["card"] in legal_plays(h.hands[seat], h.trick_cards)  # every card played was legal
        h.apply(seat, a)
        assert all_cards(h) == Counter(PACK)  # nothing created, lost or duplicated
        if check_every:
            check_views(h)
    return h


kinds_strategy = st.lists(st.sampled_from(["smart", "random"]), min_size=6, max_size=6)


@SETTINGS
@given(players=st.integers(2, 6), seed=st.integers(0, 2**32), kinds=kinds_strategy)
def test_bot_played_hand_conserves_cards_plays_legally_and_keeps_views_private(players, seed, kinds):
    h = play(players, seed, kinds)
    in_play = sum(deals(players)) * players
    assert h.ended_by == "played_out" and h.deal == len(deals(players))
    assert len(h.stock) == 52 - in_play  # the cards over stay unused, as deals says
    assert sum(len(t) for t in h.taken) == in_play and all(len(t) % players == 0 for t in h.taken)
    o = h.outcome()
    assert o.points == count(h.taken) and 0 <= o.mover < players
    assert o.points[o.mover] == max(o.points)
    assert sum(o.details["pairs"]) <= 16 and (o.details["pool_of_tears"] is None) == ("P16" in h.stock)
    check_views(h)
    assert WONDERLAND.outcome_from_summary(players, WONDERLAND.hand_summary(h)) == o


@settings(max_examples=150, deadline=None)
@given(players=st.integers(2, 6), seed=st.integers(0, 2**32), pool=st.sampled_from(["P16", "S16", "P1"]),
       stop_after=st.integers(0, 52))
def test_every_hand_played_or_stopped_is_taken_back_as_entered_with_cards(players, seed, pool, stop_after):
    """What a table counts after any hand (played out, or stopped by the bell after any card) is
    an entry the drive accepts, with the same points: the entry's checks of what is possible
    (cards by pairs, pairs between players, the Pool of Tears card) refuse no real hand."""
    rng = random.Random(seed)
    h = WonderlandHand.new(players, rng, dealer=rng.randrange(players), pool_of_tears=pool)
    for _ in range(stop_after):
        if h.finished:
            break
        h.apply(h.turn, bot_action(h, h.turn, rng, rng.choice(["smart", "random"])))
    if not h.finished:
        h.stop()
    game = type(WONDERLAND)(pool_of_tears=pool)
    assert game.outcome_from_summary(players, game.hand_summary(h)).points == h.outcome().points


@SETTINGS
@given(players=st.integers(2, 6), seed=st.integers(0, 2**32))
def test_every_deal_gives_what_deals_says(players, seed):
    rng = random.Random(seed)
    h = WonderlandHand.new(players, rng, dealer=rng.randrange(players))
    sizes = []
    while not h.finished:
        if not h.trick and all(len(x) == len(h.hands[0]) for x in h.hands) and len(sizes) < h.deal:
            sizes.append(len(h.hands[0]))
        h.apply(h.turn, bot_action(h, h.turn, rng, "random"))
    assert sizes == deals(players)


@SETTINGS
@given(players=st.integers(2, 6), seed=st.integers(0, 2**32), stop_after=st.integers(0, 55), stop=st.booleans())
def test_json_round_trip_is_exact_at_any_point(players, seed, stop_after, stop):
    rng = random.Random(seed)
    h = WONDERLAND.new_hand(players, rng)
    for _ in range(stop_after):
        if h.finished:
            break
        h.apply(h.turn, bot_action(h, h.turn, rng, rng.choice(["smart", "random"])))
    if stop and not h.finished:
        h.stop()
    data = json.loads(json.dumps(h.to_json()))
    again = WonderlandHand.load(data)
    assert again.to_json() == h.to_json() and again == h and again.version == h.version
    for seat in [None, *range(players)]:
        assert again.view(seat) == h.view(seat)
    if not h.finished:  # the stored copy goes on the same way
        a = bot_action(h, h.turn, random.Random(1), "smart")
        assert bot_action(again, again.turn, random.Random(1), "smart") == a
        h.apply(h.turn, a)
        again.apply(again.turn, a)
        assert again.to_json() == h.to_json()


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 8) | st.sampled_from(["P7", "S16", "N20", "X1", "", "play"]),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from(["type", "card", "zz"]), inner,
                                                                max_size=3),
    max_leaves=8,
)
actions = st.one_of(
    json_values,
    st.fixed_dictionaries({"type": st.sampled_from(["play", "pass", "nope"])},
                          optional={"card": st.one_of(st.sampled_from(PACK), json_values), "zz": json_values}),
)


@settings(max_examples=300, deadline=None)
@given(players=st.integers(2, 6), seed=st.integers(0, 2**16), warmup=st.integers(0, 55),
       seat=st.one_of(st.integers(-1, 7), json_values), action=actions)
def test_any_json_action_is_applied_or_refused_with_state_unchanged(players, seed, warmup, seat, action):
    rng = random.Random(seed)
    h = WonderlandHand.new(players, rng, dealer=seed % players)
    for _ in range(warmup):
        if h.finished:
            break
        h.apply(h.turn, bot_action(h, h.turn, rng, "random"))
    before = h.to_json()
    legal = legal_plays(h.hands[h.turn], h.trick_cards) if not h.finished else []
    try:
        h.apply(seat, action)
    except GameError:
        assert h.to_json() == before
    else:
        assert h.version == before["version"] + 1
        assert seat == before["turn"] and action["card"] in legal
    assert all_cards(h) == Counter(PACK)


def test_loading_something_that_is_not_a_stored_hand_is_refused():
    h = WONDERLAND.new_hand(4, random.Random(0))
    good = h.to_json()
    for bad in (None, {}, {**good, "game": "film-fantasy"}, {**good, "stock": good["stock"][1:]},
                {**good, "players": 9}, {**good, "hands": "x"}):
        try:
            WonderlandHand.load(bad)
        except GameError:
            pass
        else:  # pragma: no cover
            raise AssertionError(f"loaded {bad!r}")


def test_a_stored_hand_naming_seats_the_table_has_not_is_refused_not_played():
    """Found by review: a trick card from seat 99 loaded, and the next card crashed the engine
    (IndexError); a dealer of infinity raised OverflowError, not the game's refusal."""
    h = WONDERLAND.new_hand(4, random.Random(0))
    h.apply(h.turn, {"type": "play", "card": h.legal(h.turn)[0]})
    good = json.loads(json.dumps(h.to_json()))
    assert WonderlandHand.load(good) == h
    last = {"winner": 9, "trick": [], "cards": []}
    for bad in ({**good, "trick": [{**good["trick"][0], "seat": 99}]},
                {**good, "trick": [good["trick"][0], good["trick"][0]]},
                {**good, "leader": 42}, {**good, "version": -7}, {**good, "dealer": float("inf")},
                {**good, "last_trick": last}, {**good, "points": [0, 0, 0, 0]}):
        with pytest.raises(GameError, match="Not a stored Wonderland hand"):
            WonderlandHand.load(bad)
