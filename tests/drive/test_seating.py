"""Seating: table sizes, the draw, rebalancing and swaps (docs/drive-rules.md, "Seating")."""

from __future__ import annotations

import copy
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from drive.seating import draw, rebalance, swap, table_sizes


def names(n, prefix="p"):
    return [f"{prefix}{i}" for i in range(n)]


@pytest.mark.parametrize(
    "n, preferred, sizes",
    [
        (2, 4, [2]),
        (3, 4, [3]),
        (4, 4, [4]),
        (5, 4, [5]),
        (6, 4, [3, 3]),  # 1.5 tables rounds up to 2
        (7, 4, [4, 3]),
        (9, 4, [5, 4]),
        (10, 4, [4, 3, 3]),
        (12, 4, [4, 4, 4]),
        (13, 4, [5, 4, 4]),
        (11, 10, [6, 5]),  # one table of 11 is over the limit
        (5, 2, [3, 2]),  # three tables would leave one player alone
        (40, 5, [5] * 8),
    ],
)
def test_table_sizes_near_preferred_and_as_equal_as_possible(n, preferred, sizes):
    assert table_sizes(n, preferred) == sizes


def test_larger_tables_are_at_the_top():
    assert table_sizes(14, 4) == [4, 4, 3, 3]


def test_one_player_is_refused():
    with pytest.raises(ValueError, match="at least two players"):
        table_sizes(1, 4)


@pytest.mark.parametrize("preferred", [1, 11, 0])
def test_preferred_size_outside_two_to_ten_is_refused(preferred):
    with pytest.raises(ValueError, match="preferred table size must be 2 to 10"):
        table_sizes(8, preferred)


@settings(max_examples=200)
@given(st.integers(2, 400), st.integers(2, 10))
def test_table_sizes_property(n, preferred):
    sizes = table_sizes(n, preferred)
    assert sum(sizes) == n
    assert all(2 <= s <= 10 for s in sizes)
    assert max(sizes) - min(sizes) <= 1
    assert sizes == sorted(sizes, reverse=True)


def test_draw_is_repeatable_with_the_same_seed():
    players = names(13)
    assert draw(players, 4, random.Random(7)) == draw(players, 4, random.Random(7))


def test_draw_does_not_change_the_players_list():
    players = names(9)
    draw(players, 4, random.Random(1))
    assert players == names(9)


def test_draw_refuses_a_player_listed_twice():
    with pytest.raises(ValueError, match="p1 is listed twice"):
        draw(["p0", "p1", "p1"], 4, random.Random(1))


@settings(max_examples=200)
@given(st.integers(2, 120), st.integers(2, 10), st.integers(0, 2**32))
def test_draw_seats_everybody_once_in_valid_tables(n, preferred, seed):
    players = names(n)
    tables = draw(players, preferred, random.Random(seed))
    seated = [p for t in tables for p in t]
    assert sorted(seated) == sorted(players)
    sizes = [len(t) for t in tables]
    assert sizes == table_sizes(n, preferred)
    assert all(2 <= s <= 10 for s in sizes)
    assert max(sizes) - min(sizes) <= 1


TABLES = [["a1", "a2", "a3", "a4"], ["b1", "b2", "b3", "b4"], ["c1", "c2", "c3", "c4"]]


def test_rebalance_with_no_changes_moves_nobody():
    assert rebalance(TABLES) == TABLES


def test_late_arrival_joins_the_smallest_table_from_the_bottom():
    assert rebalance(TABLES, add=["x"]) == [
        ["a1", "a2", "a3", "a4"],
        ["b1", "b2", "b3", "b4"],
        ["c1", "c2", "c3", "c4", "x"],
    ]


def test_arrivals_spread_over_the_smallest_tables():
    after = rebalance(TABLES, add=["x", "y"])
    assert after[2][-1] == "x"
    assert after[1][-1] == "y"
    assert after[0] == TABLES[0]


def test_leaver_goes_and_everybody_else_keeps_their_seat():
    assert rebalance(TABLES, remove=["b2"]) == [
        ["a1", "a2", "a3", "a4"],
        ["b1", "b3", "b4"],
        ["c1", "c2", "c3", "c4"],
    ]


def test_arrival_fills_the_leavers_table():
    after = rebalance(TABLES, add=["x"], remove=["a3"])
    assert after == [
        ["a1", "a2", "a4", "x"],
        ["b1", "b2", "b3", "b4"],
        ["c1", "c2", "c3", "c4"],
    ]


def test_table_below_its_limit_takes_a_player_from_the_largest_bottom_table():
    # Two leave Table 1; 10 players in 3 tables still fit 3..5, so a player comes up from
    # the bottom-most of the largest tables.
    after = rebalance(TABLES, remove=["a1", "a2"])
    assert after == [["a3", "a4", "c4"], ["b1", "b2", "b3", "b4"], ["c1", "c2", "c3"]]


def test_a_table_gives_up_a_player_who_stayed_before_one_of_the_hands_movers():
    # The hand's movers (``keep``) came last to their tables: a player who stayed goes instead,
    # and a table of movers only still gives its last-seated.
    after = rebalance(TABLES, remove=["a1", "a2"], keep=["c4", "c3"])
    assert after == [["a3", "a4", "c2"], ["b1", "b2", "b3", "b4"], ["c1", "c3", "c4"]]
    tables = [["a1", "a2", "a3", "a4", "a5"], ["b1", "b2", "b3"]]
    assert rebalance(tables, add=["n"], preferred=3) == [["a1", "a2", "a3", "a4"], ["b1", "b2", "b3"], ["a5", "n"]]
    assert rebalance(tables, add=["n"], preferred=3, keep=["a4", "a5"]) == [
        ["a1", "a2", "a4", "a5"], ["b1", "b2", "b3"], ["a3", "n"]]


def test_too_few_players_for_the_tables_closes_the_bottom_table():
    tables = [["a1", "a2", "a3"], ["b1", "b2", "b3"], ["c1", "c2", "c3"]]
    after = rebalance(tables, remove=["a1", "b1", "c1"])
    # 6 players, preferred 4: 3 tables of 2 are below 3, so two tables; Table 3 closes.
    assert after == [["a2", "a3", "c3"], ["b2", "b3", "c2"]]


def test_too_many_players_opens_a_table_at_the_bottom():
    tables = [["a1", "a2", "a3", "a4", "a5"], ["b1", "b2", "b3", "b4", "b5"]]
    after = rebalance(tables, add=["x", "y"])
    # 12 players do not fit two tables of at most 5, so a third table opens; it takes the
    # arrivals and one player from the bottom-most largest table: one seated player moves.
    assert after == [
        ["a1", "a2", "a3", "a4", "a5"],
        ["b1", "b2", "b3", "b4"],
        ["x", "y", "b5"],
    ]


def test_rebalance_does_not_change_its_inputs():
    tables = copy.deepcopy(TABLES)
    rebalance(tables, add=["x"], remove=["a1"])
    assert tables == TABLES


def test_removing_an_unknown_player_is_refused():
    with pytest.raises(ValueError, match="cannot remove zed: not seated"):
        rebalance(TABLES, remove=["zed"])


def test_adding_a_seated_player_is_refused():
    with pytest.raises(ValueError, match="cannot add b2: already seated"):
        rebalance(TABLES, add=["b2"])


def test_adding_the_same_arrival_twice_is_refused():
    with pytest.raises(ValueError, match="x is listed twice"):
        rebalance(TABLES, add=["x", "x"])


def test_rebalance_ending_with_fewer_than_two_players_is_refused():
    with pytest.raises(ValueError, match="at least two players"):
        rebalance([["a", "b", "c"]], remove=["a", "b"])


def test_down_to_two_players_is_one_table():
    assert rebalance(TABLES, remove=[p for p in sum(TABLES, []) if p not in ("b1", "c4")]) == [
        ["b1", "c4"]
    ]


def test_swap_exchanges_two_seats():
    after = swap(TABLES, "a2", "c3")
    assert after[0] == ["a1", "c3", "a3", "a4"]
    assert after[2] == ["c1", "c2", "a2", "c4"]
    assert TABLES[0] == ["a1", "a2", "a3", "a4"]


def test_swap_with_oneself_is_refused():
    with pytest.raises(ValueError, match="themselves"):
        swap(TABLES, "a1", "a1")


def test_swap_with_an_unknown_player_is_refused():
    with pytest.raises(ValueError, match="'zed': not seated"):
        swap(TABLES, "a1", "zed")


@st.composite
def changes(draw_):
    preferred = draw_(st.integers(2, 10))
    seed = draw_(st.integers(0, 2**32))
    players = names(draw_(st.integers(2, 80)))
    tables = draw(players, preferred, random.Random(seed))
    leaving = draw_(st.lists(st.sampled_from(players), unique=True, max_size=len(players) - 2))
    arriving = names(draw_(st.integers(0, 20)), prefix="new")
    new_preferred = draw_(st.integers(2, 10))
    return tables, arriving, leaving, new_preferred


@settings(max_examples=300)
@given(changes())
def test_rebalance_never_loses_or_duplicates_a_player(change):
    tables, arriving, leaving, preferred = change
    after = rebalance(tables, add=arriving, remove=leaving, preferred=preferred)
    expected = [p for t in tables for p in t if p not in leaving] + arriving
    seated = [p for t in after for p in t]
    assert sorted(seated) == sorted(expected)
    assert all(2 <= len(t) <= 10 for t in after)
    # Settled: a second rebalance with no changes moves nobody.
    assert rebalance(after, preferred=preferred) == after


@settings(max_examples=200)
@given(changes())
def test_rebalance_keeps_stayers_in_seat_order_at_their_table(change):
    tables, arriving, leaving, preferred = change
    after = rebalance(tables, add=arriving, remove=leaving, preferred=preferred)
    for t, table in enumerate(after):
        if t < len(tables):
            stayers = [p for p in tables[t] if p in table]
            # Those who stayed at the table are its first seats, in their old order.
            assert table[: len(stayers)] == stayers


@settings(max_examples=200)
@given(st.integers(2, 80), st.integers(2, 10), st.integers(0, 2**32))
def test_rebalance_of_a_fresh_draw_moves_nobody(n, preferred, seed):
    tables = draw(names(n), preferred, random.Random(seed))
    assert rebalance(tables, preferred=preferred) == tables


def test_tables_keep_within_the_games_table_sizes():
    """A game played at 2 to 6 (Alice, Wonderland): 13 players at 6 a table make three tables,
    never one of seven; arrivals go to new tables rather than a seventh seat."""
    assert table_sizes(13, 6, (2, 6)) == [5, 4, 4]
    assert table_sizes(7, 6, (2, 6)) == [4, 3]
    assert all(len(t) <= 6 for t in draw(names(19), 6, random.Random(3), (2, 6)))
    grown = rebalance([names(6, "a"), names(6, "b")], add=names(2, "n"), preferred=6, sizes=(2, 6))
    assert all(len(t) <= 6 for t in grown) and sum(map(len, grown)) == 14
    with pytest.raises(ValueError, match="preferred table size must be 2 to 6"):
        table_sizes(12, 7, (2, 6))


@pytest.mark.django_db
def test_an_alice_drive_never_seats_a_table_above_six(organiser):
    from drive import services
    from tests.factories import make_drive

    drive = make_drive(organiser, 13, game="alice", preferred_table_size=6)
    services.draw_seating(drive, random.Random(5))
    sizes = [t.seats.count() for t in drive.hands.get().tables.all()]
    assert sum(sizes) == 13 and max(sizes) <= 6
    services.add_players(drive, ["Late", "Later"])
    sizes = [t.seats.count() for t in drive.hands.get().tables.all()]
    assert sum(sizes) == 15 and max(sizes) <= 6
