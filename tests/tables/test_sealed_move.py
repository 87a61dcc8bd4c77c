"""The move beside "table T is at version V", sealed: a process that holds the version before it
replays the move and holds the new version without reading the database; nothing on the layer
names a card; anything that does not add up is not replayed (the process reads, as before)."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from tables import consumers, digital
from tables.models import TableHand
from tests.tables.phones import codes_in

pytestmark = pytest.mark.django_db(transaction=True)


def _stored(table) -> tuple[int, dict]:
    row = TableHand.objects.values("version", "state").get(pk=table.pk)
    return row["version"], row["state"]


def _other_process_holding(table, version: int, data: dict) -> None:
    """This process as another one would be: it holds ``version`` of the table and nothing newer."""
    digital._STATES.clear()
    digital._cache_state(table.pk, version, data)


def _moves(table, players, count: int):
    """``count`` moves played by the greedy bot, each seat's from its own view; per move, the
    version before it, the state before it, and the message the mover's process sends."""
    from games.film_fantasy.bots import greedy_action
    import random

    rng = random.Random(3)
    for _ in range(count):
        version, before = _stored(table)
        state = digital.game_for(table.hand.drive).load_hand(before)
        moves = [(seat, greedy_action(state, seat, rng)) for seat in range(4)] if not state.finished else []
        moves = [(seat, move) for seat, move in moves if move is not None]
        if not moves:
            return
        seat, move = moves[0]
        applied = digital.apply_action(table.pk, seat, {**move, "version": version}, player_id=players[seat].pk,
                                       notify=False)
        assert applied.move == (seat, move)
        message = digital.version_message(table.pk, applied.version,
                                          digital.sealed_move(table.pk, applied.state, applied.move))
        yield version, before, message


def test_a_process_holding_the_version_before_replays_the_move_to_the_stored_state(four_at_a_table):
    drive, table, players = four_at_a_table
    kinds = set()
    for version, before, message in _moves(table, players, 400):
        _other_process_holding(table, version, before)
        with CaptureQueriesContext(connection) as queries:
            state = digital.replay_told(message)
        assert state is not None and len(queries) == 0
        assert state.to_json() == _stored(table)[1]
        assert digital.cached_state(table.pk, message["version"]) is state
        assert codes_in(message) == set()  # the layer never names a card
        kinds.add(message["move"]["action"]["type"])
    assert {"pass", "offer", "accept"} <= kinds


def test_nothing_is_replayed_that_does_not_add_up(four_at_a_table, settings):
    drive, table, players = four_at_a_table
    version, before, message = next(_moves(table, players, 1))
    move = message["move"]
    spoilt = [
        {**message, "move": {**move, "digest": "0" * 32}},  # not the sender's state
        {**message, "move": {**move, "action": {**move["action"], "card": "ab" * 9}}},  # a name the seat lacks
        {**message, "move": {**move, "seat": (move["seat"] + 1) % 4}},  # another seat's move
        {**message, "move": "pass"},
        {**message, "move": {**move, "seat": "0"}},
        {**message, "version": message["version"] + 1},  # a version two ahead of what is held
    ]
    for bad in spoilt:
        _other_process_holding(table, version, before)
        assert digital.replay_told(bad) is None
        assert digital.cached_state(table.pk, message["version"]) is None
    _other_process_holding(table, version, before)
    settings.SECRET_KEY = "another server's key, not this one's"
    assert digital.replay_told(message) is None
    settings.SECRET_KEY = "back"  # (the digest's key follows the setting)
    digital._STATES.clear()  # holding nothing: nothing to replay on
    assert digital.replay_told(message) is None


async def test_the_inbox_replays_before_the_sockets_build_their_views(four_at_a_table, monkeypatch):
    from channels.db import database_sync_to_async

    drive, table, players = four_at_a_table
    version, before, message = await database_sync_to_async(lambda: next(_moves(table, players, 1)))()
    _other_process_holding(table, version, before)
    built = []
    monkeypatch.setattr(consumers, "_each_socket", lambda message, call, what: built.append(
        digital.cached_state(table.pk, message["version"])))
    await consumers._told(message)
    assert built and built[0] is not None and built[0].version == message["version"]


def test_a_move_told_after_its_commit_carries_its_sealed_move_too(four_at_a_table, monkeypatch):
    """A bot's move (or any applied with ``notify=True``) goes out at its commit with the move sealed."""
    from tables import bots

    drive, table, players = four_at_a_table
    told = []
    monkeypatch.setattr(bots, "send_to_group", lambda group, message: told.append(message))
    version, before = _stored(table)
    card = digital.game_for(drive).load_hand(before).hands[2][0]
    digital.apply_action(table.pk, 2, {"type": "pass", "card": card, "version": version}, player_id=players[2].pk)
    [message] = told
    assert message["move"]["seat"] == 2 and codes_in(message) == set()
    _other_process_holding(table, version, before)
    assert digital.replay_told(message).to_json() == _stored(table)[1]


def test_two_equal_cards_in_one_move_seal_to_different_names_and_replay(four_at_a_table):
    """Two packs: a move may name the same card twice. Its sealed names differ (the layer does
    not tell that a seat offered a pair), and the move is still replayed."""
    drive, table, players = four_at_a_table
    key = digital._sealing_key()
    sealed = digital._seal({"type": "offer", "cards": ["3-2", "3-2"], "to": 1},
                           lambda position, name: digital._sealed_name(key, table.pk, 9, f"{position}:{name}"))
    first, second = sealed["cards"]
    assert first != second and sealed["to"] == 1 and sealed["type"] == "offer"
    for version_before, stored_before, message in _moves(table, players, 400):
        cards = message["move"]["action"].get("cards") or []
        if len(cards) > 1:
            assert len(set(cards)) == len(cards)
            _other_process_holding(table, version_before, stored_before)
            assert digital.replay_told(message).to_json() == _stored(table)[1]
            return
    pytest.fail("no move of two or more cards in 400 moves")
