"""Movement between hands (docs/drive-rules.md, "Movement")."""

from __future__ import annotations

import copy

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from drive.movement import describe, instructions, move, table_moves, told
from games.base import top_scorer

# Three tables of four; seat order is clockwise, so each player's left is the next one.
THREE = [
    ["a1", "a2", "a3", "a4"],
    ["b1", "b2", "b3", "b4"],
    ["c1", "c2", "c3", "c4"],
]


def table_of(tables, player):
    return next(t for t, table in enumerate(tables) if player in table)


def test_declarer_moves_up_and_left_hand_player_moves_down_from_a_middle_table():
    after = move(THREE, ["a1", "b2", "c3"])
    assert table_of(after, "b2") == 0
    assert table_of(after, "b3") == 2


def test_declarer_at_top_table_stays():
    after = move(THREE, ["a2", "b1", "c1"])
    assert after[0][1] == "a2"


def test_left_hand_player_at_bottom_table_stays():
    after = move(THREE, ["a1", "b1", "c2"])
    assert after[2][2] == "c3"


def test_arrival_from_below_takes_the_seat_of_the_declarer_who_went_up():
    after = move(THREE, ["a1", "b2", "c3"])
    # b2 (seat 1) went up; c3 came up from Table 3 into that seat.
    assert after[1][1] == "c3"


def test_arrival_from_above_takes_the_seat_of_the_left_hand_player_who_went_down():
    after = move(THREE, ["a1", "b2", "c3"])
    # b3 (seat 2) went down; a2, left of Table 1's declarer, came down into that seat.
    assert after[1][2] == "a2"


def test_top_table_arrival_takes_the_seat_of_the_left_hand_player():
    after = move(THREE, ["a1", "b2", "c3"])
    assert after[0] == ["a1", "b2", "a3", "a4"]


def test_bottom_table_arrival_takes_the_seat_of_the_declarer():
    after = move(THREE, ["a1", "b2", "c3"])
    assert after[2] == ["c1", "c2", "b3", "c4"]


def test_full_movement_of_three_tables():
    assert move(THREE, ["a1", "b2", "c3"]) == [
        ["a1", "b2", "a3", "a4"],
        ["b1", "c3", "a2", "b4"],
        ["c1", "c2", "b3", "c4"],
    ]


def test_left_of_last_seat_is_first_seat():
    after = move(THREE, ["a1", "b4", "c1"])
    assert table_of(after, "b1") == 2  # b4's left is b1
    assert after[1][0] == "a2"  # the arrival from above takes b1's seat
    assert after[1][3] == "c1"  # the arrival from below takes b4's seat


def test_single_table_nobody_moves():
    table = [["p1", "p2", "p3", "p4", "p5"]]
    assert move(table, ["p3"]) == table


def test_tables_of_two():
    tables = [["a", "b"], ["c", "d"], ["e", "f"]]
    # At a table of two the declarer's left-hand player is the other player.
    assert move(tables, ["b", "c", "f"]) == [["c", "b"], ["f", "a"], ["e", "d"]]


def test_two_tables_swap_one_player_each_way():
    tables = [["a1", "a2", "a3"], ["b1", "b2", "b3"]]
    assert move(tables, ["a3", "b2"]) == [["b2", "a2", "a3"], ["b1", "a1", "b3"]]


def test_unequal_table_sizes():
    tables = [["a1", "a2", "a3", "a4", "a5"], ["b1", "b2", "b3"], ["c1", "c2"]]
    after = move(tables, ["a5", "b3", "c1"])
    assert [len(t) for t in after] == [5, 3, 2]
    assert after == [
        ["b3", "a2", "a3", "a4", "a5"],
        ["a1", "b2", "c1"],
        ["b1", "c2"],
    ]


def test_inputs_are_not_changed():
    tables = copy.deepcopy(THREE)
    declarers = ["a1", "b2", "c3"]
    move(tables, declarers)
    assert tables == THREE
    assert declarers == ["a1", "b2", "c3"]


def test_declarer_not_at_table_is_refused():
    with pytest.raises(ValueError, match="Table 2: mover 'c1' is not seated"):
        move(THREE, ["a1", "c1", "c3"])


@pytest.mark.parametrize("declarers", [["a1", "b1"], ["a1", "b1", "c1", "d1"], []])
def test_one_declarer_per_table_is_required(declarers):
    with pytest.raises(ValueError, match="one mover per table"):
        move(THREE, declarers)


@pytest.mark.parametrize("missing", [None, ""])
def test_missing_declarer_is_refused(missing):
    with pytest.raises(ValueError, match="Table 2 has no mover"):
        move(THREE, ["a1", missing, "c1"])


def test_player_listed_twice_at_different_tables_is_refused():
    tables = [["a", "b"], ["c", "a"]]
    with pytest.raises(ValueError, match="a is seated at Table 1 and Table 2"):
        move(tables, ["a", "c"])


def test_player_listed_twice_at_one_table_is_refused():
    with pytest.raises(ValueError, match="b is seated twice at Table 1"):
        move([["a", "b", "b"]], ["a"])


@pytest.mark.parametrize("table", [[], ["lonely"]])
def test_table_under_two_players_is_refused(table):
    with pytest.raises(ValueError, match="Table 2 has .* a table needs at least two"):
        move([["a", "b"], table], ["a", "lonely"])


@pytest.mark.parametrize("name", [7, None, b"bytes", ""])
def test_player_name_must_be_a_non_empty_string(name):
    with pytest.raises(ValueError, match="non-empty name"):
        move([["a", name]], ["a"])


def test_no_tables_is_refused():
    with pytest.raises(ValueError, match="at least one table"):
        move([], [])


def test_instructions_say_up_down_or_stay_with_table_numbers():
    after = move(THREE, ["a1", "b2", "c3"])
    steps = instructions(THREE, after)
    assert steps["a1"] == ("stay", 1, 1)
    assert steps["a2"] == ("down", 1, 2)
    assert steps["b2"] == ("up", 2, 1)
    assert steps["b3"] == ("down", 2, 3)
    assert steps["c3"] == ("up", 3, 2)
    assert steps["c4"] == ("stay", 3, 3)
    assert len(steps) == 12


def test_describe_gives_the_words_the_phone_shows():
    assert describe(("up", 3, 2)) == "Move UP to Table 2"
    assert describe(("down", 1, 2)) == "Move DOWN to Table 2"
    assert describe(("stay", 5, 5)) == "Stay at Table 5"


def test_instructions_refuse_seatings_of_different_players():
    with pytest.raises(ValueError, match="missing after: b; new after: z"):
        instructions([["a", "b"]], [["a", "z"]])


def test_top_scorer_counts_as_declarer_when_nobody_declared():
    assert top_scorer([5, -5, 10, 0], dealer=0) == 2


def test_tied_top_scorers_first_clockwise_from_dealers_left_moves():
    # Seats 0 and 2 tie on 5; dealer is seat 1, so seat 2 (dealer's left) comes first.
    assert top_scorer([5, 0, 5, 0], dealer=1) == 2
    # Dealer is seat 2: the order is 3, 0, 1, 2, so seat 0 comes first.
    assert top_scorer([5, 0, 5, 0], dealer=2) == 0


def test_tied_dealer_is_last_in_the_clockwise_order():
    assert top_scorer([5, 5, 0], dealer=0) == 1
    assert top_scorer([0, 0, 0], dealer=2) == 0


def test_no_declaration_mover_refuses_bad_dealer_or_points():
    with pytest.raises(ValueError, match="dealer must be a seat from 0 to 2"):
        top_scorer([0, 5, 0], dealer=3)
    with pytest.raises(ValueError, match="whole number"):
        top_scorer([0, "5"], dealer=0)
    with pytest.raises(ValueError, match="at least two"):
        top_scorer([5], dealer=0)


@st.composite
def drives(draw):
    """A seating of 1-15 tables of 2-10 players, and one mover per table."""
    sizes = draw(st.lists(st.integers(2, 10), min_size=1, max_size=15))
    names = iter(f"p{i}" for i in range(sum(sizes)))
    tables = [[next(names) for _ in range(size)] for size in sizes]
    declarers = [draw(st.sampled_from(table)) for table in tables]
    return tables, declarers


@settings(max_examples=300)
@given(drives())
def test_movement_property_over_random_drives(drive):
    tables, declarers = drive
    before = copy.deepcopy(tables)
    after = move(tables, declarers)

    assert tables == before
    assert [len(t) for t in after] == [len(t) for t in tables]
    assert sorted(p for t in after for p in t) == sorted(p for t in tables for p in t)

    last = len(tables) - 1
    where = {p: (t, s) for t, table in enumerate(after) for s, p in enumerate(table)}
    movers = set()
    for t, table in enumerate(tables):
        declarer = declarers[t]
        seat = table.index(declarer)
        left = table[(seat + 1) % len(table)]
        if last == 0:
            continue
        assert where[declarer][0] == max(t - 1, 0)
        assert where[left][0] == min(t + 1, last)
        movers.update({declarer} if t > 0 else set())
        movers.update({left} if t < last else set())
    for t, table in enumerate(tables):
        for s, player in enumerate(table):
            if player not in movers:
                assert where[player] == (t, s), f"{player} should keep Table {t + 1} seat {s}"

    steps = instructions(tables, after)
    assert sum(1 for d, _, _ in steps.values() if d == "up") == last
    assert sum(1 for d, _, _ in steps.values() if d == "down") == last


def test_a_tables_moves_in_words_stay_at_the_ends():
    """The words every page says a result's moves in (``movement.table_moves``): the mover at
    Table 1 and the left-hand player at the last table stay."""
    assert table_moves(1, 3) == ("stays at the top table", "moves down")
    assert table_moves(2, 3) == ("moves up", "moves down")
    assert table_moves(3, 3) == ("moves up", "stays at the last table")
    assert table_moves(1, 2, done=True) == ("stayed at the top table", "moved down")
    assert table_moves(2, 2, done=True) == ("moved up", "stayed at the last table")


def test_the_close_tells_each_tables_mover_and_left_hand_player_whether_they_move_or_stay():
    tables = [["a1", "a2", "a3"], ["b1", "b2", "b3"], ["c1", "c2", "c3"]]
    assert told(tables, ["a3", "b1", "c2"]) == {"a3", "a1", "b1", "b2", "c2", "c3"}
    assert told([["a1", "a2"]], ["a2"]) == set()  # one table: nobody moves
    with pytest.raises(ValueError):
        told(tables, ["a1", "b1"])
