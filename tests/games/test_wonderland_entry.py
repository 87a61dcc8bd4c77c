"""The Game of Alice in Wonderland: what an entry of a hand played with cards may say (docs/rules.md,
"Entering a hand played with cards"): the counts must be possible, between players too."""

import pytest

from games.base import GameError
from games.wonderland import WONDERLAND


def entered(players, cards, pool, pairs=None):
    pairs = pairs or [0] * players
    return {"dealer": 0, "pool_of_tears": pool,
            "holdings": [{"pairs": p, "cards": c} for p, c in zip(pairs, cards)]}


def test_nobody_took_the_pool_of_tears_card_is_refused_when_the_whole_pack_was_taken():
    """At 4 players 16 + 12 + 12 + 12 = 52 cards taken, and "Nobody" took the Pool of
    Tears card was accepted. Every card was taken, so someone took it."""
    for players, cards in ((4, [16, 12, 12, 12]), (2, [26, 26])):
        with pytest.raises(GameError) as err:
            WONDERLAND.outcome_from_summary(players, entered(players, cards, None))
        assert str(err.value) == ("All 52 cards of the pack were taken, so somebody took the Pool of Tears "
                                  "card (Plain picture 16): say who.")
        assert WONDERLAND.outcome_from_summary(players, entered(players, cards, 1)).points[1] >= 20
    # The house rule's card is the one named.
    star = WONDERLAND.with_rules({"pool_of_tears": "S7"})
    with pytest.raises(GameError, match=r"the Pool of Tears card \(Star picture 7\): say who"):
        star.outcome_from_summary(4, entered(4, [16, 12, 12, 12], None))
    # Nobody can be true: cards left unused at 3, 5 or 6 players, or fewer cards taken (the bell).
    assert WONDERLAND.outcome_from_summary(3, entered(3, [18, 18, 15], None)).points == [0, 0, 0]
    assert WONDERLAND.outcome_from_summary(5, entered(5, [10, 10, 10, 10, 10], None)).points == [0] * 5
    assert WONDERLAND.outcome_from_summary(6, entered(6, [12, 12, 12, 6, 6, 0], None)).points == [0] * 6
    assert WONDERLAND.outcome_from_summary(4, entered(4, [12, 12, 12, 12], None)).points == [0] * 4


def test_every_pair_taken_means_someone_with_a_pair_took_the_pool_of_tears_card():
    """Found by review: with all 16 pairs taken every picture was taken in a pair, so the Pool of
    Tears card (a picture) was taken, by a player with a pair; "nobody", or a player with none,
    was accepted and the card's 20 points vanished or went to the wrong player."""
    all_pairs = entered(3, [18, 18, 15], None, pairs=[8, 8, 0])
    with pytest.raises(GameError) as err:
        WONDERLAND.outcome_from_summary(3, all_pairs)
    assert str(err.value) == ("All 16 pairs were taken, so somebody took the Pool of Tears card "
                              "(Plain picture 16) in one of them: say who.")
    with pytest.raises(GameError, match=r"is in one of them, but Seat 2 took no pair"):
        WONDERLAND.outcome_from_summary(3, {**all_pairs, "pool_of_tears": 2})
    assert WONDERLAND.outcome_from_summary(3, {**all_pairs, "pool_of_tears": 1}).points == [80, 100, 0]
    # One pair short of all: the card may be unpaired, or among the unused cards.
    short = entered(3, [18, 18, 15], None, pairs=[8, 7, 0])
    assert WONDERLAND.outcome_from_summary(3, short).points == [80, 70, 0]
    assert WONDERLAND.outcome_from_summary(3, {**short, "pool_of_tears": 2}).points == [80, 70, 20]


def test_the_pairs_entered_must_fit_the_cards_every_player_took():
    """At two players every card is taken, so the pairs fix each player's count: 13
    pairs and 26 cards against no pair and 26 cards was accepted (150 to 0), though the second
    player's 26 cards held the other 3 numbers' star and plain pictures, 3 pairs."""
    with pytest.raises(GameError) as err:
        WONDERLAND.outcome_from_summary(2, entered(2, [26, 26], 0, pairs=[13, 0]))
    assert str(err.value) == (
        "These counts do not add up: 26 cards were taken outside the pairs entered, but at most 23 can be (the 20 "
        "numbers, and for each player one picture of each of the 3 numbers nobody took a pair of). Someone took "
        "a pair that was not entered: count the pairs and the cards again.")
    with pytest.raises(GameError, match="do not add up"):
        WONDERLAND.outcome_from_summary(2, entered(2, [20, 32], 0, pairs=[10, 0]))
    assert WONDERLAND.outcome_from_summary(2, entered(2, [26, 26], 0, pairs=[13, 3])).points == [150, 30]
    assert WONDERLAND.outcome_from_summary(2, entered(2, [20, 32], 0, pairs=[10, 6])).points == [120, 70]
    # A hand stopped early leaves cards untaken, which may hold the missing pictures.
    assert WONDERLAND.outcome_from_summary(2, entered(2, [20, 20], 0, pairs=[10, 0])).points == [120, 0]


def test_a_player_cannot_take_more_cards_than_its_pairs_allow():
    """Found by review: 40 cards with no pair was accepted. Without a pair a player holds at most
    the 20 numbers and one picture of each of the 16 numbers: 36 cards; each pair adds one."""
    with pytest.raises(GameError) as err:
        WONDERLAND.outcome_from_summary(2, entered(2, [40, 12], 0))
    assert str(err.value) == (  # (found in a browser: "with no pair, but without one a player can hold" read badly)
        "Seat 0: 40 cards taken with no pair, but a player with no pair can hold at most 36 (the 20 numbers and one "
        "picture of each of the 16 numbers): count the pairs and the cards again.")
    with pytest.raises(GameError) as err:
        WONDERLAND.outcome_from_summary(4, entered(4, [4, 40, 4, 4], 1, pairs=[0, 3, 0, 0]))
    assert str(err.value) == (
        "Seat 1: 40 cards taken with 3 pairs, but a player with 3 pairs and no other can hold at most 39 (the 20 "
        "numbers, one picture of each other number, and the pairs): count the pairs and the cards again.")
    with pytest.raises(GameError, match="Seat 1: 40 cards taken with 3 pairs, .* at most 39"):
        WONDERLAND.outcome_from_summary(4, entered(4, [4, 40, 4, 4], 1, pairs=[0, 3, 0, 0]))
    assert WONDERLAND.outcome_from_summary(4, entered(4, [4, 40, 4, 4], 1, pairs=[0, 4, 0, 0])).points[1] == 70
    assert WONDERLAND.outcome_from_summary(2, entered(2, [36, 16], 0)).points == [30, 0]
