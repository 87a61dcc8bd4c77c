"""Standings and prizes (docs/drive-rules.md, "Tie-breaks" and "Prizes"), with Film Fantasy's
standings facts (declarations, then nine-card declarations) and its prize for most declarations."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from scoring.standings import Row, name_order, rank
from scoring.standings import prizes as all_prizes

MOST = [("most_declarations", 0)]  # Film Fantasy's own prize: the most of its first fact


def R(name, total, declarations=0, nine_card_declarations=0, hands_played=1, **kwargs):  # noqa: N802 (a Row)
    return Row(name, total, facts=(declarations, nine_card_declarations), hands_played=hands_played, **kwargs)


def prizes(ranked):
    return all_prizes(ranked, MOST)


def names_in_order(ranked):
    return [r.name for r in ranked]


def test_highest_total_ranks_first():
    ranked = rank([R("Ann", 30), R("Bob", 55), R("Cat", 40)])
    assert names_in_order(ranked) == ["Bob", "Cat", "Ann"]
    assert [r.rank for r in ranked] == [1, 2, 3]
    assert not any(r.tied for r in ranked)


def test_equal_totals_are_split_by_more_declarations():
    ranked = rank([R("Ann", 40, declarations=1), R("Bob", 40, declarations=2)])
    assert names_in_order(ranked) == ["Bob", "Ann"]
    assert [r.label for r in ranked] == ["1", "2"]


def test_then_by_more_nine_card_declarations():
    ranked = rank(
        [
            R("Ann", 40, declarations=2, nine_card_declarations=0),
            R("Bob", 40, declarations=2, nine_card_declarations=1),
        ]
    )
    assert names_in_order(ranked) == ["Bob", "Ann"]
    assert [r.rank for r in ranked] == [1, 2]


def test_still_level_players_share_the_rank_and_the_next_rank_is_skipped():
    ranked = rank(
        [
            R("Dan", 10),
            R("Bob", 30, declarations=1),
            R("Ann", 30, declarations=1),
            R("Eve", 50, declarations=2),
        ]
    )
    assert [(r.name, r.label) for r in ranked] == [
        ("Eve", "1"),
        ("Ann", "=2"),
        ("Bob", "=2"),
        ("Dan", "4"),
    ]


def test_shared_rank_is_shown_in_name_order_ignoring_case():
    ranked = rank([R("carol", 5), R("Bob", 5), R("alice", 5)])
    assert names_in_order(ranked) == ["alice", "Bob", "carol"]
    assert all(r.rank == 1 and r.tied for r in ranked)
    # And accents: Élodie among the E's (she came after Jack, by the letters' codes).
    ranked = rank([R("Jack", 0), R("\u00c9lodie", 0), R("Edith", 0), R("E\u0301mile", 0), R("Zoë", 0)])
    assert names_in_order(ranked) == ["Edith", "\u00c9lodie", "E\u0301mile", "Jack", "Zoë"]


def test_hands_played_does_not_break_ties():
    ranked = rank([R("Ann", 20, hands_played=3), R("Bob", 20, hands_played=6)])
    assert [r.label for r in ranked] == ["=1", "=1"]


def test_a_player_who_has_played_no_hand_has_no_place_shown_yet():
    before = rank([R("Ann", 0, hands_played=0), R("Bob", 0, hands_played=0)])
    assert [r.label for r in before] == ["–", "–"]
    assert [r.rank for r in before] == [1, 1]  # still ranked (prizes, exports): only the label waits
    late = rank([R("Ann", 10), R("Cat", 0, hands_played=0), R("Bob", 0)])
    assert [(r.name, r.label) for r in late] == [("Ann", "1"), ("Bob", "2"), ("Cat", "–")]  # no tie with Cat
    # Places are counted among those who have played ("-5 points · 17th of 9").
    below = rank([R("Ann", -5), R("Bob", 10), *(R(f"N{i}", 0, hands_played=0) for i in range(8))])
    assert [(r.name, r.label) for r in below[:3]] == [("Bob", "1"), ("Ann", "2"), ("N0", "–")]
    assert below[1].rank == 2 and {r.label for r in below[2:]} == {"–"}


def test_no_rows_gives_empty_standings_and_no_prizes():
    assert rank([]) == []
    assert prizes([]) == {"winners": [], "runner_up": [], "booby": [], "most_declarations": []}


def test_a_negative_fact_total_is_refused():
    with pytest.raises(ValueError, match="fact 2 cannot be negative"):
        R("Ann", 25, declarations=0, nine_card_declarations=-1)


def test_totals_must_be_whole_numbers():
    with pytest.raises(ValueError, match="total must be a whole number"):
        R("Ann", "25")


def test_prizes_winner_runner_up_booby_and_most_declarations():
    ranked = rank(
        [
            R("Ann", 60, declarations=2),
            R("Bob", 45, declarations=3),
            R("Cat", 30, declarations=1),
            R("Dan", -5, declarations=0),
        ]
    )
    won = prizes(ranked)
    assert names_in_order(won["winners"]) == ["Ann"]
    assert names_in_order(won["runner_up"]) == ["Bob"]
    assert names_in_order(won["booby"]) == ["Dan"]
    assert names_in_order(won["most_declarations"]) == ["Bob"]


def test_shared_first_place_makes_several_winners_and_the_next_group_runner_up():
    ranked = rank([R("Ann", 50), R("Bob", 50), R("Cat", 40), R("Dan", 40), R("Eve", 0)])
    won = prizes(ranked)
    assert names_in_order(won["winners"]) == ["Ann", "Bob"]
    assert names_in_order(won["runner_up"]) == ["Cat", "Dan"]


def test_booby_goes_to_everybody_on_the_lowest_total():
    ranked = rank([R("Ann", 50), R("Dan", 20), R("Bob", 0, declarations=1), R("Cat", 0)])
    assert names_in_order(prizes(ranked)["booby"]) == ["Bob", "Cat"]


def test_nobody_gets_both_the_runner_up_and_the_booby_prize():
    """Four players, three tied on 20 behind the winner, were each both runner-up
    and booby. The booby's total must be below the runner-up's as it must be below the winners':
    the three are runner-up, and there is no booby."""
    won = prizes(rank([R("Ann", 30), R("Bob", 20), R("Cat", 20), R("Dan", 20)]))
    assert names_in_order(won["winners"]) == ["Ann"]
    assert names_in_order(won["runner_up"]) == ["Bob", "Cat", "Dan"]
    assert won["booby"] == []


def test_nobody_level_on_points_with_the_runner_up_gets_the_booby():
    # Bob is runner-up on the tie-break; Cat and Dan, on his points, are not the booby.
    won = prizes(rank([R("Ann", 30), R("Bob", 20, declarations=1), R("Cat", 20), R("Dan", 20)]))
    assert names_in_order(won["runner_up"]) == ["Bob"]
    assert won["booby"] == []
    # Of two players the second is runner-up, not the booby as well.
    won = prizes(rank([R("Ann", 30), R("Bob", 20)]))
    assert names_in_order(won["runner_up"]) == ["Bob"] and won["booby"] == []


def test_a_game_prize_may_go_to_a_winner_runner_up_or_booby():
    won = prizes(rank([R("Ann", 30), R("Bob", 20), R("Cat", 5, declarations=2)]))
    assert names_in_order(won["booby"]) == ["Cat"] and names_in_order(won["most_declarations"]) == ["Cat"]


def test_bots_keep_their_rank_but_win_no_prize_and_ties_are_among_people():
    """"Bot 1" (a seat filler) was runner-up, booby and "most" of the game's fact.
    A bot is ranked and shown like anyone; the prizes are counted among the people."""
    ranked = rank([
        R("Bot 1", 60, declarations=3, bot=True), R("Ann", 40, declarations=1), R("Bob", 40, declarations=1),
        R("Bot 2", 40, declarations=1, bot=True), R("Cat", 25), R("Bot 3", 10, bot=True),
    ])
    assert [(r.name, r.label) for r in ranked] == [
        ("Bot 1", "1"), ("Ann", "=2"), ("Bob", "=2"), ("Bot 2", "=2"), ("Cat", "5"), ("Bot 3", "6")]
    won = prizes(ranked)
    assert names_in_order(won["winners"]) == ["Ann", "Bob"]
    assert names_in_order(won["runner_up"]) == ["Cat"]
    assert won["booby"] == []  # Cat is runner-up; Bot 3, lower, is no one to give it to
    assert names_in_order(won["most_declarations"]) == ["Ann", "Bob"]
    assert prizes(rank([R("Bot 1", 10, declarations=1, bot=True)])) == {
        "winners": [], "runner_up": [], "booby": [], "most_declarations": []}


def test_a_lone_player_wins_and_gets_no_booby():
    won = prizes(rank([R("Ann", 15, declarations=1)]))
    assert names_in_order(won["winners"]) == ["Ann"]
    assert won["runner_up"] == []
    assert won["booby"] == []


def test_nobody_level_on_points_with_the_winners_gets_the_booby():
    # Bob loses the tie-break for first, but is not the booby on the same total.
    ranked = rank([R("Ann", 30, declarations=2), R("Bob", 30, declarations=1)])
    won = prizes(ranked)
    assert names_in_order(won["winners"]) == ["Ann"]
    assert names_in_order(won["runner_up"]) == ["Bob"]
    assert won["booby"] == []


def test_players_who_left_keep_their_rank_but_win_no_prize():
    # Ann led and left; Eve left after two hands, on the lowest total; Dan declared most, then left.
    ranked = rank([
        R("Ann", 70, declarations=2, left=True), R("Bob", 50, declarations=1), R("Cat", 40, declarations=1),
        R("Dan", 35, declarations=4, left=True), R("Fay", 20), R("Eve", 5, left=True),
    ])
    assert [(r.name, r.rank) for r in ranked][:2] == [("Ann", 1), ("Bob", 2)]
    won = prizes(ranked)
    assert names_in_order(won["winners"]) == ["Bob"]
    assert names_in_order(won["runner_up"]) == ["Cat"]
    assert names_in_order(won["booby"]) == ["Fay"]
    assert names_in_order(won["most_declarations"]) == ["Bob", "Cat"]
    assert prizes(rank([R("Ann", 10, left=True)])) == {"winners": [], "runner_up": [], "booby": [], "most_declarations": []}


def test_a_player_who_played_no_hand_wins_no_prize():
    # Gil arrived after the last hand had started: no hand played, 0 points, ranked last ("–").
    ranked = rank([R("Ann", 30, declarations=1), R("Bob", 20), R("Cat", 10), R("Gil", 0, hands_played=0)])
    assert [r.label for r in ranked] == ["1", "2", "3", "–"]
    won = prizes(ranked)
    assert names_in_order(won["booby"]) == ["Cat"]
    assert names_in_order(won["winners"]) == ["Ann"] and names_in_order(won["runner_up"]) == ["Bob"]
    # Nothing played at all: nobody wins anything (not everybody, level on 0).
    assert prizes(rank([R("Ann", 0, hands_played=0), R("Bob", 0, hands_played=0)])) == {
        "winners": [], "runner_up": [], "booby": [], "most_declarations": []}


def test_most_declarations_needs_at_least_one():
    won = prizes(rank([R("Ann", 10), R("Bob", 5)]))
    assert won["most_declarations"] == []


def test_most_declarations_is_shared_on_a_tie():
    ranked = rank([R("Ann", 10, declarations=2), R("Bob", 50, declarations=2), R("Cat", 5)])
    assert names_in_order(prizes(ranked)["most_declarations"]) == ["Bob", "Ann"]


rows = st.lists(
    st.builds(
        lambda name, total, decl, nine, hands, bot: Row(name, total, (decl, min(nine, decl)), hands, bot=bot),
        st.sampled_from(["Ann", "Bob", "Cat", "Dan", "Eve", "ann"]),
        st.integers(-20, 80),
        st.integers(0, 4),
        st.integers(0, 4),
        st.integers(0, 10),
        st.booleans(),
    ),
    max_size=12,
)


@given(rows)
def test_ranking_property(players):
    ranked = rank(players)
    assert sorted(map(repr, (r.row for r in ranked))) == sorted(map(repr, players))
    # Those who have played first, best first; then those who have not, by name, with no place.
    placed = [r for r in ranked if r.row.hands_played]
    assert ranked[:len(placed)] == placed
    keys = [(r.total, *r.facts) for r in placed]
    assert keys == sorted(keys, reverse=True)
    for i, r in enumerate(placed):
        # Competition ranking among those who have played: one more than those strictly ahead.
        assert r.rank == sum(1 for k in keys if k > keys[i]) + 1
        assert r.tied == (keys.count(keys[i]) > 1)
    waiting = ranked[len(placed):]
    assert [name_order(r.name) for r in waiting] == sorted(name_order(r.name) for r in waiting)
    assert all(r.label == "–" and r.rank == len(placed) + 1 for r in waiting)
    won = prizes(ranked)
    assert not {id(r) for r in won["winners"]} & {id(r) for r in won["booby"]}
    assert not {id(r) for r in won["winners"]} & {id(r) for r in won["runner_up"]}
    assert not {id(r) for r in won["runner_up"]} & {id(r) for r in won["booby"]}
    if won["booby"]:  # below everybody placed: nobody level on points with a winner or runner-up
        assert max(r.total for r in won["booby"]) < min(r.total for r in won["winners"] + won["runner_up"])
    assert not any(r.row.bot for prize in won.values() for r in prize)  # no prize to a bot
