"""The Game of Alice in Wonderland: one example per rule (docs/rules.md, "The Game of Alice in
Wonderland"; from the leaflet, The Game of Alice in Wonderland, 1882)."""

import random

import pytest

from games.base import GameError
from games.wonderland import (PACK, WONDERLAND, Wonderland, WonderlandHand, count, deals, deck, legal_plays,
                              trick_winner)
from games.wonderland.cards import NUMBERS, PLAINS, STARS

from .wonderland_support import four_hand, play, play_out_deal


# ---------------------------------------------------------------- the pack
def test_pack_has_sixteen_star_sixteen_plain_and_twenty_number_cards():
    assert len(PACK) == len(set(PACK)) == 52
    assert (len(STARS), len(PLAINS), len(NUMBERS)) == (16, 16, 20)


def test_card_codes_are_star_plain_and_number_with_their_numbers():
    assert STARS == [f"S{n}" for n in range(1, 17)]
    assert PLAINS == [f"P{n}" for n in range(1, 17)]
    assert NUMBERS == [f"N{n}" for n in range(1, 21)]


def test_deck_is_the_pack_shuffled_and_refused_outside_two_to_six_players():
    d = deck(4, random.Random(1))
    assert sorted(d) == sorted(PACK) and d != PACK
    assert deck(4, random.Random(1)) == d
    for bad in (1, 7):
        with pytest.raises(ValueError):
            deck(bad, random.Random(1))


def test_star_and_plain_picture_of_the_same_number_are_mates():
    assert legal_plays(["S7", "P7", "N1"], ["P8"]) == ["P7"]  # P8 led, S8 not held: follow the plain set
    assert legal_plays(["S7", "P3", "N1"], ["P7"]) == ["S7"]
    assert legal_plays(["P7", "S3", "N1"], ["S7"]) == ["P7"]


def test_every_star_beats_every_plain_and_number_card():
    assert trick_winner(["P16", "S1", "N20"]) == 1


def test_every_plain_beats_every_number_card():
    assert trick_winner(["N20", "P1", "N19"]) == 1


def test_within_a_set_the_higher_number_wins():
    assert trick_winner(["S3", "S12", "S9"]) == 1
    assert trick_winner(["P3", "P2"]) == 0
    assert trick_winner(["N5", "N6", "N20", "N1"]) == 2


# ---------------------------------------------------------------- the deal
def test_deals_for_four_players_are_seven_and_six():
    assert deals(4) == [7, 6]


def test_deals_for_two_players_are_seven_seven_seven_and_five():
    assert deals(2) == [7, 7, 7, 5]


def test_deals_for_three_players_are_seven_seven_and_three_one_card_unused():
    assert deals(3) == [7, 7, 3] and 52 - 3 * sum(deals(3)) == 1


def test_deals_for_five_and_six_players_end_with_an_equal_share_of_what_is_left():
    assert deals(5) == [7, 3] and 52 - 5 * 10 == 2
    assert deals(6) == [7, 1] and 52 - 6 * 8 == 4


def test_deals_refused_outside_two_to_six_players():
    for bad in (0, 1, 7, "4", None):
        with pytest.raises(ValueError):
            deals(bad)


def test_seven_cards_each_one_at_a_time_starting_on_the_dealers_left():
    cards = list(PACK)
    h = WonderlandHand.from_deck(3, cards, dealer=1)
    # seat 2 (the dealer's left) gets the 1st, 4th, 7th ... card; then seat 0, then the dealer
    assert h.hands[2] == cards[0:21:3]
    assert h.hands[0] == cards[1:21:3]
    assert h.hands[1] == cards[2:21:3]
    assert h.deal == 1 and len(h.stock) == 52 - 21


def test_next_deal_of_seven_each_when_all_cards_have_been_played():
    cards = deck(3, random.Random(5))
    h = WonderlandHand.from_deck(3, cards, dealer=0)
    play_out_deal(h)
    assert h.deal == 2
    assert h.hands[1] == cards[21:42:3] and h.hands[2] == cards[22:42:3] and h.hands[0] == cards[23:42:3]


def test_last_deal_is_an_equal_share_and_the_cards_over_stay_unused():
    cards = deck(3, random.Random(6))
    h = WonderlandHand.from_deck(3, cards, dealer=2)
    play_out_deal(h)
    play_out_deal(h)
    assert h.deal == 3 and [len(x) for x in h.hands] == [3, 3, 3]
    play_out_deal(h)
    assert h.finished and h.stock == [cards[-1]]
    assert sum(len(t) for t in h.taken) == 51 and cards[-1] not in [c for t in h.taken for c in t]


def test_a_hand_needs_the_whole_pack_and_two_to_six_players():
    with pytest.raises(GameError, match="52-card pack"):
        WonderlandHand.from_deck(4, PACK[:-1])
    with pytest.raises(GameError, match="52-card pack"):
        WonderlandHand.from_deck(4, PACK[:-1] + ["S1"])
    with pytest.raises(ValueError):
        WonderlandHand.from_deck(7, list(PACK))
    with pytest.raises(ValueError):
        WonderlandHand.new(1, random.Random(0))


# ---------------------------------------------------------------- the play
def test_the_dealers_left_leads_the_first_trick():
    assert WonderlandHand.from_deck(4, list(PACK), dealer=2).turn == 3
    assert WonderlandHand.from_deck(4, list(PACK), dealer=3).turn == 0


def test_the_leader_may_play_any_card():
    h = four_hand()
    assert legal_plays(h.hands[0], []) == h.hands[0]
    assert h.legal(0) == sorted(h.hands[0], key=lambda c: ("SPN".index(c[0]), int(c[1:])))


def test_the_mate_of_a_picture_in_the_trick_must_be_played():
    h = four_hand()
    play(h, "P7")  # seat 0 leads plain 7; seat 1 holds star 7
    assert h.legal(1) == ["S7"]
    before = h.to_json()
    with pytest.raises(GameError, match="You hold the mate of P7: play S7."):
        h.apply(1, {"type": "play", "card": "P3"})
    assert h.to_json() == before
    play(h, "S7")
    assert h.trick_cards == ["P7", "S7"]


def test_the_mate_must_be_played_even_when_its_picture_was_not_led():
    assert legal_plays(["S5", "N1", "P1"], ["N3", "P5"]) == ["S5"]


def test_with_mates_to_several_the_mate_of_the_earliest_played():
    assert legal_plays(["S5", "S9", "P2"], ["P9", "N1", "P5"]) == ["S9"]
    assert legal_plays(["S5", "S9", "P2"], ["P5", "P9"]) == ["S5"]


def test_otherwise_a_card_of_the_led_cards_set_must_be_played():
    h = four_hand()
    play(h, "N1")  # a number led; seat 1 holds no mate of anything in the trick
    assert h.legal(1) == ["N6", "N7", "N8", "N9"]
    with pytest.raises(GameError, match="N1 was led"):
        h.apply(1, {"type": "play", "card": "S9"})
    assert legal_plays(["S1", "P4", "P6", "N2"], ["P3"]) == ["P4", "P6"]


def test_otherwise_any_card():
    assert legal_plays(["S1", "N2"], ["P3"]) == ["S1", "N2"]


def test_a_card_out_of_turn_or_not_held_is_refused_and_nothing_changes():
    h = four_hand()
    before = h.to_json()
    with pytest.raises(GameError, match="not your turn"):
        h.apply(2, {"type": "play", "card": "P9"})
    with pytest.raises(GameError, match="You do not hold S7"):
        h.apply(0, {"type": "play", "card": "S7"})
    # A hand-made frame's card that is no code: named "that card", never echoed as Python or at length.
    for odd in (None, [], {}, "x" * 2000):
        with pytest.raises(GameError, match="^You do not hold that card[.]$"):
            h.apply(0, {"type": "play", "card": odd})
    with pytest.raises(GameError, match="^You do not hold 'Q9'[.]$"):
        h.apply(0, {"type": "play", "card": "Q9"})
    for bad in ({"type": "play"}, {"type": "pass", "card": "P7"}, {"type": "play", "card": "P7", "x": 1}, "P7"):
        with pytest.raises(GameError):
            h.apply(0, bad)
    assert h.to_json() == before


def test_the_highest_ranked_card_takes_all_the_cards_of_the_trick():
    h = four_hand()
    play(h, "N1", "N6", "N10", "N14")
    assert h.taken[3] == ["N1", "N6", "N10", "N14"] and h.trick == []
    assert h.last_trick["winner"] == 3 and h.last_trick["cards"] == ["N1", "N6", "N10", "N14"]


def test_whoever_takes_a_trick_leads_the_next():
    h = four_hand()
    play(h, "P7", "S7", "P9", "P5")  # star 7 takes
    assert h.taken[1] == ["P7", "S7", "P9", "P5"] and h.turn == 1 and h.leader == 1


def test_the_last_trick_is_shown_until_the_next_card_is_played():
    h = four_hand()
    play(h, "N1", "N6", "N10", "N14")
    assert h.view(0)["last_trick"]["trick"][3] == {"seat": 3, "card": "N14"}
    play(h, "N15")
    assert h.last_trick is None and h.view(0)["last_trick"] is None


def test_the_taker_of_the_last_trick_of_a_deal_leads_the_first_trick_of_the_next():
    h = WonderlandHand.from_deck(6, deck(6, random.Random(4)), dealer=0)
    while h.deal == 1:
        play(h, h.legal(h.turn)[0])
    # the trick that emptied the hands is still shown: its taker leads deal 2, not the dealer's left
    assert h.deal == 2 and h.last_trick is not None and h.turn == h.last_trick["winner"] == h.leader == 5
    assert [len(x) for x in h.hands] == [1] * 6


# ---------------------------------------------------------------- the count
def test_ten_for_each_pair_among_the_cards_a_player_has_taken():
    assert count([["S3", "P3", "S4", "P4", "N1"], ["N2", "N3", "N4", "N5", "N6"]]) == [20, 0]


def test_a_pair_split_between_two_players_scores_nothing():
    assert count([["S3", "N1"], ["P3", "N2"]]) == [0, 0]


def test_twenty_for_the_pool_of_tears_card_plain_alice_by_default():
    assert count([["P16", "N1"], ["S16", "N2"]]) == [20, 0]


def test_the_pool_of_tears_card_is_a_house_rule_and_must_be_a_picture():
    assert count([["P16", "N1"], ["S16", "N2"]], pool_of_tears="S16") == [0, 20]
    for bad in ("N5", "S17", "", None):
        with pytest.raises(ValueError):
            count([["P16"], []], pool_of_tears=bad)
    assert Wonderland().with_rules({"pool_of_tears": "S16"}).pool_of_tears == "S16"
    with pytest.raises(GameError, match="picture"):
        WONDERLAND.with_rules({"pool_of_tears": "N3"})
    with pytest.raises(GameError, match="Unknown house rule"):
        WONDERLAND.with_rules({"joker": True})


def test_ten_for_the_most_cards_taken():
    assert count([["N1", "N2", "N3"], ["N4", "N5"], []]) == [10, 0, 0]


def test_a_tie_for_the_most_cards_scores_nobody():
    assert count([["N1", "N2"], ["N4", "N5"], []]) == [0, 0, 0]


def test_nobody_scores_the_most_cards_with_none_taken():
    assert count([[]]) == [0] and count([]) == []
    assert count([["N1"], []]) == [10, 0]


def test_count_refuses_unknown_and_repeated_cards():
    with pytest.raises(GameError):
        count([["S1"], ["S1"]])
    with pytest.raises(GameError):
        count([["X1"]])


def test_the_top_scorer_moves_ties_to_more_cards_then_first_clockwise_from_the_dealers_left():
    # seat 0: a pair (10); seat 1: Pool of Tears (20) and most cards (10): seat 1 moves
    h = four_hand()
    h.taken = [["S3", "P3"], ["P16", "N1", "N2"], [], []]
    h.stop()
    assert h.outcome().points == [10, 30, 0, 0] and h.outcome().mover == 1
    # equal points: more cards taken wins the tie
    h = four_hand()
    h.taken = [["S3", "P3", "N1", "N2"], ["S4", "P4", "N3", "N4"], ["N5", "N6", "N7", "N8", "N9", "N10"], []]
    h.stop()
    assert h.outcome().points == [10, 10, 10, 0] and h.outcome().mover == 2
    # equal points and cards: the first clockwise from the dealer's left (dealer 1: seat 2, 3, 0, 1)
    h = WonderlandHand.from_deck(4, list(PACK), dealer=1)
    h.taken = [["S3", "P3"], [], [], ["S4", "P4"]]
    h.stop()
    assert h.outcome().points == [10, 0, 0, 10] and h.outcome().mover == 3
    # the dealer among them comes last of that order (seat 0 before the dealer, seat 1)
    h = WonderlandHand.from_deck(4, list(PACK), dealer=1)
    h.taken = [["S3", "P3"], ["S4", "P4"], [], []]
    h.stop()
    assert h.outcome().points == [10, 10, 0, 0] and h.outcome().mover == 0


def test_the_organisers_bell_ends_the_hand_and_the_cards_taken_so_far_count():
    h = four_hand()
    play(h, "P7", "S7", "P9", "P5", "S9")  # seat 1 took the trick and led again
    h.stop()
    assert h.finished and h.turn is None
    assert h.outcome().points == [0, 20, 0, 0]  # the pair P7-S7 and most cards: seat 1 alone
    with pytest.raises(GameError, match="over"):
        h.apply(2, {"type": "play", "card": "P1"})


def test_outcome_details_give_pairs_cards_taken_and_who_took_the_pool_of_tears():
    h = four_hand()
    h.taken = [["S3", "P3", "N1", "N2"], ["P16", "N3"], [], []]
    h.stop()
    assert h.outcome().details == {"pairs": [1, 0, 0, 0], "cards": [4, 2, 0, 0], "pool_of_tears": 1}
    # The same pairs and cards are each seat's standings facts.
    assert h.outcome().facts == [{"pairs": 1, "cards_taken": 4}, {"pairs": 0, "cards_taken": 2},
                                 {"pairs": 0, "cards_taken": 0}, {"pairs": 0, "cards_taken": 0}]


def test_a_whole_hand_played_out_counts_every_card_taken():
    h = WonderlandHand.new(4, random.Random(11), dealer=2)
    while not h.finished:
        play(h, h.legal(h.turn)[0])
    assert h.ended_by == "played_out" and sum(len(t) for t in h.taken) == 52
    assert h.outcome().points == count(h.taken)
