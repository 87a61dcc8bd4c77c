"""A finished digital hand as an entry summary: scored by the entry path, it gives the same points."""

from __future__ import annotations

from types import SimpleNamespace

from games.film_fantasy import FILM_FANTASY, score_hand

SET = ["1-1", "1-2", "1-3", "1-4"]
ICE = ["11-1", "11-2", "11-3", "11-4"]


def finished(players, hands, declarer=None, declaration=None, nine=False):
    return SimpleNamespace(players=players, hands=hands, declarer=declarer, declaration=declaration,
                           nine_card=nine, dealer=0)


def test_summary_of_a_two_pack_hand_keeps_a_second_ice_follies_group():
    hands = [ICE + ["J"] + ICE[:3] + ["J"], SET, [], [], [], []]
    summary = FILM_FANTASY.hand_summary(finished(6, hands))
    assert summary["holdings"][0] == {"sets": 0, "ice": "five", "ice2": "joker_three"}
    outcome = FILM_FANTASY.outcome_from_summary(6, summary)
    assert outcome.points == score_hand(hands, None) == [15, 5, 0, 0, 0, 0]


def test_summary_of_a_declared_hand_lists_the_declarers_other_cards():
    declaration = SET + ["2-1", "2-2", "2-3", "2-4"]
    hands = [declaration + ["J"], ["3-1", "3-2", "3-3", "3-4"], [], []]
    summary = FILM_FANTASY.hand_summary(finished(4, hands, declarer=0, declaration=declaration))
    assert summary["declarer"] == 0 and summary["holdings"][0] == {"sets": 0, "ice": "joker"}
    assert FILM_FANTASY.outcome_from_summary(4, summary).points == score_hand(hands, 0) == [10, 5, 0, 0]


def test_every_ice_follies_holding_at_two_packs_is_summed_up_as_the_hand_scored_it():
    """Found by review: with Ice Follies 1, 1, 2, 2, 3, 4 and both Jokers the summary said "the
    four with the Joker" and "the Joker alone" (+5), where the hand scored two Jokers with three
    (+10): a correction saved from it unchanged took 5 points off the seat, and could move
    another player. Every holding of up to two of each Ice Follies card and two Jokers, held by
    a seat that did not declare and by the declarer (beside its declaration), sums up to the
    points the hand gave."""
    from itertools import product

    declaration = SET + ["2-1", "2-2", "2-3", "2-4"]
    for counts in product(range(3), repeat=4):
        for jokers in range(3):
            held = [card for card, k in zip(ICE, counts) for _ in range(k)] + ["J"] * jokers
            for declarer in (None, 1):
                hands = [held, declaration if declarer else SET, [], [], [], []]
                summary = FILM_FANTASY.hand_summary(finished(6, hands, declarer, declaration if declarer else None))
                scored = score_hand(hands, declarer)
                assert FILM_FANTASY.outcome_from_summary(6, summary).points == scored, (held, summary)
            if len(held) + len(declaration) > 11:  # a hand of six ends with eleven cards
                continue
            hands = [held + declaration, [], [], [], [], []]
            summary = FILM_FANTASY.hand_summary(finished(6, hands, 0, declaration))
            assert FILM_FANTASY.outcome_from_summary(6, summary).points == score_hand(hands, 0), (held, summary)
