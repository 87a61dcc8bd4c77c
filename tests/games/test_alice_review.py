"""Acceptance review of the Alice engine against docs/rules.md, "Alice", through the public API only.

Cases not already pinned by test_alice_rules.py / test_alice_properties.py. Positions are dealt with
``AliceHand.from_deck`` (directly, or through tests/games/alice_support.deal) and then played; no
state is edited by hand. Seats are numbered clockwise; "left" of seat i is seat i+1.
"""

import copy
import random

import pytest

from games.alice import PACK, AliceHand, GameError, deck

from .alice_support import deal


def act(h, seat, **action):
    v = h.version
    h.apply(seat, action)
    assert h.version == v + 1  # every accepted action bumps the version by exactly one


def ask(h, seat, to, card):
    act(h, seat, type="ask", to=to, card=card)


def take(h, seat, card):
    act(h, seat, type="take", card=card)


def public(h):
    return copy.deepcopy({k: getattr(h, k) for k in
                          ("turn", "hands", "row", "stock", "laid", "finished", "version", "answering", "pending")})


def refused(h, seat, action):
    before = public(h)
    with pytest.raises(GameError) as err:
        h.apply(seat, action)
    assert isinstance(err.value, ValueError) and str(err.value)
    assert public(h) == before
    return str(err.value)


# Three players, the dealer seat 2, so seat 0 begins.
S0 = ["A1", "A2", "B1", "C1", "D1", "E1", "F1"]
S1 = ["A3", "B2", "B3", "C2", "D2", "E2", "F2"]
S2 = ["A4", "B4", "C3", "D3", "E3", "F3", "G1"]
ROW = ["G2", "G3", "G4", "G5", "H1", "H2", "H3"]


def three(s0=S0, s1=S1, s2=S2, row=ROW, dealer=2):
    return deal(3, [list(s0), list(s1), list(s2)], row=row, dealer=dealer)


# ---------------------------------------------------------------- the deal
@pytest.mark.parametrize("players,dealer", [(2, 1), (3, 0), (4, 3), (5, 2), (6, 5), (6, 3)])
def test_deal_gives_one_card_at_a_time_from_the_dealers_left_in_deal_order(players, dealer):
    cards = list(PACK)  # in pack order no seat is dealt a whole set, at any table size
    kept = list(cards)
    h = AliceHand.from_deck(players, cards, dealer)
    size = 7 if players <= 4 else 5
    for k in range(players):
        seat = (dealer + 1 + k) % players
        assert h.hands[seat] == cards[k:size * players:players]
    assert h.row == cards[size * players:size * players + 7]
    assert h.stock == cards[size * players + 7:]
    assert h.turn == (dealer + 1) % players and h.laid == [[] for _ in range(players)]
    assert not h.finished and h.answering is None and h.version == 0
    assert cards == kept  # the caller's list is not consumed


def test_new_deals_the_seeded_shuffle_of_deck():
    a = AliceHand.new(5, random.Random(11), dealer=4)
    b = AliceHand.from_deck(5, deck(5, random.Random(11)), 4)
    assert (a.hands, a.row, a.stock, a.turn) == (b.hands, b.row, b.stock, b.turn) and a.turn == 0


@pytest.mark.parametrize("cards", [
    ["Z9" if c == "A1" else c for c in PACK],
    ["a1" if c == "A1" else c for c in PACK],
    ["CC" if c == "WR" else c for c in PACK],
    [[c] for c in PACK],
    tuple(PACK)[:43] + (None,),
    {c: 1 for c in PACK},
])
def test_from_deck_refuses_anything_but_the_44_card_pack_with_a_value_error(cards):
    with pytest.raises(ValueError):
        AliceHand.from_deck(3, cards)


@pytest.mark.parametrize("dealer", [-1, 4, True, "1", 1.0, None])
def test_from_deck_refuses_a_dealer_who_is_not_a_seat(dealer):
    with pytest.raises(ValueError):
        AliceHand.from_deck(4, list(PACK), dealer)


def test_the_dealers_left_begins_even_with_its_whole_hand_laid_in_the_deal_and_can_only_take():
    h = deal(5, [["A1", "A2", "A3", "A4", "A5"], ["B1", "B2", "B3", "C1", "C2"], ["B4", "C3", "D1", "D2", "D3"],
                 ["E1", "E2", "E3", "F1", "F2"], ["G1", "G2", "G3", "H1", "H2"]], dealer=4)
    assert h.laid[0] == ["A"] and h.hands[0] == [] and h.turn == 0
    assert h.may(0) == ["take"]
    refused(h, 0, {"type": "ask", "to": 1, "card": "B4"})
    # and a player with no cards at all may still be asked: the ask simply fails
    take(h, 0, h.row[0])
    ask(h, 1, 0, "B4")
    assert h.turn == 2


def test_sets_complete_in_the_deal_of_several_seats_are_all_laid():
    h = deal(4, [["B1", "B2", "B3", "B4", "B5", "WR", "A1"], ["C1", "C2", "C3", "C4", "C5", "CC", "A2"],
                 ["D1", "A3", "E1", "F1", "G1", "H1", "WR"], ["D2", "A4", "E2", "F2", "G2", "H2", "CC"]], dealer=1)
    assert h.laid == [["B"], ["C"], [], []]
    assert sorted(h.hands[0]) == ["A1", "WR"] and sorted(h.hands[1]) == ["A2", "CC"]
    assert h.turn == 2
    h.stop()
    assert h.outcome().mover == 1  # laid at the deal in seat order from the dealer's left: 2, 3, 0, 1


# ---------------------------------------------------------------- taking
def test_taking_a_special_card_from_the_row_lays_nothing_and_ends_the_turn():
    h = three(row=["CC", "G2", "G3", "G4", "G5", "H1", "H2"])
    take(h, 0, "CC")
    assert "CC" in h.hands[0] and h.laid == [[], [], []] and h.turn == 1
    assert len(h.row) == 7 and "CC" not in h.row


# ---------------------------------------------------------------- asking
def test_after_a_success_the_asker_may_ask_the_same_player_again():
    h = three()
    ask(h, 0, 1, "B2")
    ask(h, 0, 1, "B3")
    assert {"B2", "B3"} <= set(h.hands[0]) and h.turn == 0


def test_asking_for_a_card_that_lies_in_the_row_fails_and_passes_the_turn():
    h = three(s0=["A1", "A2", "B1", "C1", "D1", "E1", "G1"], s2=["A4", "B4", "C3", "D3", "E3", "F3", "F1"])
    ask(h, 0, 1, "G2")
    assert h.turn == 1 and "G2" in h.row and "G2" not in h.hands[0]


def test_a_card_given_after_the_rabbit_question_completes_a_set_at_once_and_the_asker_goes_on():
    h = three(s0=["A1", "A2", "A4", "A5", "B1", "C1", "D1"], s1=["A3", "B2", "B3", "C2", "D2", "E2", "WR"],
              s2=["E1", "B4", "C3", "D3", "E3", "F3", "G1"])
    ask(h, 0, 1, "A3")
    assert h.answering == 1
    act(h, 1, type="give")
    assert h.laid[0] == ["A"] and h.turn == 0 and h.answering is None and "WR" in h.hands[1]


def test_only_the_seat_that_holds_a_rabbit_is_asked_give_or_rabbit_a_cat_is_no_refusal():
    h = three(s1=["A3", "B2", "B3", "C2", "D2", "E2", "CC"])
    ask(h, 0, 1, "A3")
    assert h.answering is None and "A3" in h.hands[0] and h.turn == 0


def test_a_failed_asker_holding_only_a_rabbit_gets_no_cat_question():
    h = three(s0=["A1", "A2", "B1", "C1", "D1", "E1", "WR"])
    ask(h, 0, 2, "A3")
    assert h.answering is None and h.turn == 1 and "WR" in h.hands[0]


# ---------------------------------------------------------------- White Rabbit and Cheshire Cat
def test_a_rabbit_refusal_passes_the_turn_to_the_askers_left_not_the_refusers_left():
    h = deal(4, [["A1", "A2", "B1", "C1", "D1", "E1", "F1"], ["A3", "B2", "B3", "C2", "D2", "E2", "F2"],
                 ["A4", "B4", "C3", "D3", "E3", "WR", "G1"], ["A5", "B5", "C4", "D4", "E4", "F3", "G2"]], dealer=3)
    ask(h, 0, 2, "A4")
    assert h.turn == 0 and h.answering == 2
    act(h, 2, type="rabbit")
    assert h.turn == 1 and h.answering is None
    assert "A4" in h.hands[2] and "A4" not in h.hands[0] and "WR" not in h.hands[2]


def test_after_a_cat_the_asker_may_take_from_the_row_which_ends_the_turn():
    h = three(s0=["A1", "A2", "B1", "C1", "D1", "E1", "CC"])
    ask(h, 0, 2, "A3")
    act(h, 0, type="cat")
    assert h.may(0) == ["take", "ask"]
    take(h, 0, "G2")
    assert h.turn == 1 and "G2" in h.hands[0]


def test_after_a_cat_a_second_failure_without_another_cat_passes_the_turn_at_once():
    h = three(s0=["A1", "A2", "B1", "C1", "D1", "E1", "CC"])
    ask(h, 0, 2, "A3")
    act(h, 0, type="cat")
    ask(h, 0, 2, "B2")  # seat 1 holds it, not seat 2
    assert h.turn == 1 and h.answering is None and "CC" not in h.hands[0]


def test_a_rabbit_holder_may_refuse_again_on_a_later_turn_with_its_second_rabbit():
    h = three(s1=["A3", "B2", "B3", "C2", "D2", "WR", "WR"])
    ask(h, 0, 1, "A3")
    act(h, 1, type="rabbit")
    take(h, 1, "G2")
    ask(h, 2, 1, "B2")
    assert h.answering == 1
    act(h, 1, type="rabbit")
    assert h.turn == 0 and "WR" not in h.hands[1] and "B2" in h.hands[1]


# ---------------------------------------------------------------- answering out of turn
def test_while_an_ask_awaits_its_answer_nobody_else_acts_and_the_asked_seat_only_answers():
    h = three(s1=["A3", "B2", "B3", "C2", "D2", "E2", "WR"])
    ask(h, 0, 1, "A3")
    for seat in range(3):
        refused(h, seat, {"type": "take", "card": "G2"})
        refused(h, seat, {"type": "ask", "to": (seat + 1) % 3, "card": "B4"})
        refused(h, seat, {"type": "cat"})
        refused(h, seat, {"type": "pass"})
    for seat in (0, 2):
        refused(h, seat, {"type": "give"})
        refused(h, seat, {"type": "rabbit"})
    assert h.may(0) == [] and h.may(2) == [] and h.may(1) == ["give", "rabbit"]


def test_while_the_asker_chooses_about_its_cat_the_seat_asked_and_the_others_cannot_answer():
    h = three(s0=["A1", "A2", "B1", "C1", "D1", "E1", "CC"])
    ask(h, 0, 2, "A3")
    for seat in (1, 2):
        refused(h, seat, {"type": "cat"})
        refused(h, seat, {"type": "pass"})
        refused(h, seat, {"type": "timeout"})
    refused(h, 0, {"type": "rabbit"})


def test_every_answer_bumps_the_version_by_one():
    for answer, asked in (("give", 1), ("rabbit", 1), ("timeout", 1)):
        h = three(s1=["A3", "B2", "B3", "C2", "D2", "E2", "WR"])
        ask(h, 0, asked, "A3")
        act(h, asked, type=answer)
    for answer in ("cat", "pass", "timeout"):
        h = three(s0=["A1", "A2", "B1", "C1", "D1", "E1", "CC"])
        ask(h, 0, 2, "A3")
        act(h, 0, type=answer)


# ---------------------------------------------------------------- malformed actions
@pytest.mark.parametrize("seat,action", [
    (0, {"type": "ask", "to": 0, "card": "A3"}),      # asking yourself
    (0, {"type": "ask", "to": 3, "card": "A3"}),      # no such seat
    (0, {"type": "ask", "to": -1, "card": "A3"}),
    (0, {"type": "ask", "to": "1", "card": "A3"}),
    (0, {"type": "ask", "to": True, "card": "A3"}),
    (0, {"type": "ask", "to": 1.0, "card": "A3"}),
    (0, {"type": "ask", "to": None, "card": "A3"}),
    (0, {"type": "ask", "to": 1, "card": "a3"}),
    (0, {"type": "ask", "to": 1, "card": 3}),
    (0, {"type": "ask", "to": 1, "card": None}),
    (0, {"type": "ask", "to": 1, "card": ["A3"]}),
    (0, {"type": "ask", "to": 1, "card": "A6"}),
    (0, {"type": "ask", "card": "A3"}),
    (0, {"type": "ask", "to": 1}),
    (0, {"type": "ask", "to": 1, "card": "A3", "extra": 1}),
    (0, {"type": "take"}),
    (0, {"type": "take", "card": None}),
    (0, {"type": "take", "card": ["G2"]}),
    (0, {"type": "take", "card": "g2"}),
    (0, {"type": "take", "card": "G2", "to": 1}),
    (0, {"card": "G2"}),
    (0, {"type": None}),
    (0, {"type": ["take"]}),
    (0, {}),
    (0, None),
    (0, ["take", "G2"]),
    (0, {"type": "give", "card": "A1"}),
    (True, {"type": "take", "card": "G2"}),
    ("0", {"type": "take", "card": "G2"}),
    (None, {"type": "take", "card": "G2"}),
    (-1, {"type": "take", "card": "G2"}),
    (3, {"type": "take", "card": "G2"}),
    (1, {"type": "take", "card": "G2"}),              # out of turn
    (2, {"type": "ask", "to": 1, "card": "A3"}),      # out of turn
    (0, {"type": "timeout"}),                         # nothing awaited
])
def test_malformed_or_out_of_turn_actions_are_refused_with_the_state_unchanged(seat, action):
    refused(three(), seat, action)


def test_a_finished_hand_refuses_every_action_and_keeps_its_version():
    h = three(s0=["A1", "A2", "A3", "A4", "A5", "B1", "C1"], s1=["B2", "B3", "C2", "D2", "E2", "F2", "H4"],
              s2=["B4", "C3", "D3", "E3", "F3", "F4", "G1"])
    h.stop()
    assert h.finished and h.turn is None
    for seat in range(3):
        for action in ({"type": "take", "card": h.row[0]}, {"type": "ask", "to": (seat + 1) % 3, "card": "B5"},
                       {"type": "give"}, {"type": "rabbit"}, {"type": "cat"}, {"type": "pass"},
                       {"type": "timeout"}):
            refused(h, seat, action)


# ---------------------------------------------------------------- the mover
def test_with_no_set_laid_the_dealers_left_moves_up_wrapping_round_the_table():
    h = three(dealer=2)
    h.stop()
    assert h.outcome().mover == 0 and h.outcome().points == [0, 0, 0]


# ---------------------------------------------------------------- one hand played out at six players
# Six players, 5 cards each, dealer seat 5: seat 0 begins. The stock holds 7 cards.
SIX = [["A1", "A2", "A3", "A4", "B1"], ["C1", "C2", "C3", "C4", "WR"], ["D1", "D2", "D3", "D4", "B2"],
       ["E1", "E2", "E3", "E4", "B3"], ["F1", "F2", "F3", "F4", "B4"], ["G1", "G2", "G3", "G4", "H1"]]
SIX_ROW = ["A5", "C5", "D5", "E5", "F5", "G5", "CC"]
SIX_STOCK = ["H2", "H3", "H4", "H5", "WR", "CC", "B5"]
TAKES = [  # (seat, card taken, the row after it)
    (0, "A5", ["H2", "C5", "D5", "E5", "F5", "G5", "CC"]),
    (1, "C5", ["H2", "H3", "D5", "E5", "F5", "G5", "CC"]),
    (2, "D5", ["H2", "H3", "H4", "E5", "F5", "G5", "CC"]),
    (3, "E5", ["H2", "H3", "H4", "H5", "F5", "G5", "CC"]),
    (4, "F5", ["H2", "H3", "H4", "H5", "WR", "G5", "CC"]),
    (5, "G5", ["H2", "H3", "H4", "H5", "WR", "CC", "CC"]),
    (0, "H2", ["B5", "H3", "H4", "H5", "WR", "CC", "CC"]),  # the stock's last card
    (1, "WR", ["B5", "H3", "H4", "H5", "CC", "CC"]),        # stock empty: the row shrinks
    (2, "B5", ["H3", "H4", "H5", "CC", "CC"]),
    (3, "H3", ["H4", "H5", "CC", "CC"]),
    (4, "H4", ["H5", "CC", "CC"]),
    (5, "H5", ["CC", "CC"]),
    (0, "CC", ["CC"]),
    (1, "CC", []),
]


def six_with_empty_row():
    h = deal(6, [list(x) for x in SIX], row=SIX_ROW, stock=SIX_STOCK, dealer=5)
    assert h.turn == 0 and h.stock == SIX_STOCK
    for seat, card, row in TAKES:
        assert h.turn == seat
        take(h, seat, card)
        assert h.row == row
    assert h.stock == [] and h.version == len(TAKES)
    assert h.laid == [["A"], ["C"], ["D"], ["E"], ["F"], ["G"]]
    assert [sorted(x) for x in h.hands] == [["B1", "CC", "H2"], ["CC", "WR", "WR"], ["B2", "B5"],
                                            ["B3", "H3"], ["B4", "H4"], ["H1", "H5"]]
    return h


def test_the_row_is_refilled_in_place_from_the_stock_top_then_shrinks_until_empty():
    h = six_with_empty_row()
    assert h.turn == 2
    assert h.may(1) == [] and h.may(2) == ["ask"]
    refused(h, 2, {"type": "take", "card": "CC"})


def test_an_asker_left_with_no_set_card_and_an_empty_row_after_a_success_loses_the_turn():
    h = six_with_empty_row()
    ask(h, 2, 0, "B1")
    ask(h, 2, 3, "B3")
    assert h.turn == 2
    ask(h, 2, 4, "B4")  # completes B: laid at once, and seat 2 holds nothing more
    assert h.laid[2] == ["D", "B"] and h.hands[2] == []
    assert h.turn == 3 and not h.finished


def test_seats_that_can_do_nothing_are_skipped_and_the_hand_plays_out_to_the_mover():
    h = six_with_empty_row()
    for to, card in ((0, "B1"), (3, "B3"), (4, "B4")):
        ask(h, 2, to, card)
    ask(h, 3, 0, "H1")  # failed, no Cat: on to seat 4
    assert h.turn == 4
    ask(h, 4, 5, "H2")
    ask(h, 5, 4, "H2")
    assert h.turn == 0
    ask(h, 0, 2, "H1")  # seat 2 holds nothing; seat 0 holds a Cat and chooses
    assert h.answering == 0 and h.turn == 0
    act(h, 0, type="pass")
    # seat 1 (only special cards) and seat 2 (no cards) can do nothing with the row empty: skipped
    assert h.turn == 3
    refused(h, 1, {"type": "ask", "to": 3, "card": "H3"})
    for to, card in ((0, "H2"), (4, "H4"), (5, "H1")):
        ask(h, 3, to, card)
        assert h.turn == 3
    ask(h, 3, 5, "H5")  # the eighth set
    assert h.finished and h.turn is None and h.answering is None
    assert h.laid == [["A"], ["C"], ["D", "B"], ["E", "H"], ["F"], ["G"]]
    o = h.outcome()
    assert o.points == [5, 5, 10, 10, 5, 5]
    assert o.mover == 3  # tied with seat 2 on two sets; seat 3 laid one more recently
