"""One example test per rule of docs/rules.md, "Alice" (shared/design/ALICE.md), named after the rule.

Hands are dealt with ``AliceHand.from_deck`` from hand-chosen packs (tests/games/alice_support.py).
Seats are numbered clockwise; "left" of seat i is seat i+1.
"""

import json
import random
import re
from collections import Counter

import pytest

from games.alice import ALICE, PACK, AliceHand, GameError, card_name, deck, hand_size
from games.alice.hand import ALL_LAID, STOPPED

from .alice_support import deal

# Three players, the dealer seat 2, so seat 0 begins.
S0 = ["A1", "A2", "B1", "C1", "D1", "E1", "F1"]
S1 = ["A3", "B2", "B3", "C2", "D2", "E2", "F2"]
S2 = ["A4", "B4", "C3", "D3", "E3", "F3", "G1"]
ROW = ["G2", "G3", "G4", "G5", "H1", "H2", "H3"]
ROW_F = ["G2", "G3", "G4", "G5", "F3", "F4", "F5"]  # for hands holding set H


def three(s0=S0, s1=S1, s2=S2, row=ROW, stock=(), dealer=2):
    return deal(3, [list(s0), list(s1), list(s2)], row=row, stock=stock, dealer=dealer)


def ask(h, seat, to, card):
    h.apply(seat, {"type": "ask", "to": to, "card": card})


def take(h, seat, card):
    h.apply(seat, {"type": "take", "card": card})


def kinds(h, since=0):
    return [e["type"] for e in h.log[since:]]


def refused(h, seat, action, *words):
    before = json.dumps(h.to_json(), sort_keys=True)
    with pytest.raises(GameError) as err:
        h.apply(seat, action)
    assert json.dumps(h.to_json(), sort_keys=True) == before
    for w in words:
        assert w in str(err.value)
    return str(err.value)


# ---------------------------------------------------------------- the pack
def test_pack_has_eight_sets_of_five_two_white_rabbits_and_two_cheshire_cats():
    assert len(PACK) == 44
    assert Counter(c[0] for c in PACK if c not in ("WR", "CC")) == {s: 5 for s in "ABCDEFGH"}
    assert PACK.count("WR") == 2 and PACK.count("CC") == 2


def test_card_codes_are_set_letter_and_number_white_rabbit_and_cheshire_cat():
    cards = deck(4, random.Random(3))
    assert sorted(cards) == sorted([f"{s}{n}" for s in "ABCDEFGH" for n in range(1, 6)] + ["WR", "WR", "CC", "CC"])
    assert deck(4, random.Random(3)) == cards  # seeded


def test_every_set_card_has_its_leaflet_title_and_card_one_is_alice():
    assert card_name("B3") == "B3 (The Dodo sails on a Toucan)"
    assert card_name("H5") == "H5 (Alice's sister wakes her)"
    assert all(card_name(f"{s}1") == f"{s}1 (Alice)" for s in "ABCDEFGH")
    assert (card_name("WR"), card_name("CC")) == ("a White Rabbit", "a Cheshire Cat")


# ---------------------------------------------------------------- the deal
@pytest.mark.parametrize("players,size", [(2, 7), (3, 7), (4, 7), (5, 5), (6, 5)])
def test_two_to_four_players_get_seven_cards_five_or_six_get_five(players, size):
    h = AliceHand.new(players, random.Random(players))
    assert hand_size(players) == size
    assert [len(x) + 5 * len(laid) for x, laid in zip(h.hands, h.laid)] == [size] * players
    assert len(h.row) == 7 and len(h.stock) == 44 - 7 - size * players


@pytest.mark.parametrize("players", [1, 7, 0, True, "4"])
def test_a_table_outside_two_to_six_players_is_refused(players):
    with pytest.raises(ValueError):
        deck(players, random.Random(0))
    with pytest.raises(ValueError):
        hand_size(players)
    with pytest.raises(GameError, match="2 to 6 players"):
        AliceHand.from_deck(players, list(PACK))


def test_the_deal_goes_one_card_at_a_time_from_the_dealers_left_then_seven_to_the_row_and_the_rest_is_the_stock():
    cards = deck(4, random.Random(9))
    h = AliceHand.from_deck(4, cards, dealer=1)
    for k, seat in enumerate([2, 3, 0, 1]):
        assert Counter(h.hands[seat] + [c for s in h.laid[seat] for c in PACK if c[0] == s and c[1:].isdigit()]) \
            == Counter(cards[k:28:4])
    assert h.row == cards[28:35]
    assert h.stock == cards[35:]


def test_only_the_44_card_pack_can_be_dealt():
    cards = list(PACK)
    for bad in (cards[:-1], cards + ["A1"], cards[:-1] + ["A1"], cards[:-1] + ["WR"], "".join(cards), None):
        with pytest.raises(GameError, match="44-card pack"):
            AliceHand.from_deck(3, bad)
    with pytest.raises(GameError, match="dealer"):
        AliceHand.from_deck(3, cards, dealer=3)


def test_a_complete_set_in_the_deal_is_laid_at_once():
    h = three(s0=["A1", "A2", "A3", "A4", "A5", "B1", "C1"], s1=["B2", "B3", "C2", "D1", "D2", "E1", "E2"],
              s2=["B4", "C3", "D3", "E3", "F3", "F4", "G1"])
    assert h.laid[0] == ["A"] and Counter(h.hands[0]) == Counter(["B1", "C1"])
    assert [e for e in h.log if e["type"] == "laid"] == [{"type": "laid", "seat": 0, "set": "A"}]


def test_the_player_on_the_dealers_left_begins():
    assert three(dealer=2).turn == 0
    assert three(dealer=0).turn == 1
    assert three(dealer=1).turn == 2


# ---------------------------------------------------------------- taking from the row
def test_taking_a_row_card_fills_its_place_from_the_top_of_the_stock_and_ends_the_turn():
    h = three(stock=["CC", "H4"])
    take(h, 0, "G4")
    assert "G4" in h.hands[0]
    assert h.row == ["G2", "G3", "CC", "G5", "H1", "H2", "H3"]  # the gap filled in place
    assert h.stock[0] == "H4" and h.turn == 1


def test_any_row_card_may_be_taken_a_special_card_or_a_set_the_player_does_not_hold():
    h = three(row=["WR", "H1", "G2", "G3", "G4", "G5", "H2"])
    take(h, 0, "WR")
    take(h, 1, "H1")
    assert "WR" in h.hands[0] and "H1" in h.hands[1]


def test_with_the_stock_empty_the_row_shrinks():
    h = three()
    h.hands[2] += h.stock  # a test shortcut: the stock is used up
    h.stock = []
    take(h, 0, "G3")
    assert h.row == ["G2", "G4", "G5", "H1", "H2", "H3"]


def test_a_card_not_in_the_row_cannot_be_taken():
    refused(three(), 0, {"type": "take", "card": "A5"}, "not in the row")


# ---------------------------------------------------------------- asking
def test_the_asker_must_hold_a_card_of_the_set_and_not_the_card_asked_for():
    h = three()
    refused(h, 0, {"type": "ask", "to": 1, "card": "H4"}, "only while you hold a card of set H")
    refused(h, 0, {"type": "ask", "to": 1, "card": "A2"}, "You hold A2")
    refused(h, 0, {"type": "ask", "to": 0, "card": "A3"}, "You cannot ask yourself")
    refused(h, 0, {"type": "ask", "to": 1, "card": "Z9"}, "no card")


def test_white_rabbits_and_cheshire_cats_cannot_be_asked_for():
    h = three(s1=["WR", "CC", "B3", "C2", "D2", "E2", "F2"])
    refused(h, 0, {"type": "ask", "to": 1, "card": "WR"}, "cannot be asked for")
    refused(h, 0, {"type": "ask", "to": 1, "card": "CC"}, "cannot be asked for")


def test_only_the_seat_whose_turn_it_is_asks_or_takes():
    h = three()
    refused(h, 1, {"type": "ask", "to": 2, "card": "A4"}, "not your turn", "seat 1 is to play")  # seat 0, counted from 1
    refused(h, 2, {"type": "take", "card": "G2"}, "not your turn")


def test_a_card_handed_over_lets_the_asker_ask_again_anyone_or_take_from_the_row():
    h = three()
    ask(h, 0, 1, "A3")  # seat 1 holds A3 and no Rabbit: it passes at once
    assert "A3" in h.hands[0] and "A3" not in h.hands[1]
    assert h.turn == 0 and h.pending is None
    ask(h, 0, 2, "A4")  # anyone: another seat
    assert h.turn == 0
    take(h, 0, "G2")  # or the row, which ends the turn
    assert h.turn == 1


def test_after_a_card_handed_over_an_asker_who_can_do_neither_loses_the_turn():
    # Seat 0's last set cards make a set with the card handed over; the row is empty.
    h = three(s0=["A1", "A2", "A3", "A4", "WR", "CC", "WR"], s1=["A5", "B2", "B3", "C2", "D2", "E2", "F2"],
              s2=["B4", "C3", "D3", "E3", "F3", "G1", "CC"])
    h.hands[2] += h.row + h.stock  # a test shortcut: row and stock used up
    h.row, h.stock = [], []
    ask(h, 0, 1, "A5")
    assert h.laid[0] == ["A"] and h.hands[0] == ["WR", "CC", "WR"]
    assert h.turn == 1


def test_an_ask_for_a_card_the_other_does_not_hold_passes_the_turn_to_the_left():
    h = three()
    ask(h, 0, 2, "A3")  # seat 1 holds it, not seat 2
    assert h.turn == 1 and h.pending is None
    assert kinds(h)[-3:] == ["asked", "not_held", "turn"]


def test_a_seat_asked_that_holds_the_card_and_no_rabbit_hands_it_over_at_once():
    h = three()
    ask(h, 0, 1, "B2")
    assert h.pending is None and h.waiting_for() is None and "B2" in h.hands[0]
    assert {"type": "handed", "seat": 1, "to": 0, "card": "B2"} in h.log


def test_a_white_rabbit_lets_the_seat_asked_refuse_a_card_it_holds():
    h = three(s1=["A3", "B2", "B3", "C2", "D2", "E2", "WR"])
    ask(h, 0, 1, "A3")
    assert h.turn == 0 and h.answering == 1 and h.waiting_for() == 1
    assert h.pending == {"decision": "give", "asker": 0, "to": 1, "card": "A3"}
    assert h.may(1) == ["give", "rabbit"] and h.may(0) == []
    h.apply(1, {"type": "give"})
    assert "A3" in h.hands[0] and h.turn == 0 and h.pending is None


def test_white_rabbit_refuses_and_the_turn_passes_to_the_askers_left():
    h = three(s2=["A4", "B4", "C3", "D3", "E3", "WR", "G1"], dealer=0)  # seat 1 begins
    ask(h, 1, 2, "A4")
    h.apply(2, {"type": "rabbit"})
    assert "A4" in h.hands[2] and "WR" not in h.hands[2]
    assert h.turn == 2  # the asker's left
    assert {"type": "rabbit", "seat": 2, "asker": 1, "card": "A4"} in h.log


def test_only_a_seat_that_holds_the_card_asked_for_may_refuse_with_a_rabbit():
    h = three(s1=["WR", "B2", "B3", "C2", "D2", "E2", "F2"])
    ask(h, 0, 1, "A3")  # seat 1 does not hold A3: no Rabbit question
    assert h.pending is None and h.turn == 1 and "WR" in h.hands[1]


def test_a_cheshire_cat_after_a_failed_ask_lets_the_asker_go_on():
    h = three(s0=["A1", "A2", "B1", "C1", "D1", "E1", "CC"])
    ask(h, 0, 2, "A3")
    assert h.turn == 0 and h.answering == 0
    assert h.pending == {"decision": "cat", "asker": 0, "to": 2, "card": "A3"}
    h.apply(0, {"type": "cat"})
    assert h.turn == 0 and h.pending is None and "CC" not in h.hands[0] and h.played == ["CC"]
    ask(h, 0, 1, "A3")  # goes on as after a success
    assert "A3" in h.hands[0] and h.turn == 0


def test_the_asker_may_let_the_turn_pass_instead_of_playing_a_cat():
    h = three(s0=["A1", "A2", "B1", "C1", "D1", "E1", "CC"])
    ask(h, 0, 2, "A3")
    h.apply(0, {"type": "pass"})
    assert h.turn == 1 and "CC" in h.hands[0]


def test_a_failed_asker_holding_a_cat_may_only_play_it_or_let_the_turn_pass():
    h = three(s0=["A1", "A2", "B1", "C1", "D1", "E1", "CC"])
    ask(h, 0, 2, "A3")
    assert h.may(0) == ["cat", "pass"]
    refused(h, 0, {"type": "take", "card": "G2"}, "must first answer", "Cheshire Cat")
    refused(h, 0, {"type": "ask", "to": 1, "card": "A3"}, "must first answer")
    refused(h, 1, {"type": "cat"}, "Only seat 1 can answer")  # seat 0, counted from 1
    refused(h, 0, {"type": "give"}, "Nobody is waiting for you")


def test_without_a_cat_it_may_play_the_turn_passes_at_once():
    h = three()
    ask(h, 0, 2, "A3")
    assert h.pending is None and h.turn == 1


def test_a_second_cat_in_the_same_turn_is_allowed():
    h = three(s0=["A1", "A2", "B1", "C1", "D1", "CC", "CC"])
    ask(h, 0, 2, "A3")
    h.apply(0, {"type": "cat"})
    ask(h, 0, 2, "B2")
    assert h.answering == 0
    h.apply(0, {"type": "cat"})
    assert h.turn == 0 and h.played == ["CC", "CC"]


def test_no_cat_after_a_rabbit_in_the_same_turn():
    # The asker holds a Cat, but a Rabbit refused it: the turn passes, no Cat question.
    h = three(s0=["A1", "A2", "B1", "C1", "D1", "E1", "CC"], s1=["A3", "B2", "B3", "C2", "D2", "E2", "WR"])
    ask(h, 0, 1, "A3")
    h.apply(1, {"type": "rabbit"})
    assert h.turn == 1 and h.pending is None and "CC" in h.hands[0]
    assert "cat" not in kinds(h)


def test_no_rabbit_after_a_cat_in_the_same_turn():
    # After seat 0's Cat, seat 1 holds the card and a Rabbit but may not refuse: it passes at once.
    h = three(s0=["A1", "A2", "B1", "C1", "D1", "E1", "CC"], s1=["A3", "B2", "B3", "C2", "D2", "E2", "WR"])
    ask(h, 0, 2, "A3")
    h.apply(0, {"type": "cat"})
    ask(h, 0, 1, "A3")
    assert h.pending is None and "A3" in h.hands[0] and "WR" in h.hands[1]
    refused(h, 1, {"type": "rabbit"}, "Nobody is waiting")


def test_the_rabbit_and_cat_limits_last_one_turn_only():
    h = three(s0=["A1", "A2", "B1", "C1", "D1", "E1", "CC"], s1=["A3", "B2", "B3", "C2", "D2", "E2", "WR"])
    ask(h, 0, 2, "A5")
    h.apply(0, {"type": "cat"})
    take(h, 0, "G2")  # next turn: seat 1 asks seat 2, who holds nothing it asks for
    take(h, 1, "G3")
    ask(h, 2, 1, "B2")  # seat 1 may refuse again: a new turn
    assert h.answering == 1 and h.may(1) == ["give", "rabbit"]


def test_played_special_cards_stay_out_of_play_until_the_next_hand():
    h = three(s0=["A1", "A2", "B1", "C1", "D1", "E1", "CC"], s1=["A3", "B2", "B3", "C2", "D2", "E2", "WR"])
    ask(h, 0, 2, "A5")
    h.apply(0, {"type": "cat"})
    assert h.played == ["CC"] and "CC" not in h.hands[0]
    assert [c for x in [*h.hands, h.row, h.stock] for c in x].count("CC") == 1  # the other Cat
    take(h, 0, "G2")
    assert h.played == ["CC"] and h.view(None)["played"] == ["CC"]


def test_a_player_with_no_set_cards_can_only_take_from_the_row():
    h = three(s0=["A1", "A2", "A3", "A4", "A5", "WR", "CC"], s1=["B1", "B2", "B3", "B4", "B5", "C1", "C2"],
              s2=["D1", "D2", "D3", "E1", "E2", "E3", "G1"])
    assert h.laid[0] == ["A"] and h.turn == 0
    assert h.may(0) == ["take"]
    refused(h, 0, {"type": "ask", "to": 1, "card": "C3"}, "only while you hold a card of set C")
    take(h, 0, "G2")
    assert h.turn == 1


def test_a_player_who_can_do_nothing_is_skipped():
    # Row and stock used up; seat 1 holds only special cards.
    h2 = three(s1=["WR", "WR", "CC", "CC", "B2", "B3", "C2"])
    h2.hands[1] = ["WR", "WR", "CC", "CC"]
    h2.hands[2] += ["B2", "B3", "C2"] + h2.row + h2.stock
    h2.row, h2.stock = [], []
    ask(h2, 0, 1, "A3")  # failed: seat 1 is skipped, seat 2 plays
    assert h2.turn == 2
    assert kinds(h2)[-3:] == ["not_held", "skipped", "turn"]
    assert h2.log[-2] == {"type": "skipped", "seat": 1}
    assert h2.may(1) == []


def test_the_turn_stays_the_askers_while_the_seat_asked_decides():
    h = three(s1=["A3", "B2", "B3", "C2", "D2", "E2", "WR"])
    ask(h, 0, 1, "A3")
    assert h.turn == 0 and h.answering == 1
    v = h.view(2)
    assert v["turn"] == 0 and v["answering"] == 1 and v["pending"]["card"] == "A3"
    refused(h, 0, {"type": "take", "card": "G2"}, "seat 2 must first answer", "to you")  # seat 1, counted from 1
    refused(h, 2, {"type": "give"}, "Only seat 2")


def test_the_seat_asked_hands_the_card_over_when_its_time_runs_out():
    h = three(s1=["A3", "B2", "B3", "C2", "D2", "E2", "WR"])
    ask(h, 0, 1, "A3")
    h.deadline = 1000.0  # the server's clock, opaque to the engine
    assert AliceHand.load(json.loads(json.dumps(h.to_json()))).deadline == 1000.0
    refused(h, 0, {"type": "timeout"}, "Only seat 2")
    h.apply(1, {"type": "timeout"})
    assert "A3" in h.hands[0] and h.turn == 0 and h.deadline is None
    assert kinds(h)[-2:] == ["timeout", "handed"]


def test_the_askers_cat_choice_lets_the_turn_pass_when_its_time_runs_out():
    h = three(s0=["A1", "A2", "B1", "C1", "D1", "E1", "CC"])
    ask(h, 0, 2, "A3")
    h.deadline = 5.5
    assert h.waiting_for() == 0
    h.apply(0, {"type": "timeout"})
    assert h.turn == 1 and "CC" in h.hands[0] and h.deadline is None and h.waiting_for() is None
    refused(h, 1, {"type": "timeout"}, "Nobody's answer")


def test_a_decision_answered_in_time_clears_the_deadline():
    h = three(s1=["A3", "B2", "B3", "C2", "D2", "E2", "WR"])
    ask(h, 0, 1, "A3")
    h.deadline = 12.0
    h.apply(1, {"type": "rabbit"})
    assert h.deadline is None


# ---------------------------------------------------------------- laying sets
def test_a_set_completed_during_play_is_laid_the_moment_it_is_held():
    h = three(s0=["A1", "A2", "A3", "A4", "B1", "C1", "D1"], s1=["A5", "B2", "B3", "C2", "D2", "E2", "F2"],
              s2=["E1", "B4", "C3", "D3", "E3", "F3", "G1"])
    ask(h, 0, 1, "A5")
    assert h.laid[0] == ["A"] and not [c for c in h.hands[0] if c.startswith("A")]
    assert h.log[-1] == {"type": "laid", "seat": 0, "set": "A"}
    assert h.turn == 0  # the asker goes on


def test_a_set_completed_from_the_row_is_laid_too():
    h = three(s0=["G1", "G2", "G3", "G4", "B1", "C1", "D1"], s2=["A4", "B4", "C3", "D3", "E3", "F3", "A1"],
              row=["G5", "H1", "H2", "H3", "H4", "H5", "A5"])
    take(h, 0, "G5")
    assert h.laid[0] == ["G"]


# ---------------------------------------------------------------- end and scoring
def _nearly_over():
    """Seven sets laid in the deal of two... built by hand: seat 0 lacks A5, held by seat 1."""
    h = deal(2, [["A1", "A2", "A3", "A4", "B1", "C1", "D1"], ["A5", "B2", "C2", "D2", "E1", "F1", "G1"]], dealer=1)
    # A test shortcut: every other set already laid (seat 0 six, seat 1 one), in this order.
    for s in "BCDEFGH":
        seat = 1 if s == "H" else 0
        for c in [f"{s}{n}" for n in range(1, 6)]:
            for where in (h.hands[0], h.hands[1], h.row, h.stock):
                if c in where:
                    where.remove(c)
        h.laid[seat].append(s)
        h.lay_order.append(seat)
    return h


def test_the_hand_ends_when_all_eight_sets_are_laid():
    h = _nearly_over()
    ask(h, 0, 1, "A5")
    assert h.finished and h.ended_by == ALL_LAID and h.turn is None
    assert h.laid == [["B", "C", "D", "E", "F", "G", "A"], ["H"]]
    refused(h, 1, {"type": "take", "card": h.row[0] if h.row else "WR"}, "over")


def test_each_set_laid_scores_five():
    h = _nearly_over()
    ask(h, 0, 1, "A5")
    assert h.outcome().points == [35, 5]
    assert h.outcome().details["sets"] == [7, 1]


def test_the_organisers_bell_ends_the_hand_and_the_sets_laid_so_far_count():
    h = three(s0=["A1", "A2", "A3", "A4", "A5", "B1", "C1"], s1=["B2", "B3", "C2", "D2", "E2", "F2", "H4"],
              s2=["B4", "C3", "D3", "E3", "F3", "F4", "G1"])
    h.stop()
    assert h.finished and h.ended_by == STOPPED and h.turn is None
    assert h.outcome().points == [5, 0, 0]
    with pytest.raises(GameError):
        h.stop()


def test_the_player_with_the_most_sets_moves_up():
    h = _nearly_over()
    ask(h, 0, 1, "A5")
    o = h.outcome()
    assert o.mover == 0 and o.winner == 0


def test_a_tie_for_most_sets_goes_to_the_tied_player_who_laid_a_set_most_recently():
    h = three(s0=["A1", "A2", "A3", "A4", "B1", "C1", "D1"], s1=["A5", "B2", "B3", "C2", "D2", "E2", "F2"],
              s2=["H1", "H2", "H3", "H4", "H5", "E3", "G1"], row=ROW_F)  # seat 2 lays H in the deal
    ask(h, 0, 1, "A5")  # seat 0 lays A later
    h.stop()
    assert h.outcome().mover == 0
    h = three(s0=["A1", "A2", "A3", "A4", "A5", "C1", "D1"], s2=["H1", "H2", "H3", "H4", "H5", "E3", "G1"],
              s1=["B1", "B2", "B3", "C2", "D2", "E2", "F2"], row=ROW_F)
    h.stop()  # both in the deal, seat 0 (dealer's left) first, so seat 2 laid last
    assert h.outcome().mover == 2


def test_sets_complete_in_the_deal_count_as_laid_at_the_deal_in_seat_order_from_the_dealers_left():
    s0 = ["A1", "A2", "A3", "A4", "A5", "C1", "D1"]
    s2 = ["H1", "H2", "H3", "H4", "H5", "E3", "G1"]
    s1 = ["B1", "B2", "B3", "C2", "D2", "E2", "F2"]
    h = three(s0, s1, s2, row=ROW_F, dealer=1)  # seat 2 first, then seat 0: seat 0 laid last
    assert h.lay_order == [2, 0]
    h.stop()
    assert h.outcome().mover == 0
    h = three(s0, s1, s2, row=ROW_F, dealer=2)  # seat 0 first, then seat 2
    assert h.lay_order == [0, 2]


def test_with_no_set_laid_the_dealers_left_moves_up():
    h = three(dealer=1)
    h.stop()
    assert h.outcome().mover == 2 and h.outcome().points == [0, 0, 0]


def test_the_outcome_is_only_for_a_finished_hand():
    with pytest.raises(GameError, match="not over"):
        three().outcome()


# ---------------------------------------------------------------- the dealer and digital play
def test_on_the_phones_the_drive_draws_the_dealer_seeded_and_logged():
    a = ALICE.new_hand(5, random.Random("drive-1-1"))
    b = ALICE.new_hand(5, random.Random("drive-1-1"))
    assert a == b
    assert a.log[0]["type"] == "deal" and a.log[0]["dealer"] == a.dealer
    assert a.view(None)["dealer"] == a.dealer
    assert len({ALICE.new_hand(4, random.Random(k)).dealer for k in range(40)}) == 4


def test_a_refused_action_says_why_and_changes_nothing():
    h = three()
    refused(h, 0, {"type": "ask", "to": 1}, "missing ['card']")
    refused(h, 0, {"type": "dance"}, "Unknown action")
    refused(h, 0, "take", "object")
    refused(h, 9, {"type": "take", "card": "G2"}, "not at this table")
    refused(h, 0, {"type": "give"}, "Nobody is waiting")
    refused(h, 0, {"type": "cat"}, "no failed ask")


def test_refusals_number_seats_as_the_players_do_from_one():
    """Found by QA: "Ask another seat from 0 to 3, not 0.": the engine's seats, counted from 0,
    in a message for a player. Refusals say "you" or number seats from 1, as players count them."""
    h = deal(4, [["A1", "A2", "B1", "C1", "D1", "E1", "F1"], ["A3", "B2", "B3", "C2", "D2", "E2", "WR"],
                 ["A4", "B4", "C3", "D3", "E3", "F3", "G1"], ["A5", "B5", "C4", "D4", "E4", "F4", "F5"]],
             row=ROW, dealer=3)  # seat 0 (the players' seat 1) begins
    assert refused(h, 0, {"type": "ask", "to": 0, "card": "A3"}) == "You cannot ask yourself: ask another player."
    assert "0" not in refused(h, 0, {"type": "ask", "to": 4, "card": "A3"})
    assert refused(h, 2, {"type": "take", "card": "G2"}) == "It is not your turn: seat 1 is to play."
    ask(h, 0, 1, "A3")  # seat 1 holds A3 and a White Rabbit: it chooses
    assert refused(h, 0, {"type": "take", "card": "G2"}) == (
        f"Wait: seat 2 must first answer whether to hand {card_name('A3')} to you.")
    assert refused(h, 2, {"type": "take", "card": "G2"}) == (
        f"Wait: seat 2 must first answer whether to hand {card_name('A3')} to seat 1.")
    assert refused(h, 3, {"type": "give"}) == "Only seat 2 can answer this (give is not yours to choose)."
    assert refused(h, 3, {"type": "timeout"}) == "Only seat 2's time can run out now."


def test_no_refusal_counts_seats_from_zero():
    """Every refusal met while bots play whole hands, with every action from every seat tried
    at each step: none names a seat counted from 0 ("seat 0", "from 0"), each starts with a capital."""
    seen = set()
    for seed in range(6):
        rng = random.Random(seed)
        h = ALICE.new_hand(3 + seed % 3, rng)
        while not h.finished:
            n = h.players
            tries = [{"type": "ask", "to": to, "card": c} for to in range(-1, n + 1) for c in ("A1", "H5")]
            tries += [{"type": t} for t in ("give", "rabbit", "cat", "pass", "timeout")]
            tries += [{"type": "take", "card": "A1"}]
            for seat in range(n):
                for action in tries:
                    try:
                        AliceHand.load(h.to_json()).apply(seat, action)
                    except GameError as err:
                        seen.add(str(err))
            seat = next(s for s in range(n) if ALICE.bot_action(h, s, rng) is not None)
            h.apply(seat, ALICE.bot_action(h, seat, rng))
    assert len(seen) > 5
    for message in seen:
        assert message[0].isupper(), message
        assert not re.search(r"\b[Ss]eats? 0\b|from 0\b", message), message


def test_every_accepted_action_bumps_the_version():
    h = three()
    v = h.version
    take(h, 0, "G2")
    assert h.version == v + 1


def test_a_view_shows_only_the_seats_own_cards_and_the_stock_as_a_count():
    h = three(stock=["WR"])
    v = h.view(1)
    assert v["game"] == "alice" and v["hand"] == sorted(S1)
    assert v["counts"] == [7, 7, 7] and v["stock"] == len(h.stock) and isinstance(v["stock"], int)
    assert v["row"] == ROW and v["turn"] == 0 and v["may"] == []
    assert "hand" not in h.view(None) and "hands" not in v
    assert h.view(0)["may"] == ["take", "ask"]


def test_the_public_log_tells_who_asked_whom_for_what_and_what_followed():
    h = three(s0=["A1", "A2", "B1", "C1", "D1", "E1", "CC"], s1=["A3", "B2", "B3", "C2", "D2", "E2", "WR"])
    ask(h, 0, 2, "A5")
    h.apply(0, {"type": "cat"})
    ask(h, 0, 1, "B2")
    take(h, 0, "G2")
    log = h.view(None)["log"]
    assert {"type": "asked", "seat": 0, "to": 2, "card": "A5"} in log
    assert {"type": "not_held", "seat": 2, "card": "A5"} in log
    assert {"type": "cat", "seat": 0} in log
    assert {"type": "handed", "seat": 1, "to": 0, "card": "B2"} in log
    assert {"type": "took", "seat": 0, "card": "G2", "filled": h.row[0]} in log
    assert log[-1] == {"type": "turn", "seat": 1}


def test_a_finished_view_shows_the_points_and_the_mover():
    h = three(s0=["A1", "A2", "A3", "A4", "A5", "B1", "C1"], s1=["B2", "B3", "C2", "D2", "E2", "F2", "H4"],
              s2=["B4", "C3", "D3", "E3", "F3", "F4", "G1"])
    h.stop()
    v = h.view(2)
    assert v["finished"] and v["points"] == [5, 0, 0] and v["mover"] == 0 and v["ended_by"] == STOPPED


def test_a_stored_hand_loads_back_exactly():
    h = three(s1=["A3", "B2", "B3", "C2", "D2", "E2", "WR"])
    ask(h, 0, 1, "A3")
    data = json.loads(json.dumps(h.to_json()))
    assert data["game"] == "alice"
    again = AliceHand.load(data)
    assert again == h and again.to_json() == h.to_json()
    with pytest.raises(GameError):
        AliceHand.load({**data, "game": "film-fantasy"})
    with pytest.raises(GameError):
        AliceHand.load({**data, "stock": data["stock"] + ["A1"]})


# ---------------------------------------------------------------- a hand played with cards
def entry(dealer=0, sets=(0, 0, 0), last_set=None):
    return {"dealer": dealer, "last_set": last_set, "holdings": [{"sets": k} for k in sets]}


def test_the_game_object_describes_alice_and_its_one_house_rule_is_the_time_to_answer():
    assert (ALICE.slug, ALICE.name, ALICE.min_players, ALICE.max_players) == ("alice", "Alice", 2, 6)
    assert ALICE.with_rules({}) is ALICE
    assert ALICE.rules() == {"answer_seconds": "20"}
    with pytest.raises(GameError, match="Unknown house rule"):
        ALICE.with_rules({"declarer_joker_penalty": True})
    with pytest.raises(GameError, match="one of 10 .*not '15'"):
        ALICE.with_rules({"answer_seconds": "15"})
    h = ALICE.load_hand(ALICE.new_hand(3, random.Random(1)).to_json())
    assert ALICE.bot_action(h, h.turn, random.Random(0)) is not None
    assert h.answer_seconds == 20
    quick = ALICE.with_rules({"answer_seconds": "10"})
    assert ALICE.load_hand(quick.new_hand(3, random.Random(1)).to_json()).answer_seconds == 10


def test_the_server_is_told_which_answer_it_times_and_what_it_sends_when_time_runs_out():
    h = three(s1=["A3", "B2", "B3", "C2", "D2", "E2", "WR"])
    assert ALICE.awaited(h) is None
    ask(h, 0, 1, "A3")
    awaited = ALICE.awaited(h)
    assert (awaited.seat, awaited.seconds, awaited.action) == (1, 20, {"type": "timeout"})
    h.apply(1, {"type": "give"})
    assert ALICE.awaited(h) is None


def test_a_hand_stored_before_the_time_to_answer_was_kept_loads_with_the_default():
    data = ALICE.new_hand(3, random.Random(2)).to_json()
    del data["answer_seconds"]
    assert AliceHand.load(data).answer_seconds == 20
    with pytest.raises(GameError, match="answer time"):
        AliceHand.load({**data, "answer_seconds": -1})


def test_entering_a_hand_played_with_cards_asks_who_dealt_the_sets_each_laid_and_who_laid_last_when_tied():
    spec = ALICE.entry_spec(4)
    assert [f["name"] for f in spec["table"]] == ["dealer", "last_set"]
    dealer, last = spec["table"]
    assert dealer["type"] == "seat" and "default" not in dealer and not dealer.get("optional")
    assert last["type"] == "seat" and last["optional"]
    assert [f["name"] for f in spec["seat"]] == ["sets"]
    assert [c[0] for c in spec["seat"][0]["choices"]] == list(range(9))


def test_an_entered_hand_scores_five_a_set_and_the_most_sets_moves_up():
    o = ALICE.outcome_from_summary(3, entry(0, (3, 1, 4)))
    assert o.points == [15, 5, 20] and o.mover == 2 and o.details == {"sets": [3, 1, 4]}


def test_an_entered_tie_moves_the_tied_player_who_laid_a_set_last_and_no_set_the_dealers_left():
    assert ALICE.outcome_from_summary(3, entry(0, (3, 3, 2), last_set=1)).mover == 1
    assert ALICE.outcome_from_summary(3, entry(1, (0, 0, 0))).mover == 2
    assert ALICE.outcome_from_summary(3, entry(2, (0, 0, 0))).mover == 0


@pytest.mark.parametrize("summary,words", [
    # "Seat 2" (counted from 0) is what the drive turns into the player's name (tests/games/test_alice_drive.py).
    (entry(0, (5, 3, 1)), "9 sets entered (Seat 0 5, Seat 1 3 and Seat 2 1), but the pack holds only 8."),
    (entry(0, (3, 3, 2)), "Seat 0 and Seat 1 tie on 3 sets each: say which of them laid a set last."),
    (entry(0, (3, 3, 2), last_set=2), "Seat 2 is not one of the players tied on most sets (Seat 0 and Seat 1)"),
    (entry(0, (4, 3, 1), last_set=1), "Seat 0 alone laid the most sets (4), so there is no tie to break"),
    (entry(0, (0, 0, 0), last_set=1), "Nobody laid a set, so there is no tie to break"),
    (entry(3, (1, 0, 0)), "The dealer must be one of the 3 players at this table."),
    ({"holdings": [{"sets": 1}] * 3}, "Say who dealt"),
    (entry(0, (9, 0, 0)), "Seat 0: the sets laid must be a whole number from 0 to 8"),
    (entry(0, (1, -1, 0)), "Seat 1: the sets laid"),
    ({"dealer": 0, "holdings": [{"sets": 1}] * 2}, "one entry per seat: 3"),
    ({"dealer": 0, "holdings": [{"sets": 1, "ice": "five"}] * 3}, "Seat 0: unknown field(s): ice."),
    ({**entry(), "declarer": 1}, "Unknown summary field(s): declarer."),
])
def test_impossible_entries_are_refused_saying_what_is_wrong(summary, words):
    with pytest.raises(GameError) as err:
        ALICE.outcome_from_summary(3, summary)
    assert words in str(err.value)


def test_a_digital_hand_summary_enters_back_to_the_same_result():
    s0 = ["A1", "A2", "A3", "A4", "A5", "C1", "D1"]
    s2 = ["H1", "H2", "H3", "H4", "H5", "E3", "G1"]
    h = three(s0, ["B1", "B2", "B3", "C2", "D2", "E2", "F2"], s2, row=ROW_F, dealer=2)
    h.stop()
    summary = ALICE.hand_summary(h)
    assert summary == {"dealer": 2, "last_set": 2, "holdings": [{"sets": 1}, {"sets": 0}, {"sets": 1}]}
    o = ALICE.outcome_from_summary(3, summary)
    assert (o.points, o.mover) == (h.outcome().points, h.outcome().mover)
