"""Who may make a move, checked by ``digital.apply_action`` under the table's lock: the player who
sits at the seat (with the token its phone joined with), a bot at a bot's seat, nobody else."""

from __future__ import annotations

import random

import pytest

from drive.models import Player, new_token
from games import get_game
from tables import digital
from tables.models import TableHand


def _first_move(table: TableHand) -> tuple[int, dict]:
    """A seat that may act now and its move, with the version it saw."""
    stored = TableHand.objects.get(pk=table.pk)
    game = get_game(stored.state["game"])
    state, rng = game.load_hand(stored.state), random.Random(1)
    seat, move = next((s, m) for s in range(state.players) if (m := game.bot_action(state, s, rng)) is not None)
    return seat, {**move, "version": stored.version}


def _unchanged(table: TableHand, version: int) -> bool:
    return TableHand.objects.get(pk=table.pk).version == version


def test_the_player_at_the_seat_moves_with_the_token_its_phone_joined_with(four_at_a_table):
    _, table, players = four_at_a_table
    seat, move = _first_move(table)
    applied = digital.apply_action(table.pk, seat, move, player_id=players[seat].pk, token=players[seat].token)
    assert applied.version == move["version"] + 1 and not applied.duplicate


def test_a_player_cannot_move_for_another_players_seat(four_at_a_table):
    _, table, players = four_at_a_table
    seat, move = _first_move(table)
    other = players[(seat + 1) % 4]
    with pytest.raises(digital.DigitalError, match="You do not sit at that seat of this table"):
        digital.apply_action(table.pk, seat, move, player_id=other.pk)
    with pytest.raises(digital.DigitalError, match="This phone does not hold that seat"):
        digital.apply_action(table.pk, seat, move, player_id=other.pk, token=other.token)
    assert _unchanged(table, move["version"])


def test_a_phone_whose_token_changed_cannot_move_though_its_player_sits_there(four_at_a_table):
    _, table, players = four_at_a_table
    seat, move = _first_move(table)
    old = players[seat].token
    Player.objects.filter(pk=players[seat].pk).update(token=new_token())  # signed out meanwhile
    with pytest.raises(digital.DigitalError, match="join the drive again"):
        digital.apply_action(table.pk, seat, move, player_id=players[seat].pk, token=old)
    assert _unchanged(table, move["version"])


def test_a_seat_the_table_does_not_have_is_refused_and_a_missing_table_named(four_at_a_table):
    _, table, players = four_at_a_table
    _, move = _first_move(table)
    with pytest.raises(digital.DigitalError, match="You do not sit at that seat of this table"):
        digital.apply_action(table.pk, 7, move, player_id=players[0].pk)
    assert _unchanged(table, move["version"])
    missing = TableHand.objects.order_by("-pk").first().pk + 1000
    with pytest.raises(digital.DigitalError, match="That table no longer exists"):
        digital.apply_action(missing, 0, move, player_id=players[0].pk)
    with pytest.raises(digital.DigitalError, match="That table no longer exists"):
        digital.apply_action(missing, 0, move, bot=True)
