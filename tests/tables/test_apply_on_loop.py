"""A phone's move is applied on the socket's event loop, in one transaction that locks the
table's row, with the same checks as in a thread: on PostgreSQL through one of the loop's own
connections (two round trips), on SQLite through the loop's own connection to the file (never
waiting for another writer). The move that ends the hand goes to an apply thread instead, but
on PostgreSQL when the process foresaw it (it holds the version it was made on): then its
result is recorded on the loop too. Any move whose connection fails before its commit goes to
an apply thread; one that fails in its commit is not tried again."""

from __future__ import annotations

import asyncio
import random
import uuid

import psycopg
import pytest
from asgiref.sync import sync_to_async
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext

from games import get_game
from scoring.models import Result
from tables import digital
from tables.models import TableHand
from tests.tables.phones import action, connected, until

pytestmark = pytest.mark.django_db(transaction=True)


def _stored(table_id: int) -> TableHand:
    return TableHand.objects.get(pk=table_id)


async def _next_move(table_id: int, rng: random.Random):
    """(stored row, its state, a seat that can move, its move), from the stored state."""
    stored = await sync_to_async(_stored)(table_id)
    game = get_game("film-fantasy")
    state = game.load_hand(stored.state)
    if state.finished:
        return stored, state, None, None
    seat, move = next((s, m) for s in range(4) if (m := game.bot_action(state, s, rng)) is not None)
    return stored, state, seat, move


async def test_a_hand_plays_on_the_loop_and_its_last_move_in_a_thread(four_at_a_table, monkeypatch):
    drive, table, players = four_at_a_table
    threaded = []
    real = digital.apply_action
    monkeypatch.setattr(digital, "apply_action", lambda *args, **kwargs: threaded.append(args) or real(*args, **kwargs))
    rng, on_loop = random.Random(5), 0
    for _ in range(2000):
        stored, state, seat, move = await _next_move(table.pk, rng)
        if state.finished:
            break
        player = players[seat]
        message = {**move, "version": stored.version, "key": str(uuid.uuid4())}
        applied = await digital.apply_on_loop(table.pk, seat, message, player_id=player.pk, token=player.token)
        if applied is None:  # the move that ends the hand: nothing was written on the loop
            assert (await sync_to_async(_stored)(table.pk)).version == stored.version
            applied = await digital.in_apply_thread(digital.apply_action, table.pk, seat, message,
                                                    player_id=player.pk, token=player.token, notify=False)
            assert applied.finished
            continue
        on_loop += 1
        after = await sync_to_async(_stored)(table.pk)
        assert not applied.duplicate and applied.version == after.version > stored.version
        assert applied.state.to_json() == after.state  # what the socket keeps is what committed
        assert after.client_keys[-1] == [message["key"], after.version, seat,  # a key is matched per seat,
                                         digital.action_digest(move)]  # and its action told apart
    final = await sync_to_async(_stored)(table.pk)
    assert final.status == TableHand.Status.CONFIRMED
    assert len(threaded) == 1 and on_loop > 10
    assert await sync_to_async(Result.objects.filter(table_id=table.pk).count)() == 1
    if connection.vendor == "postgresql":
        assert len(digital._LoopReader.pool().held) == 1  # one move at a time: one connection, kept


def _recording_statements(monkeypatch) -> list[str]:
    """Every statement the loop's connections are sent from now on (PostgreSQL)."""
    statements: list[str] = []
    real_cursor = digital.psycopg_client_cursor

    def cursor_of(conn):
        cursor = real_cursor(conn)
        execute = cursor.execute

        async def recorded(sql, *args, **kwargs):
            statements.append(sql)
            return await execute(sql, *args, **kwargs)

        cursor.execute = recorded
        return cursor

    monkeypatch.setattr(digital, "psycopg_client_cursor", cursor_of)
    return statements


async def _play_to_the_end_holding_states(table, players, statements: list[str], rng, before_last=None):
    """Every move on the loop, the socket keeping each state it applied; returns the last move's
    ``Applied`` and its message, ``statements`` holding that move's statements only.
    ``before_last``: called (in a thread) just before the move that ends the hand."""
    game = get_game("film-fantasy")
    for _ in range(2000):
        stored, state, seat, move = await _next_move(table.pk, rng)
        player = players[seat]
        message = {**move, "version": stored.version, "key": str(uuid.uuid4())}
        moved = game.load_hand(stored.state)
        moved.apply(seat, {k: v for k, v in move.items()})
        if moved.finished and before_last is not None:
            await sync_to_async(before_last)(seat)
        statements.clear()
        applied = await digital.apply_on_loop(table.pk, seat, message, player_id=player.pk, token=player.token)
        assert applied is not None
        digital.keep_state(applied)  # as the socket does once its move has committed
        if applied.finished:
            return applied, message
        assert applied.recorded is None and len(statements) == 1  # the one UPDATE on the held state
    raise AssertionError("the hand did not end")


@pytest.mark.postgres
async def test_the_last_move_on_a_state_this_process_holds_records_its_result_on_the_loop(four_at_a_table,
                                                                                        monkeypatch):
    """A socket keeps the state of every version it applied (``keep_state``): the move that ends
    the hand is known to end it from that state. Without the table's facts (no socket of this
    process has read them), the loop reads the row with what the result needs and the commit
    made durable, then writes the result, its scores and the table with the COMMIT: two round
    trips, no apply thread. The drive's screens are told once it has committed (``announce``),
    as a move recorded in a thread tells them."""
    drive, table, players = four_at_a_table
    statements = _recording_statements(monkeypatch)
    threaded = []
    monkeypatch.setattr(digital, "in_apply_thread", lambda fn, *a, **k: threaded.append(fn) or _done())
    applied, message = await _play_to_the_end_holding_states(table, players, statements, random.Random(7))
    assert applied.finished and applied.recorded is not None and threaded == []
    # two round trips: the locked read with what the result needs and the durable commit, then
    # the result with its scores, the table and the COMMIT
    assert len(statements) == 2
    assert statements[0].startswith("BEGIN;") and "FOR UPDATE" in statements[0]
    assert "'synchronous_commit', 'on'" in statements[0] and "array_agg" in statements[0]
    assert 'INSERT INTO "scoring_result"' in statements[1] and 'INSERT INTO "scoring_score"' in statements[1]
    assert statements[1].rstrip().endswith("COMMIT")
    await _recorded_as_a_thread_records(table, players, applied, message)
    await _screens_told_once_after(applied, table, monkeypatch)


@pytest.mark.postgres
async def test_the_last_move_with_the_tables_facts_held_is_one_durable_statement(four_at_a_table, monkeypatch):
    """A socket of this process has read its table's facts (``table_facts``: who sits where, and
    the drive's game and house rules): the move that ends the hand is one statement, as every
    other move, that also inserts the result and its scores, and whose commit waits for the
    disk. The result is the one a thread records; the drive's screens are told after it."""
    drive, table, players = four_at_a_table
    facts = await sync_to_async(digital.table_facts)(table.pk)
    assert [seat["name"] for seat in facts["seats"]] == [p.name for p in players]
    statements = _recording_statements(monkeypatch)
    threaded = []
    monkeypatch.setattr(digital, "in_apply_thread", lambda fn, *a, **k: threaded.append(fn) or _done())
    applied, message = await _play_to_the_end_holding_states(table, players, statements, random.Random(7))
    assert applied.finished and threaded == []
    assert len(statements) == 1 and statements[0].startswith("WITH moved AS (UPDATE")
    assert 'INSERT INTO "scoring_result"' in statements[0] and 'INSERT INTO "scoring_score"' in statements[0]
    assert "'synchronous_commit', 'on'" in statements[0]
    assert applied.recorded.pk == table.pk and applied.recorded.hand.drive_id == drive.pk
    await _recorded_as_a_thread_records(table, players, applied, message)
    await _screens_told_once_after(applied, table, monkeypatch)


@pytest.mark.postgres
@pytest.mark.parametrize("change", ["house rules", "seating"])
async def test_a_last_move_whose_held_facts_changed_is_recorded_from_the_locked_row(four_at_a_table, monkeypatch,
                                                                                    change):
    """The facts this process read for the table no longer hold when its hand ends (the
    organiser changed the house rules, or who sits at another seat): the one statement matches
    nothing and writes nothing, and the locked path records the result from the row's facts."""
    from drive.models import Drive
    from tables.models import Seat

    drive, table, players = four_at_a_table
    await sync_to_async(digital.table_facts)(table.pk)
    statements = _recording_statements(monkeypatch)
    monkeypatch.setattr(digital, "in_apply_thread", lambda fn, *a, **k: _done())
    seated = list(players)

    def change_facts(mover):
        if change == "house rules":
            Drive.objects.filter(pk=drive.pk).update(house_rules={"declarer_joker_penalty": False})
            return
        one, two = [at for at in range(4) if at != mover][:2]  # two other seats swap their players
        with transaction.atomic():  # (a player sits once per hand, a seat holds one player)
            Seat.objects.filter(table=table, position=one).update(position=99)
            Seat.objects.filter(table=table, position=two).update(position=one)
            Seat.objects.filter(table=table, position=99).update(position=two)
        seated[one], seated[two] = seated[two], seated[one]

    applied, message = await _play_to_the_end_holding_states(table, players, statements, random.Random(7),
                                                             before_last=change_facts)
    assert len(statements) == 3 and statements[0].startswith("WITH moved AS (UPDATE")  # matched nothing
    assert statements[1].startswith("BEGIN;") and statements[2].rstrip().endswith("COMMIT")
    assert applied.recorded is not None
    await _recorded_as_a_thread_records(table, seated, applied, message)


async def _recorded_as_a_thread_records(table, players, applied, message):
    after = await sync_to_async(_stored)(table.pk)
    assert after.status == TableHand.Status.CONFIRMED and after.version == applied.version
    assert after.state == applied.state.to_json() and after.client_keys[-1] == [
        message["key"], after.version, applied.move[0], digital.action_digest(applied.move[1])]
    await _same_result_as_a_thread_records(table, players, after)


async def _screens_told_once_after(applied, table, monkeypatch):
    told = []
    monkeypatch.setattr(digital, "table_listeners", [lambda t: told.append(t.pk)])
    monkeypatch.setattr(digital, "in_apply_thread", real_in_apply_thread)
    await digital.announce(None, applied, through_layer=False)
    assert told == [table.pk]  # after the commit, once


real_in_apply_thread = digital.in_apply_thread


async def _done():
    return None


async def _same_result_as_a_thread_records(table, players, stored):
    """The result and scores of a finished table are what ``record_result`` makes of the engine's
    outcome: confirmed, digital, the summary in the game's entry format, counted scores."""
    from scoring.models import Score

    final = get_game("film-fantasy").load_hand(stored.state)
    outcome = final.outcome()
    hand_number, drive_id = await sync_to_async(lambda: (table.hand.number, table.hand.drive_id))()
    result = await sync_to_async(Result.objects.get)(table_id=table.pk)
    assert (result.status, result.source, result.revision) == (Result.Status.CONFIRMED, Result.Source.DIGITAL, 1)
    assert result.mover_id == players[outcome.mover].pk
    assert result.declarer_id == (players[outcome.declarer].pk if outcome.declarer is not None else None)
    assert result.drive_id == drive_id and result.created_at is not None
    assert result.summary["digital"]["version"] == final.version
    assert result.summary["digital"]["points"] == list(outcome.points)
    scores = await sync_to_async(lambda: list(Score.objects.filter(result=result).order_by("player_id").values(
        "player_id", "points", "declared", "counted", "hand_number", "drive_id")))()
    assert scores == sorted(({"player_id": players[at].pk, "points": points, "declared": outcome.declarer == at,
                              "counted": True, "hand_number": hand_number, "drive_id": drive_id}
                             for at, points in enumerate(outcome.points)), key=lambda row: row["player_id"])


@pytest.mark.postgres
async def test_a_last_move_not_foreseen_is_recorded_in_a_thread_with_its_row_read_for_it(four_at_a_table):
    """A last move on a version this process does not hold: its row was read without what the
    result needs, so the loop rolls back and the apply thread records it, its commit made
    durable."""
    drive, table, players = four_at_a_table
    rng = random.Random(7)
    for _ in range(2000):
        stored, state, seat, move = await _next_move(table.pk, rng)
        player = players[seat]
        message = {**move, "version": stored.version, "key": str(uuid.uuid4())}
        digital._STATES.clear()  # another process applied the moves before
        applied = await digital.apply_on_loop(table.pk, seat, message, player_id=player.pk, token=player.token)
        if applied is None:
            break
        assert not applied.finished
    assert (await sync_to_async(_stored)(table.pk)).version == stored.version  # nothing written on the loop
    assert await sync_to_async(Result.objects.filter(table_id=table.pk).exists)() is False
    applied, statements = await sync_to_async(_apply_capturing)(table.pk, seat, message, player)
    assert applied.finished and applied.recorded is None  # recorded in the thread's transaction
    durability = [sql for sql in statements if "synchronous_commit" in sql]
    assert "'synchronous_commit', 'on'" in durability[-1]
    await _same_result_as_a_thread_records(table, players, await sync_to_async(_stored)(table.pk))


def _apply_capturing(table_id, seat, message, player):
    """The move applied as in an apply thread, with the statements of its transaction (up to its
    COMMIT: the drive's screens read after it)."""
    with CaptureQueriesContext(connection) as queries:
        applied = digital.apply_action(table_id, seat, message, player_id=player.pk, token=player.token, notify=False)
    statements = [q["sql"] for q in queries.captured_queries]
    return applied, statements[: statements.index("COMMIT")]


async def test_a_seat_that_a_bot_plays_for_its_player_is_refused_to_the_phone_on_the_loop(four_at_a_table):
    """The organiser has a bot stand in (``digital.set_stand_in``): the player's phone is refused,
    on the one-statement path too (PostgreSQL: its UPDATE matches no seat a bot plays)."""
    drive, table, players = four_at_a_table
    stored, state, seat, move = await _next_move(table.pk, random.Random(3))
    digital._cache_state(table.pk, stored.version, state=state)  # held: the one statement is tried first
    await sync_to_async(TableHand.objects.filter(pk=table.pk).update)(bots=[seat])
    player = players[seat]
    with pytest.raises(digital.DigitalError, match="A bot is playing your seat for now"):
        await digital.apply_on_loop(table.pk, seat, {**move, "version": stored.version, "key": "k"},
                                    player_id=player.pk, token=player.token)
    assert (await sync_to_async(_stored)(table.pk)).version == stored.version


async def test_refusals_on_the_loop_change_nothing_and_keep_the_connection(four_at_a_table):
    drive, table, players = four_at_a_table
    stored, _state, seat, move = await _next_move(table.pk, random.Random(1))
    player, other = players[seat], players[(seat + 1) % 4]
    pool = digital._LoopReader.pool() if connection.vendor == "postgresql" else None
    refusals = [
        (seat, {**move, "version": stored.version}, other.pk, other.token, "does not hold"),  # another's seat
        (seat, {**move, "version": stored.version}, player.pk, "not-the-token", "join the drive again"),  # signed out
        (seat, {**move, "version": stored.version, "seat": (seat + 1) % 4}, player.pk, player.token, "only for your own seat"),
        (seat, {"type": "pass", "card": "99-9", "version": stored.version}, player.pk, player.token, ""),  # the engine
        (seat, {**move}, player.pk, player.token, "version"),  # no version
    ]
    for at, message, player_id, token, says in refusals:
        with pytest.raises(digital.DigitalError) as refused:
            await digital.apply_on_loop(table.pk, at, message, player_id=player_id, token=token)
        assert says.lower() in str(refused.value).lower()
        assert (await sync_to_async(_stored)(table.pk)).version == stored.version
        if connection.vendor == "postgresql":
            assert len(pool.held) == 1 and pool.idle == list(pool.held)  # rolled back, sound, free
        else:
            assert not digital._LoopSqlite.connection().in_transaction  # rolled back
    message = {**move, "version": stored.version, "key": "once"}
    first = await digital.apply_on_loop(table.pk, seat, message, player_id=player.pk, token=player.token)
    again = await digital.apply_on_loop(table.pk, seat, message, player_id=player.pk, token=player.token)
    assert not first.duplicate and again.duplicate and again.version == first.version
    assert (await sync_to_async(_stored)(table.pk)).version == first.version


@pytest.mark.parametrize("path", ["thread", "loop"])
async def test_a_key_reused_for_another_move_is_refused_on_either_path_and_a_repeat_is_a_duplicate(four_at_a_table,
                                                                                                     path):
    """The key a seat sent with one move, sent again with another (a pass of another card, a
    declaration), is refused with ``KEY_REUSED`` and nothing changes, in an apply thread
    (``apply_action``) as on the loop (``apply_on_loop``: SQLite's transaction; on PostgreSQL
    the one statement on the held state matches nothing and the locked path refuses). The same
    move with the same key is still a duplicate."""
    drive, table, players = four_at_a_table
    stored = await sync_to_async(_stored)(table.pk)
    state = get_game("film-fantasy").load_hand(stored.state)
    seat, player = 0, players[0]
    card, other = state.hands[seat][0], state.hands[seat][1]

    async def apply(message):
        if path == "loop":
            applied = await digital.apply_on_loop(table.pk, seat, message, player_id=player.pk, token=player.token)
            if connection.vendor == "sqlite":
                assert applied is not None  # made on the loop, not handed to a thread
            if applied is not None:
                if applied.state is not None:
                    digital.keep_state(applied)  # as the socket does: the next move may be one statement
                return applied
        return await digital.in_apply_thread(digital.apply_action, table.pk, seat, message, player_id=player.pk,
                                             token=player.token, notify=False)

    message = {"type": "pass", "card": card, "version": stored.version, "key": "mine-1"}
    first = await apply(message)
    assert not first.duplicate and first.version > stored.version
    moved = await sync_to_async(_stored)(table.pk)
    for reused in ({"type": "pass", "card": other}, {"type": "declare"}):
        for version in (moved.version, stored.version):
            with pytest.raises(digital.DigitalError) as refused:
                await apply({**reused, "version": version, "key": "mine-1"})
            assert str(refused.value) == digital.KEY_REUSED
            after = await sync_to_async(_stored)(table.pk)
            assert (after.state, after.version, after.client_keys) == (moved.state, moved.version, moved.client_keys)
    # The same frame again, and the same move with its fields in another order: a duplicate.
    for repeat in (message, {"key": "mine-1", "version": stored.version, "card": card, "type": "pass"}):
        again = await apply(repeat)
        assert again.duplicate and again.version == first.version
    assert (await sync_to_async(_stored)(table.pk)).version == moved.version
    # What told the two apart: the key's entry holds a digest of its move.
    assert moved.client_keys[-1] == ["mine-1", moved.version, seat, digital.action_digest({"type": "pass", "card": card})]
    # The other card was a move the seat could make: with a new key it is made.
    changed = await apply({"type": "pass", "card": other, "version": moved.version, "key": "mine-2"})
    assert not changed.duplicate and changed.version > moved.version


def test_a_key_stored_before_its_digest_was_is_taken_for_the_same_move(four_at_a_table):
    """Tables saved before the digest hold entries of three items ([key, version, seat]) or two
    ([key, version]): a key found there is answered as before, a duplicate, whatever the move."""
    drive, table, players = four_at_a_table
    stored = _stored(table.pk)
    state = get_game("film-fantasy").load_hand(stored.state)
    TableHand.objects.filter(pk=table.pk).update(client_keys=[["old-three", stored.version, 0], ["old-two", 0]])
    for key in ("old-three", "old-two"):
        message = {"type": "pass", "card": state.hands[0][1], "version": stored.version, "key": key}
        applied = digital.apply_action(table.pk, 0, message, player_id=players[0].pk)
        assert applied.duplicate and applied.version == stored.version
    after = _stored(table.pk)
    assert (after.state, after.version) == (stored.state, stored.version)


@pytest.mark.postgres
async def test_without_a_connection_on_the_loop_the_move_goes_to_a_thread(four_at_a_table, monkeypatch):
    drive, table, players = four_at_a_table

    async def unreachable():
        raise psycopg.OperationalError("connection refused")

    monkeypatch.setattr(digital._LoopReader, "_open", staticmethod(unreachable))
    digital._LoopReader.close_all()
    stored, _state, seat, move = await _next_move(table.pk, random.Random(2))
    player = players[seat]
    message = {**move, "version": stored.version}
    assert await digital.apply_on_loop(table.pk, seat, message, player_id=player.pk, token=player.token) is None
    assert not digital._LoopReader.ready()  # and the next ones go to a thread at once, for a while
    assert (await sync_to_async(_stored)(table.pk)).version == stored.version
    socket, first = await connected(drive, player)
    await socket.send_json_to(action(move["type"], first["view"]["version"], **{k: v for k, v in move.items()
                                                                              if k != "type"}))
    reply = await until(socket, lambda f: f["type"] in ("ok", "error"))
    assert reply["type"] == "ok", reply
    await socket.disconnect()


@pytest.mark.postgres
@pytest.mark.parametrize("keyed", [True, False])
async def test_a_move_whose_commit_is_not_confirmed_is_applied_once_and_everyone_sees_the_table(
    four_at_a_table, monkeypatch, keyed
):
    """Once a move's write (and its commit) may have reached the database, a failure is never
    a blind second try that could apply the move twice: a move with a client key is sent again
    through the locked path, which finds it applied (a duplicate); one without is the phone's
    error. The move may have committed (here it did, and only its answer was lost), so every
    phone is shown the version the table holds now."""
    drive, table, players = four_at_a_table
    real = digital.psycopg_client_cursor

    def answer_lost(conn):
        cursor = real(conn)
        execute = cursor.execute

        async def execute_then_fail(sql, params=None):
            result = await execute(sql, params)
            if sql.startswith("UPDATE "):  # the move's write (and its commit), whichever way
                raise psycopg.OperationalError("server closed the connection unexpectedly")
            return result

        cursor.execute = execute_then_fail
        return cursor

    pairs = [await connected(drive, p) for p in players]
    sockets, firsts = [s for s, _ in pairs], [f for _, f in pairs]
    monkeypatch.setattr(digital, "psycopg_client_cursor", answer_lost)
    view = firsts[0]["view"]
    move = action("pass", view["version"], card=view["hand"][0])
    if not keyed:
        del move["key"]
    await sockets[0].send_json_to(move)
    reply = await until(sockets[0], lambda f: f["type"] in ("ok", "error"))
    if keyed:
        assert reply["type"] == "ok" and reply["duplicate"] is True  # found applied, not applied again
    else:
        assert reply["type"] == "error" and "look again" in reply["message"]
    stored = await sync_to_async(_stored)(table.pk)
    assert stored.version == view["version"] + 1  # committed once
    assert digital._LoopReader.pool().held == set()  # its connection dropped
    for seat, socket in enumerate(sockets):  # every phone, this one too, shows the table as it is
        frame = await until(socket, lambda f: f["type"] == "state" and f["view"]["version"] == stored.version)
        assert frame["view"]["seat"] == seat
    for socket in sockets:
        await socket.disconnect()


@pytest.mark.postgres
async def test_a_loop_connection_cut_while_idle_costs_the_next_move_nothing(four_at_a_table):
    """A database restart or an idle timeout cuts a connection the loop keeps: the move that
    finds it dead (before anything was written) goes to a thread, and the phone sees only ok."""
    drive, table, players = four_at_a_table
    pairs = [await connected(drive, p) for p in players]
    sockets, firsts = [s for s, _ in pairs], [f for _, f in pairs]
    view = firsts[0]["view"]
    await sockets[0].send_json_to(action("pass", view["version"], card=view["hand"][0]))
    assert (await until(sockets[0], lambda f: f["type"] in ("ok", "error")))["type"] == "ok"
    [conn] = digital._LoopReader.pool().held
    from tests.tables.test_local_fanout import _terminate

    await _terminate(conn.info.backend_pid)
    view = firsts[1]["view"]
    await sockets[1].send_json_to(action("pass", view["version"], card=view["hand"][0], basis=view["basis"]))
    reply = await until(sockets[1], lambda f: f["type"] in ("ok", "error"))
    assert reply["type"] == "ok", reply
    assert conn not in digital._LoopReader.pool().held
    for socket in sockets:
        await socket.disconnect()


@pytest.mark.sqlite
async def test_on_sqlite_a_database_held_by_another_writer_sends_the_move_to_a_thread_at_once(four_at_a_table):
    """The loop never waits for SQLite's lock (every socket of the process would wait with it):
    while another connection writes, the move goes to the apply thread, which waits its turn."""
    import asyncio
    import sqlite3
    import time

    drive, table, players = four_at_a_table
    stored, _state, seat, move = await _next_move(table.pk, random.Random(4))
    player = players[seat]
    message = {**move, "version": stored.version, "key": str(uuid.uuid4())}
    writer = sqlite3.connect(str(connection.settings_dict["NAME"]), isolation_level=None, check_same_thread=False)
    writer.execute("BEGIN IMMEDIATE")
    try:
        started = time.monotonic()
        assert await digital.apply_on_loop(table.pk, seat, message, player_id=player.pk, token=player.token) is None
        # Refused at once, not after SQLite's wait (settings' 20 s, or sqlite3's default 5 s): the
        # bound leaves a busy machine room (0.5 s might not), and a wait for the lock fails it.
        assert time.monotonic() - started < 3
        thread = asyncio.ensure_future(digital.in_apply_thread(
            digital.apply_action, table.pk, seat, message, player_id=player.pk, token=player.token, notify=False))
        await asyncio.sleep(0.3)
        assert not thread.done()  # the thread waits for the writer
    finally:
        writer.execute("COMMIT")
        writer.close()
    applied = await thread
    assert applied.version > stored.version and not applied.duplicate
    assert (await sync_to_async(_stored)(table.pk)).version == applied.version


@pytest.mark.sqlite
async def test_on_sqlite_the_loop_never_checkpoints_and_an_apply_thread_does_every_so_often(four_at_a_table, monkeypatch):
    """A checkpoint writes the database file and waits for the disk: never on the loop."""
    import asyncio
    import threading

    drive, table, players = four_at_a_table
    monkeypatch.setattr(digital._LoopSqlite, "CHECKPOINT_EVERY", 2)
    ran_in = []
    real = digital._checkpoint
    monkeypatch.setattr(digital, "_checkpoint", lambda: ran_in.append(threading.current_thread().name) or real())
    rng = random.Random(6)
    for _ in range(4):
        stored, _state, seat, move = await _next_move(table.pk, rng)
        player = players[seat]
        applied = await digital.apply_on_loop(table.pk, seat, {**move, "version": stored.version},
                                              player_id=player.pk, token=player.token)
        assert applied is not None and not applied.finished
    for _ in range(500):  # up to 10 s: the checkpoints run in threads, slow to start on a busy machine
        if len(ran_in) == 2:
            break
        await asyncio.sleep(0.02)
    assert len(ran_in) == 2 and all(name.startswith("digital-apply") for name in ran_in)
    assert digital._LoopSqlite.connection().execute("PRAGMA wal_autocheckpoint").fetchone()[0] == 0


def _statements(monkeypatch) -> list[str]:
    """The first word of every statement the loop's moves send."""
    sent: list[str] = []
    real = digital.psycopg_client_cursor

    def recording(conn):
        cursor = real(conn)
        execute = cursor.execute

        async def record(sql, params=None):
            sent.append(sql.split()[0])
            return await execute(sql, params)

        cursor.execute = record
        return cursor

    monkeypatch.setattr(digital, "psycopg_client_cursor", recording)
    return sent


@pytest.mark.postgres
async def test_a_move_on_the_version_this_process_holds_is_one_statement(four_at_a_table, monkeypatch):
    """The common case: the phone acts on the version it was shown, which this process holds:
    one UPDATE that matches only the table still at that version, its sender in the seat and
    its key new; the client keys keep the last 64."""
    drive, table, players = four_at_a_table
    sent = _statements(monkeypatch)
    rng = random.Random(8)
    await sync_to_async(TableHand.objects.filter(pk=table.pk).update)(client_keys=[[f"old-{i}", 0] for i in range(64)])
    for _ in range(3):
        stored, _state, seat, move = await _next_move(table.pk, rng)
        assert digital.cached_state(table.pk, stored.version) is not None  # dealt here, or applied and kept
        message = {**move, "version": stored.version, "key": str(uuid.uuid4())}
        sent.clear()
        applied = await digital.apply_on_loop(table.pk, seat, message, player_id=players[seat].pk,
                                              token=players[seat].token)
        assert sent == ["UPDATE"]
        digital.keep_state(applied)  # as the socket does
        after = await sync_to_async(_stored)(table.pk)
        assert after.version == applied.version > stored.version and after.state == applied.state.to_json()
        assert len(after.client_keys) == 64 and after.client_keys[-1] == [message["key"], after.version, seat,
                                                                          digital.action_digest(move)]
    assert after.client_keys[0] == ["old-3", 0]  # the three oldest went
    again = await digital.apply_on_loop(table.pk, seat, message, player_id=players[seat].pk, token=players[seat].token)
    assert again.duplicate  # the key is known: nothing matched, the locked path found it


@pytest.mark.postgres
async def test_a_move_on_a_version_another_process_replaced_takes_the_locked_path(four_at_a_table, monkeypatch):
    """The phone acts on a version this process holds but another process has replaced: the
    one statement matches nothing, and the locked path decides (here: stale, refused)."""
    drive, table, players = four_at_a_table
    rng = random.Random(9)
    stored, state, seat, move = await _next_move(table.pk, rng)
    game = get_game("film-fantasy")
    other, other_move = next((s, m) for s in range(4) if s != seat and (m := game.bot_action(state, s, rng)))
    # Another process moves first (this one does not hold the new version).
    await digital.in_apply_thread(digital.apply_action, table.pk, seat, {**move, "version": stored.version},
                                  player_id=players[seat].pk, notify=False)
    sent = _statements(monkeypatch)
    stale = {**other_move, "version": stored.version, "basis": "not-its-basis"}  # good on the held version
    with pytest.raises(digital.DigitalError, match="moved on"):
        await digital.apply_on_loop(table.pk, other, stale, player_id=players[other].pk, token=players[other].token)
    assert sent[:2] == ["UPDATE", "BEGIN;"]  # matched nothing, then decided under the lock
    assert (await sync_to_async(_stored)(table.pk)).version == stored.version + 1


async def _up_to_the_last_move(table, players, rng):
    """Play the hand on the loop, keeping each state as a socket does, up to its last move:
    returns (seat, message, player) of the move that ends it (not yet sent)."""
    for _ in range(2000):
        stored, state, seat, move = await _next_move(table.pk, rng)
        assert not state.finished
        message = {**move, "version": stored.version, "key": str(uuid.uuid4())}
        moved = digital._moved_copy(table.pk, stored.version, seat, move) if digital._STATES else None
        if moved is not None and moved.finished:
            return seat, message, players[seat]
        applied = await digital.apply_on_loop(table.pk, seat, message, player_id=players[seat].pk,
                                              token=players[seat].token)
        assert applied is not None and not applied.finished
        digital.keep_state(applied)
    raise AssertionError("the hand never ended")


async def _board_result(drive, ws) -> dict:
    """The next 'result' frame on a board socket (its full updates passed over)."""
    for _ in range(10):
        frame = await ws.receive_json_from(timeout=5)
        if frame["type"] == "result":
            return frame
    raise AssertionError("no result frame")


@pytest.mark.postgres
@pytest.mark.parametrize("cancelled_in_commit", [False, True])
async def test_the_board_hears_of_a_result_recorded_on_the_loop_even_if_the_phone_goes_in_its_commit(
        four_at_a_table, monkeypatch, cancelled_in_commit):
    """The real listener (``live.table_finished``) through ``_results_told``: a board of the drive
    receives the table's result message once the last move's transaction on the loop has
    committed, through ``announce``; and also when the socket's task is cancelled while the
    COMMIT is on its way (a phone closing at the hand's end): the commit may have happened, so
    the drive's screens are told all the same, in a task of their own."""
    from channels.testing import WebsocketCommunicator

    from config import layer
    from config.asgi import application

    drive, table, players = four_at_a_table
    board = WebsocketCommunicator(application, f"/ws/drive/{drive.join_code}/board/",
                                  headers=[(b"origin", b"http://localhost")])
    assert (await board.connect(timeout=5))[0]
    assert (await board.receive_json_from(timeout=5))["type"] == "update"
    seat, message, player = await _up_to_the_last_move(table, players, random.Random(11))
    if cancelled_in_commit:
        real_cursor = digital.psycopg_client_cursor

        def cursor_of(conn):
            cursor = real_cursor(conn)
            execute = cursor.execute

            async def then_cancelled(sql, *args, **kwargs):
                done = await execute(sql, *args, **kwargs)
                if sql.rstrip().endswith("COMMIT"):
                    raise asyncio.CancelledError  # the commit went through; its task did not hear it
                return done

            cursor.execute = then_cancelled
            return cursor

        monkeypatch.setattr(digital, "psycopg_client_cursor", cursor_of)
        with pytest.raises(asyncio.CancelledError):
            await digital.apply_on_loop(table.pk, seat, message, player_id=player.pk, token=player.token)
        await asyncio.gather(*layer._tasks, return_exceptions=True)
    else:
        applied = await digital.apply_on_loop(table.pk, seat, message, player_id=player.pk, token=player.token)
        assert applied.finished and applied.recorded is not None
        await digital.announce(None, applied, through_layer=False)
    result = await _board_result(drive, board)
    assert result["table"] == 1 and result["status"] == "confirmed"
    stored = await sync_to_async(Result.objects.get)(table_id=table.pk)
    assert stored.status == Result.Status.CONFIRMED
    later = []
    while not await board.receive_nothing(timeout=0.3):
        later.append((await board.receive_json_from())["type"])
    assert "result" not in later  # told once
    await board.disconnect()


@pytest.mark.postgres
async def test_a_move_whose_task_is_cancelled_as_its_statement_commits_is_told_to_the_table(four_at_a_table,
                                                                                          monkeypatch):
    """The one statement of a move on the held state commits by itself: a phone that goes just
    as it is sent (its task cancelled) cannot say so, so the table's other phones (and bots)
    are told the version the table holds now all the same."""
    from config import layer

    drive, table, players = four_at_a_table
    rng = random.Random(3)
    stored, state, seat, move = await _next_move(table.pk, rng)
    first = await digital.apply_on_loop(table.pk, seat, {**move, "version": stored.version, "key": str(uuid.uuid4())},
                                        player_id=players[seat].pk, token=players[seat].token)
    digital.keep_state(first)  # the next move is made on the held state: one statement
    stored, state, seat, move = await _next_move(table.pk, rng)
    watcher = players[(seat + 1) % 4]
    socket, view = await connected(drive, watcher)
    assert view["view"]["version"] == stored.version
    real_cursor = digital.psycopg_client_cursor

    def cursor_of(conn):
        cursor = real_cursor(conn)
        execute = cursor.execute

        async def then_cancelled(sql, *args, **kwargs):
            await execute(sql, *args, **kwargs)
            raise asyncio.CancelledError  # committed; its task did not hear it

        cursor.execute = then_cancelled
        return cursor

    monkeypatch.setattr(digital, "psycopg_client_cursor", cursor_of)
    with pytest.raises(asyncio.CancelledError):
        await digital.apply_on_loop(table.pk, seat, {**move, "version": stored.version, "key": str(uuid.uuid4())},
                                    player_id=players[seat].pk, token=players[seat].token)
    after = await sync_to_async(_stored)(table.pk)
    assert after.version == stored.version + 1  # it did commit
    frame = await until(socket, lambda f: f["type"] == "state" and f["view"]["version"] == after.version)
    assert frame["view"]["seat"] == (seat + 1) % 4
    await asyncio.gather(*layer._tasks, return_exceptions=True)
    await socket.disconnect()
