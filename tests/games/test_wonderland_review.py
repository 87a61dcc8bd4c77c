"""The Game of Alice in Wonderland: a review of the engine against docs/rules.md,
through the public API only. Adds to test_wonderland_rules.py what it does not already pin:
every set-against-set trick, the must-play rules through the hand, every table size and dealer,
the unused cards, the Pool of Tears card under another house rule or taken by nobody, the
mover's ties, versions and malformed actions."""

import itertools
import random

import pytest

from games.base import GameError
from games.wonderland import PACK, WonderlandHand, count, deals, deck, legal_plays, trick_winner

UNUSED = {2: 0, 3: 1, 4: 0, 5: 2, 6: 4}


def stacked(players, first_deal, dealer):
    """A pack whose first deal gives ``first_deal[seat]`` to each seat, the rest in PACK order."""
    order = [(dealer + k) % players for k in range(1, players + 1)]
    each = len(first_deal[0])
    top = [first_deal[order[j]][i] for i in range(each) for j in range(players)]
    return top + [c for c in PACK if c not in top]


def play(h, *cards):
    for c in cards:
        h.apply(h.turn, {"type": "play", "card": c})


def play_out(h):
    """Play the first legal card in turn to the end; per deal: (hands as dealt, who leads it)."""
    dealt = [([list(x) for x in h.hands], h.turn)]
    while not h.finished:
        deal = h.deal
        play(h, h.legal(h.turn)[0])
        if h.deal != deal:
            assert h.turn == h.last_trick["winner"]
            dealt.append(([list(x) for x in h.hands], h.turn))
    return dealt


def rank_key(card):
    return ("NPS".index(card[0]), int(card[1:]))


# ---------------------------------------------------------------- rank: who wins a trick
def test_every_two_card_trick_goes_to_the_higher_set_then_the_higher_number_in_either_order():
    for a, b in itertools.permutations(PACK, 2):
        assert trick_winner([a, b]) == (0 if rank_key(a) > rank_key(b) else 1), (a, b)


@pytest.mark.parametrize("trick,winner", [
    (["N20", "P1"], "P1"),            # the lowest plain beats the highest number
    (["P16", "S1"], "S1"),            # the lowest star beats the highest plain
    (["N20", "S1", "P16"], "S1"),     # ... and every plain and number card
    (["N7", "N19", "N2"], "N19"),     # numbers by number
    (["P3", "N20", "P12", "N1"], "P12"),
    (["S9", "P16", "S10", "N20", "P15", "S2"], "S10"),
])
def test_the_highest_ranked_card_takes_whatever_its_position_and_the_table_size(trick, winner):
    for perm in itertools.permutations(trick):
        assert perm[trick_winner(list(perm))] == winner


def test_star_alice_beats_every_card_and_the_star_dodo_beats_every_plain_and_number():
    others = [c for c in PACK if c != "S16"]
    assert all(trick_winner([c, "S16"]) == 1 for c in others)
    assert all(trick_winner(["S1", c]) == 0 for c in PACK if c[0] != "S")
    assert all(trick_winner(["S1", c]) == 1 for c in PACK if c[0] == "S" and c != "S1")


def test_plain_alice_beats_every_plain_and_number_but_loses_to_any_star():
    assert all(trick_winner(["P16", c]) == 0 for c in PACK if c[0] != "S" and c != "P16")
    assert all(trick_winner(["P16", c]) == 1 for c in PACK if c[0] == "S")


def test_a_single_card_trick_is_taken_by_its_card_and_bad_tricks_are_refused():
    assert trick_winner(["N1"]) == 0
    for bad in ([], ["X1"], ["S17"], ["N0"], [None]):
        with pytest.raises(ValueError):
            trick_winner(bad)


# ---------------------------------------------------------------- what may be played
@pytest.mark.parametrize("hand,trick,legal", [
    (["P5", "S9", "N1"], ["S5"], ["P5"]),              # a star led: its plain mate must follow, and loses
    (["S2", "P16", "N20"], ["S10"], ["S2"]),           # a star led, no mate: follow with a star, even a loser
    (["N3", "N9", "P2", "S1"], ["N5"], ["N3", "N9"]),  # a number led: follow with a number
    (["P2", "S1"], ["N5"], ["P2", "S1"]),              # no number: any card
    (["S1", "S2", "N4"], ["P5"], ["S1", "S2", "N4"]),  # a plain led, no plain and no mate: stars are another set
    (["P4", "S9", "N1"], ["S4", "N2", "P9"], ["P4"]),  # mates to two: the mate of the earliest (the led card)
    (["S9", "P7", "N1"], ["P8", "N2", "P9"], ["S9"]),  # the led card's mate not held: the later picture's mate
    (["P2", "N4", "N6"], ["N3", "S2"], ["P2"]),        # a mate overrides following the led set
    (["N2", "S1", "P3"], ["P7", "S7"], ["P3"]),        # picture and mate both on the table: just follow
    ([], ["N1"], []),
])
def test_the_mate_then_the_led_set_then_any_card(hand, trick, legal):
    assert legal_plays(hand, trick) == legal


def test_the_leader_may_play_any_card_and_legal_cards_keep_the_hands_order():
    hand = ["N4", "S2", "P9", "N1", "P3"]
    assert legal_plays(hand, []) == hand
    assert legal_plays(hand, ["N7"]) == ["N4", "N1"]
    assert legal_plays(tuple(hand), ("P1",)) == ["P9", "P3"]


def test_legal_plays_refuses_cards_that_do_not_exist():
    for hand, trick in ((["X1"], []), (["N1"], ["N21"]), (["P0"], ["N1"]), ([7], [])):
        with pytest.raises(ValueError):
            legal_plays(hand, trick)


@pytest.mark.parametrize("call", [
    lambda: legal_plays(None, []), lambda: legal_plays(["S1"], None), lambda: legal_plays("S1", []),
    lambda: trick_winner(None), lambda: trick_winner(7), lambda: count(None), lambda: count([None]),
    lambda: count([{"S1": 1}]),
], ids=["hand None", "trick None", "hand a string", "trick None", "trick a number", "taken None",
        "a pile None", "a pile a mapping"])
def test_what_is_no_list_of_cards_is_refused_as_a_value_error(call):
    with pytest.raises(ValueError, match="must be a list of cards"):
        call()


def test_a_card_counted_twice_is_refused_there_is_one_of_each():
    with pytest.raises(ValueError, match="S1 is given twice"):
        count([["S1", "P1"], ["S1"]])


def test_legal_plays_and_trick_winner_take_a_hand_s_trick_as_it_stands():
    """A hand's ``trick`` holds who played each card; passed as it is, its cards are read."""
    h = three_hand()
    play(h, "N1", "N5")
    assert [p["seat"] for p in h.trick] == [0, 1]
    assert legal_plays(h.hands[h.turn], h.trick) == legal_plays(h.hands[h.turn], ["N1", "N5"]) == ["S1", "S2", "S3", "S5", "S6", "S7", "S8"]
    assert trick_winner(h.trick) == trick_winner(["N1", "N5"]) == 1
    with pytest.raises(ValueError):
        trick_winner([{"seat": 0, "card": "N21"}])


# ---------------------------------------------------------------- the rules through the hand
THREE = [
    ["S4", "N1", "N2", "P9", "P10", "N3", "N4"],
    ["P4", "S9", "N5", "N6", "P11", "P12", "N7"],
    ["S1", "S2", "S3", "S5", "S6", "S7", "S8"],
]


def three_hand(**kw):
    """Three players, dealer 2: seat 0 leads; seat 2 holds stars only."""
    return WonderlandHand.from_deck(3, stacked(3, THREE, 2), 2, **kw)


def test_play_passes_to_the_left_and_a_star_led_must_be_met_by_its_plain_mate():
    h = three_hand()
    assert h.hands == THREE and h.turn == 0
    play(h, "S4")
    assert h.turn == 1 and h.legal(1) == ["P4"]
    before = h.to_json()
    with pytest.raises(GameError, match=r"You hold the mate of S4: play P4\."):
        h.apply(1, {"type": "play", "card": "S9"})
    assert h.to_json() == before
    play(h, "P4")
    assert h.turn == 2 and h.legal(2) == ["S1", "S2", "S3", "S5", "S6", "S7", "S8"]
    play(h, "S1")
    assert h.taken[0] == ["S4", "P4", "S1"] and h.turn == 0 and h.trick == []
    assert h.last_trick["trick"] == [{"seat": 0, "card": "S4"}, {"seat": 1, "card": "P4"}, {"seat": 2, "card": "S1"}]


def test_a_player_void_in_the_led_set_may_take_the_trick_with_a_higher_set():
    h = three_hand()
    play(h, "S4", "P4", "S1")
    play(h, "N1")
    with pytest.raises(GameError, match=r"N1 was led and you hold a number card: follow with one\."):
        h.apply(1, {"type": "play", "card": "P11"})
    play(h, "N7", "S2")  # seat 2 has no number: any card, and its star takes
    assert h.taken[2] == ["N1", "N7", "S2"] and h.turn == 2 and h.leader == 2
    play(h, "S3")  # seat 0 has no star left: any card
    assert h.legal(0) == ["P9", "P10", "N2", "N3", "N4"]
    play(h, "P10")
    assert h.legal(1) == ["S9"]  # follow the led star set
    with pytest.raises(GameError, match="S3 was led and you hold a star picture: follow with one."):
        h.apply(1, {"type": "play", "card": "P11"})
    play(h, "S9")
    assert h.taken[1] == ["S3", "P10", "S9"] and h.turn == 1


def test_the_mate_of_a_picture_played_after_the_lead_is_named_in_the_refusal():
    h = three_hand()
    play(h, "S4", "P4", "S1", "N1", "N7", "S2", "S3", "P9")
    with pytest.raises(GameError, match=r"You hold the mate of P9: play S9\."):
        h.apply(1, {"type": "play", "card": "P11"})
    play(h, "S9")
    assert h.taken[1] == ["S3", "P9", "S9"]


def test_a_plain_led_must_be_followed_with_a_plain_and_the_message_says_so():
    h = three_hand()
    play(h, "S4", "P4", "S1", "N1", "N7", "S2", "S3", "P10", "S9")
    play(h, "P11")
    assert h.legal(2) == sorted(h.hands[2], key=lambda c: int(c[1:]))  # stars only: any card
    play(h, "S5")
    assert h.legal(0) == ["P9"]
    with pytest.raises(GameError, match="P11 was led and you hold a plain picture: follow with one."):
        h.apply(0, {"type": "play", "card": "N2"})


# ---------------------------------------------------------------- deals, leaders, unused cards
@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_every_deal_takes_its_cards_from_the_front_of_what_is_left_from_the_dealers_left(players):
    for dealer in range(players):
        cards = deck(players, random.Random(100 * players + dealer))
        h = WonderlandHand.from_deck(players, cards, dealer)
        dealt = play_out(h)
        order = [(dealer + k) % players for k in range(1, players + 1)]
        assert [len(hands[0]) for hands, _ in dealt] == deals(players)
        assert dealt[0][1] == order[0]  # the dealer's left leads the first trick
        pos = 0
        for (hands, _), each in zip(dealt, deals(players)):
            for j, seat in enumerate(order):
                assert hands[seat] == cards[pos + j: pos + each * players: players]
            pos += each * players
        assert pos == 52 - UNUSED[players] and h.stock == cards[pos:]
        assert h.finished and h.turn is None and all(x == [] for x in h.hands) and h.trick == []
        assert sorted(c for t in h.taken for c in t) == sorted(cards[:pos])


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_a_new_hand_is_the_shuffled_deck_dealt_the_same_way(players):
    a = WonderlandHand.new(players, random.Random(9), dealer=players - 1)
    b = WonderlandHand.from_deck(players, deck(players, random.Random(9)), players - 1)
    assert a.to_json() == b.to_json() and a.turn == 0 and a.version == 0 and not a.finished


def test_deals_use_seven_each_while_seven_each_remain_and_leave_fewer_unused_than_players():
    for n in range(2, 7):
        plan = deals(n)
        assert all(k == 7 for k in plan[:-1]) and 1 <= plan[-1] <= 7
        assert 0 <= 52 - n * sum(plan) == UNUSED[n] < n


@pytest.mark.parametrize("bad", [0, 1, 7, -2, "4", 4.0, None])
def test_table_sizes_outside_two_to_six_are_refused_everywhere(bad):
    for call in (lambda: deals(bad), lambda: deck(bad, random.Random(0)),
                 lambda: WonderlandHand.from_deck(bad, list(PACK)), lambda: WonderlandHand.new(bad, random.Random(0))):
        with pytest.raises(ValueError):
            call()


def test_from_deck_refuses_anything_but_the_pack_a_dealer_off_the_table_or_a_bad_pool_card():
    dup = list(PACK[:-1]) + ["N1"]
    for cards in (None, [], list(PACK) + ["N1"], dup, list(PACK[:-1]) + ["N21"], list(PACK[:-1]) + [5]):
        with pytest.raises(ValueError):
            WonderlandHand.from_deck(4, cards)
    for dealer in (-1, 4, "0", None):
        with pytest.raises(ValueError):
            WonderlandHand.from_deck(4, list(PACK), dealer)
    for pool in ("N16", "S17", None):
        with pytest.raises(ValueError):
            WonderlandHand.from_deck(4, list(PACK), 0, pool)
    assert WonderlandHand.from_deck(4, tuple(reversed(PACK)), 0).hands[1][0] == "N20"


# ---------------------------------------------------------------- version, refusals, the end
def test_version_counts_accepted_cards_and_a_refusal_changes_nothing():
    h = WonderlandHand.new(5, random.Random(3), dealer=4)
    plays = 0
    while not h.finished:
        seat = h.turn
        wrong = [c for c in h.hands[seat] if c not in h.legal(seat)]
        before = h.to_json()
        for bad_seat, card in [((seat + 1) % 5, h.hands[(seat + 1) % 5][0] if h.hands[(seat + 1) % 5] else "N1"),
                               *((seat, c) for c in wrong[:1])]:
            with pytest.raises(GameError):
                h.apply(bad_seat, {"type": "play", "card": card})
            assert h.to_json() == before
        play(h, h.legal(seat)[0])
        plays += 1
        assert h.version == plays
    assert plays == 50 and h.turn is None and h.finished


def test_after_the_hand_is_over_every_card_is_refused():
    h = WonderlandHand.new(4, random.Random(4))
    play_out(h)
    before = h.to_json()
    with pytest.raises(GameError, match="over"):
        h.apply(0, {"type": "play", "card": "N1"})
    assert h.to_json() == before and h.version == 52 and h.last_trick is not None


@pytest.mark.parametrize("seat,action", [
    ("0", {"type": "play", "card": "S4"}), (True, {"type": "play", "card": "S4"}),
    (None, {"type": "play", "card": "S4"}), (-1, {"type": "play", "card": "S4"}), (3, {"type": "play", "card": "S4"}),
    (0, None), (0, "S4"), (0, ["play", "S4"]), (0, {}), (0, {"card": "S4"}), (0, {"type": "play"}),
    (0, {"type": "Play", "card": "S4"}), (0, {"type": "play", "card": "s4"}), (0, {"type": "play", "card": None}),
    (0, {"type": "play", "card": ["S4"]}), (0, {"type": "play", "card": 4}), (0, {"type": "play", "card": "X4"}),
    (0, {"type": "play", "card": "P4"}),  # a real card, held by someone else
])
def test_malformed_actions_are_refused_and_leave_the_state_unchanged(seat, action):
    h = three_hand()
    before = h.to_json()
    with pytest.raises(GameError):
        h.apply(seat, action)
    assert h.to_json() == before and h.version == 0 and h.turn == 0


# ---------------------------------------------------------------- the count
def test_the_pool_of_tears_card_also_makes_a_pair_with_its_mate():
    assert count([["S16", "P16", "N1"], ["N2", "N3"]]) == [40, 0]  # pair 10 + Pool of Tears 20 + most cards 10


def test_a_different_pool_of_tears_card_scores_and_plain_alice_then_does_not():
    taken = [["P16", "N1", "N2"], ["P1", "N3"], ["S1", "N4"]]
    assert count(taken, pool_of_tears="P1") == [10, 20, 0]
    assert count(taken, pool_of_tears="S1") == [10, 0, 20]
    assert count(taken) == [30, 0, 0]


def test_the_pool_of_tears_card_taken_by_nobody_scores_nobody():
    assert count([["N1", "N2"], ["S5", "P5", "N3"]]) == [0, 20]
    assert count([["N1", "N2"], ["S5", "P5", "N3"]], pool_of_tears="S9") == [0, 20]


@pytest.mark.parametrize("taken,points", [
    ([["S1", "N1"], ["N2", "N3"], ["P1", "N4"]], [0, 0, 0]),          # a three-way tie for most: nobody
    ([[], [], [], []], [0, 0, 0, 0]),                                  # nothing taken: nobody
    ([["S3", "P3", "S4"], ["P4", "N1"]], [20, 0]),                    # a pair and the most cards
    ([["S1", "S2", "S3", "S4"], ["P5", "P6"]], [10, 0]),              # stars alone make no pair
    ([("S2", "P2", "S8", "P8", "P16", "N1")] + [(f"N{k}",) for k in range(2, 7)], [50, 0, 0, 0, 0, 0]),
])
def test_pairs_the_pool_of_tears_and_the_most_cards(taken, points):
    assert count(taken) == points


def test_a_played_out_hand_with_a_house_rule_card_scores_it_for_its_taker():
    h = WonderlandHand.new(4, random.Random(21), dealer=1, pool_of_tears="S3")
    play_out(h)
    o = h.outcome()
    taker = next(s for s in range(4) if "S3" in h.taken[s])
    assert o.points == count(h.taken, "S3") and o.details["pool_of_tears"] == taker
    sizes = [len(t) for t in h.taken]
    most = 10 if sizes.count(max(sizes)) == 1 and sizes[taker] == max(sizes) else 0
    assert o.points[taker] == 10 * o.details["pairs"][taker] + 20 + most


def test_plain_alice_left_among_the_unused_cards_scores_nobody():
    cards = [c for c in PACK if c != "P16"] + ["P16"]  # three players: the last card is unused
    h = WonderlandHand.from_deck(3, cards, dealer=0)
    play_out(h)
    assert h.stock == ["P16"] and h.outcome().details["pool_of_tears"] is None
    o = h.outcome()
    assert o.points == count(h.taken)
    assert [p - 10 * pairs for p, pairs in zip(o.points, o.details["pairs"])] in ([0, 0, 0], [10, 0, 0], [0, 10, 0], [0, 0, 10])


# ---------------------------------------------------------------- the mover
def finished(players, dealer, taken):
    h = WonderlandHand.from_deck(players, list(PACK), dealer)
    h.taken = taken
    h.stop()
    return h.outcome()


def test_the_mover_is_the_top_scorer_even_with_fewer_cards():
    o = finished(3, 0, [["S1", "P1", "S2", "P2"], ["N1", "N2", "N3", "N4", "N5"], ["N6"]])
    assert o.points == [20, 10, 0] and o.mover == o.winner == 0


def test_on_equal_points_and_cards_the_dealer_comes_last_in_the_clockwise_order():
    # dealer 2 at five seats: the order is 3, 4, 0, 1, 2
    o = finished(5, 2, [[], [], ["S1", "P1"], [], ["S2", "P2"]])
    assert o.points == [0, 0, 10, 0, 10] and o.mover == 4
    o = finished(5, 2, [["S1", "P1"], [], ["S2", "P2"], [], []])
    assert o.mover == 0
    o = finished(4, 0, [[], [], [], []])  # nobody scored: the dealer's left
    assert o.points == [0, 0, 0, 0] and o.mover == 1


def test_outcome_is_refused_before_the_hand_is_over():
    h = three_hand()
    with pytest.raises(GameError, match="not over"):
        h.outcome()
