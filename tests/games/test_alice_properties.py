"""Property tests for Alice: whole bot-played hands over seeds and table sizes 2-6."""

import json
import random
from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from games.alice import PACK, AliceHand, GameError, bot_action
from games.alice.cards import SET_CARDS
from games.alice.hand import ALL_LAID
from games.alice.simulate import play_hand

SETTINGS = settings(max_examples=30, deadline=None)
CODES = set(PACK)
# Log entries that name a card, and the keys that do: every one of them public at the table.
PUBLIC_CARDS = {"asked": {"card"}, "not_held": {"card"}, "handed": {"card"}, "rabbit": {"card"},
                "took": {"card", "filled"}}


def every_card(h):
    laid = [c for x in h.laid for s in x for c in SET_CARDS[s]]
    return Counter([*laid, *h.row, *h.stock, *h.played, *(c for x in h.hands for c in x)])


def strings_in(obj):
    if isinstance(obj, dict):
        for v in obj.values():
            yield from strings_in(v)
    elif isinstance(obj, list):
        for v in obj:
            yield from strings_in(v)
    elif isinstance(obj, str):
        yield obj


def check_views(h, rng):
    for seat in [None, *range(h.players)]:
        v = h.view(seat)
        json.dumps(v)
        assert v["game"] == "alice" and v["counts"] == [len(x) for x in h.hands]
        assert type(v["stock"]) is int and v["stock"] == len(h.stock)
        # Card codes only where the table sees them: own hand, the row, special cards played, the
        # pending ask, and the public log's entries (each naming cards asked, handed, refused, taken).
        rest = {k: x for k, x in v.items() if k not in ("hand", "row", "played", "pending", "log")}
        assert not [x for x in strings_in(rest) if x in CODES]
        for e in v["log"]:
            named = {k for k, x in e.items() if isinstance(x, str) and x in CODES}
            assert named <= PUBLIC_CARDS.get(e["type"], set()), e
        if seat is None:
            assert "hand" not in v
        else:
            assert v["hand"] == sorted(h.hands[seat])
            if h.pending is None and rng.random() < 0.1:
                # (a sample of the steps) The view cannot tell where the hidden cards are: deal them out again at random
                # among the other seats and the stock (same counts) and the view is the same.
                assert hidden_shuffled(h, seat, rng).view(seat) == v


def hidden_shuffled(h, seat, rng):
    other = AliceHand.load(h.to_json())
    holders = [x for s, x in enumerate(other.hands) if s != seat] + [other.stock]
    cards = [c for x in holders for c in x]
    rng.shuffle(cards)
    for x in holders:
        x[:] = [cards.pop() for _ in x]
    return other


def mover(h):
    return h.answering if h.answering is not None else h.turn


def play(players, seed, kinds, check=True, cap=200):
    rng = random.Random(seed)
    h = AliceHand.new(players, rng, dealer=seed % players)
    pack = Counter(PACK)
    steps = 0
    while not h.finished and steps < cap:
        seat = mover(h)
        for other in range(players):  # nobody else has anything to do now
            if other != seat:
                assert bot_action(h, other, rng, kinds[other]) is None
        a = bot_action(h, seat, rng, kinds[seat])
        v = h.version
        h.apply(seat, a)
        assert h.version == v + 1
        steps += 1
        assert every_card(h) == pack  # nothing created, lost or duplicated
        if check:
            check_views(h, rng)
    return h


@SETTINGS
@given(players=st.integers(2, 6), seed=st.integers(0, 2**32), mix=st.integers(0, 2**6))
def test_bot_played_hand_conserves_cards_and_keeps_views_private(players, seed, mix):
    kinds = ["smart" if mix >> s & 1 else "random" for s in range(players)]
    h = play(players, seed, kinds)
    if not h.finished:
        h.stop()
    o = h.outcome()
    assert o.points == [5 * len(x) for x in h.laid] and sum(o.details["sets"]) <= 8
    check_views(h, random.Random(seed))


def random_action(rng, players):
    kind = rng.choice(["take", "ask", "give", "rabbit", "cat", "pass", "timeout", "junk"])
    card = rng.choice([*PACK, "Z9", "", 7, None, ["A1"]])
    if kind == "take":
        return {"type": "take", "card": card}
    if kind == "ask":
        return {"type": "ask", "to": rng.choice([*range(-1, players + 1), True, "1"]), "card": card}
    if kind == "junk":
        return rng.choice([{}, {"type": "take"}, {"type": "give", "card": "A1"}, {"type": 3}, [], "give"])
    return {"type": kind}


@SETTINGS
@given(players=st.integers(2, 6), seed=st.integers(0, 2**32))
def test_any_action_is_applied_or_refused_with_the_state_unchanged(players, seed):
    rng = random.Random(seed)
    h = AliceHand.new(players, rng)
    pack = Counter(PACK)
    for _ in range(150):
        if h.finished:
            break
        seat = rng.choice([mover(h), mover(h), *range(players), players, -1, None])
        action = random_action(rng, players)
        before = h.to_json()
        try:
            h.apply(seat, action)
        except GameError as exc:
            assert isinstance(exc, ValueError) and str(exc)
            assert h.to_json() == before
        else:
            assert h.version == before["version"] + 1
            assert every_card(h) == pack
        if rng.random() < 0.3 and not h.finished:  # and keep the hand moving
            s = mover(h)
            h.apply(s, bot_action(h, s, rng, "random"))


@SETTINGS
@given(players=st.integers(2, 6), seed=st.integers(0, 2**32), stop_at=st.integers(0, 120))
def test_json_round_trip_is_exact_at_any_point(players, seed, stop_at):
    rng = random.Random(seed)
    h = AliceHand.new(players, rng)
    for _ in range(stop_at):
        if h.finished:
            break
        s = mover(h)
        h.apply(s, bot_action(h, s, rng, "random"))
        if h.answering is not None and rng.random() < 0.5:
            h.deadline = rng.random() * 1e9
    again = AliceHand.load(json.loads(json.dumps(h.to_json())))
    assert again == h and again.to_json() == h.to_json()
    for seat in [None, *range(players)]:
        assert again.view(seat) == h.view(seat)
    # the reloaded hand plays on exactly like the original
    if not h.finished:
        s = mover(h)
        a = bot_action(h, s, random.Random(seed), "smart")
        assert bot_action(again, s, random.Random(seed), "smart") == a
        h.apply(s, a)
        again.apply(s, a)
        assert again == h


@SETTINGS
@given(players=st.integers(2, 6), seed=st.integers(0, 2**32))
def test_every_hand_of_smart_bots_ends_with_all_sets_laid(players, seed):
    h, ended = play_hand(players, ["smart"] * players, random.Random(seed), turn_cap=10**6)
    assert ended == ALL_LAID and h.finished
    assert sorted(s for x in h.laid for s in x) == list("ABCDEFGH")
    assert sum(h.outcome().points) == 40
