"""One example test per rule of docs/rules.md, "Alice", named after the
rule: the pack, the deal, taking, asking, laying sets, the end and the scoring. The dealer on the
phones, refusals, views and hands entered with cards: test_alice_play_rules.py.

Hands are dealt with ``AliceHand.from_deck`` from hand-chosen packs (tests/games/alice_support.py).
Seats are numbered clockwise; "left" of seat i is seat i+1.
"""

import json
import random
from collections import Counter

import pytest

from games.alice import PACK, AliceHand, GameError, card_name, deck, hand_size
from games.alice.hand import ALL_LAID, STOPPED

from .alice_support import ROW_F, ask, deal, kinds, refused, take, three


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
    # and the turn passes to the left
    h = three(dealer=2)
    take(h, 0, "G4")
    assert h.turn == 1
    take(h, 1, h.row[0])
    assert h.turn == 2


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
    assert h.outcome().mover == 2 and h.outcome().points == [0, 0, 0] and h.outcome().winner is None
    # A hand won is a hand in which the player was the mover (docs/rules.md), this one too.
    assert [f.get("hands_won", 0) for f in h.outcome().facts] == [0, 0, 1]


def test_the_outcome_is_only_for_a_finished_hand():
    with pytest.raises(GameError, match="not over"):
        three().outcome()
