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
