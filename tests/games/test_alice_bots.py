"""Alice bots (docs/rules.md, "Alice", "Bots")."""

import json
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.alice import AliceHand, GameError, bot_action
from games.alice.simulate import CAPPED, parse_bots, report_lines, simulate

from .alice_support import deal

S0 = ["A1", "A2", "B1", "C1", "D1", "E1", "F1"]
S1 = ["A3", "B2", "B3", "C2", "D2", "E2", "F2"]
S2 = ["A4", "B4", "C3", "D3", "E3", "F3", "G1"]
ROW = ["G2", "G3", "G4", "G5", "H1", "H2", "H3"]


def three(s0=S0, s1=S1, s2=S2, row=ROW):
    return deal(3, [list(s0), list(s1), list(s2)], row=row, dealer=2)  # seat 0 begins


@settings(max_examples=25, deadline=None)
@given(players=st.integers(2, 6), seed=st.integers(0, 2**32), kind=st.sampled_from(["smart", "random"]))
def test_bots_return_only_legal_actions_and_only_for_the_seat_that_must_act(players, seed, kind):
    rng = random.Random(seed)
    h = AliceHand.new(players, rng)
    for _ in range(300):
        if h.finished:
            break
        acting = h.answering if h.answering is not None else h.turn
        for seat in range(players):
            if seat != acting:
                assert bot_action(h, seat, rng, kind) is None
        a = bot_action(h, acting, rng, kind)
        assert a["type"] in h.may(acting)
        h.apply(acting, a)  # a refusal would raise
    if not h.finished:
        h.stop()
    assert bot_action(h, 0, rng, kind) is None


def test_smart_asks_where_the_public_log_shows_a_card_is():
    h = three()
    h.apply(0, {"type": "take", "card": "G2"})  # everyone saw seat 0 take G2
    h.apply(1, {"type": "take", "card": "H1"})
    assert bot_action(h, 2, random.Random(0)) == {"type": "ask", "to": 0, "card": "G2"}


def test_smart_remembers_a_card_handed_over_and_a_card_refused_with_a_rabbit():
    h = three(s1=["A3", "B2", "B3", "C2", "D2", "E2", "WR"])
    h.apply(0, {"type": "ask", "to": 1, "card": "B2"})
    h.apply(1, {"type": "rabbit"})  # seat 1 holds B2: the table now knows it
    assert bot_action(h, 1, random.Random(0))["type"] in ("ask", "take")
    h.apply(1, {"type": "take", "card": "H1"})
    assert bot_action(h, 2, random.Random(0)) == {"type": "ask", "to": 1, "card": "B2"}


def test_smart_deduces_a_card_from_a_seat_that_must_still_hold_one_of_its_set():
    h = three(s2=["A4", "B4", "C3", "C4", "C5", "D3", "E3"])
    h.apply(0, {"type": "take", "card": "G2"})
    h.apply(1, {"type": "ask", "to": 0, "card": "C1"})  # seat 1 holds a C card, and now C1 too
    h.apply(1, {"type": "take", "card": "H1"})
    assert bot_action(h, 2, random.Random(0)) == {"type": "ask", "to": 1, "card": "C1"}
    h.apply(2, {"type": "ask", "to": 1, "card": "C1"})
    # Seat 1 still holds the C card it asked with; the only C card nobody has placed is C2.
    assert bot_action(h, 2, random.Random(0)) == {"type": "ask", "to": 1, "card": "C2"}


def test_smart_takes_a_row_card_of_a_set_it_holds_rather_than_guess():
    h = three(row=["H4", "A5", "G2", "G3", "G4", "G5", "H1"])
    assert bot_action(h, 0, random.Random(0)) == {"type": "take", "card": "A5"}


def test_smart_does_not_ask_a_seat_known_not_to_hold_the_card():
    h = three(s0=["A1", "A2", "A3", "A4", "B1", "C1", "WR"], s1=["B2", "B3", "C2", "D2", "E2", "F2", "D1"],
              s2=["A5", "B4", "C3", "D3", "E3", "F3", "G1"], row=ROW)
    h.apply(0, {"type": "ask", "to": 1, "card": "A5"})  # failed: seat 1 lacks A5
    h.apply(1, {"type": "take", "card": "H1"})
    h.apply(2, {"type": "take", "card": "H2"})
    # Seat 0's guess for A5: not seat 1 (known to lack it), so seat 2 or the row.
    a = bot_action(h, 0, random.Random(0))
    assert a != {"type": "ask", "to": 1, "card": "A5"}


def test_smart_refuses_with_a_rabbit_and_plays_a_cat_when_it_may():
    h = three(s0=["A1", "A2", "B1", "C1", "D1", "E1", "CC"], s1=["A3", "B2", "B3", "C2", "D2", "E2", "WR"])
    h.apply(0, {"type": "ask", "to": 2, "card": "A3"})
    assert bot_action(h, 0, random.Random(0)) == {"type": "cat"}
    assert bot_action(h, 1, random.Random(0)) is None
    h.apply(0, {"type": "cat"})
    h.apply(0, {"type": "take", "card": "G2"})
    h.apply(1, {"type": "take", "card": "G3"})
    h.apply(2, {"type": "ask", "to": 1, "card": "B2"})
    assert bot_action(h, 1, random.Random(0)) == {"type": "rabbit"}


def test_random_bot_answers_both_ways():
    h = three(s1=["A3", "B2", "B3", "C2", "D2", "E2", "WR"])
    h.apply(0, {"type": "ask", "to": 1, "card": "A3"})
    answers = {bot_action(h, 1, random.Random(k), "random")["type"] for k in range(30)}
    assert answers == {"give", "rabbit"}


def test_the_smart_memory_comes_from_the_log_so_a_stored_copy_decides_the_same():
    rng = random.Random(5)
    h = AliceHand.new(4, rng)
    for _ in range(25):
        if h.finished:
            break
        s = h.answering if h.answering is not None else h.turn
        h.apply(s, bot_action(h, s, rng, "smart"))
    again = AliceHand.load(json.loads(json.dumps(h.to_json())))
    s = h.answering if h.answering is not None else h.turn
    assert bot_action(again, s, random.Random(1)) == bot_action(h, s, random.Random(1))


def test_unknown_bots_are_refused():
    with pytest.raises(GameError, match="Unknown bot"):
        bot_action(three(), 0, random.Random(0), "genius")
    with pytest.raises(GameError, match="one bot per seat"):
        parse_bots("smart,random", 3)
    assert parse_bots("smart, random,smart", 3) == ["smart", "random", "smart"]


def test_smart_beats_random_clearly():
    r = simulate(4, 300, 11, "smart,random,smart,random", rotate=True)
    m = r.mean_by_bot()
    assert m["smart"] - m["random"] >= 8, m  # measured: about 17 points per seat per hand
    assert r.won_by_bot["smart"] > 0.9 * r.hands
    assert r.ended[CAPPED] == 0
    assert any("smart" in line for line in report_lines(r))


def test_a_turn_cap_stops_a_hand_that_goes_round_for_long():
    r = simulate(3, 5, 2, "random,random,random", turn_cap=3)
    assert r.ended[CAPPED] == 5 and sum(r.won_by_seat) == 5
