"""Who deals a hand on the phones: a home game (a drive of one table) passes the deal to the left
after each hand; a drive's tables draw for it before every hand (FILM-FANTASY.md, "Choosing the
dealer": the people change)."""

from __future__ import annotations

import pytest

from drive import services
from games import get_game
from tables.digital import deal_rng
from tests.tables.conftest import digital_drive, play_to_the_end, seated_players, stored_hand, table_of

pytestmark = pytest.mark.django_db(transaction=True)


def _play_hands(drive, hands: int, tables: int) -> list[list[tuple[int, list[int], int]]]:
    """Each hand's tables, as (dealer, the seats' players, the dealer drawn for it)."""
    seen = []
    for number in range(1, hands + 1):
        hand = drive.hands.get(number=number)
        row = []
        for t in range(1, tables + 1):
            table = table_of(drive, t)
            players = seated_players(table)
            drawn = get_game(drive.game).new_hand(len(players), deal_rng(drive, hand, table)).dealer
            row.append((stored_hand(table.pk).dealer, [p.pk for p in players], drawn))
            play_to_the_end(table, players, seed=number * 10 + t)
        seen.append(row)
        services.close_hand(drive)
        services.start_hand(drive)
    return seen


def test_a_home_game_on_the_phones_passes_the_deal_to_the_left_after_each_hand(organiser):
    drive = digital_drive(organiser, 4, target="hands", target_hands=6)  # one table: a home game
    seen = [row[0] for row in _play_hands(drive, 4, tables=1)]
    assert len({tuple(people) for _, people, _ in seen}) == 1  # nobody moves at a single table
    assert seen[0][0] == seen[0][2]  # the first hand's dealer is drawn
    for before, after in zip(seen, seen[1:]):
        assert after[0] == (before[0] + 1) % 4, seen


def test_a_drive_of_several_tables_draws_the_dealer_before_every_hand(organiser):
    drive = digital_drive(organiser, 8, target="hands", target_hands=6, preferred_table_size=4)
    for row in _play_hands(drive, 3, tables=2):
        for dealer, _, drawn in row:
            assert dealer == drawn
