"""Database work a socket does in a thread gives its PostgreSQL connection back to the pool when
the work is done (``common.db.database_sync_to_async``): a connection kept open by an executor
thread would never go back, and enough of them (one per thread of a big machine's executor)
would leave none for the pages. (On SQLite each thread keeps its connection to the file,
``CONN_MAX_AGE``: there is no pool to starve, and opening one costs 1.8 ms.)"""

from __future__ import annotations

import threading

import pytest
from django.db.backends.signals import connection_created

from common.db import database_sync_to_async
from tables.models import TableHand
from tests.tables.phones import action, at_version, connected, until

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def opened_in_threads():
    """Every Django connection opened from now on outside the test's own thread."""
    opened = []

    def note(sender, connection, **kwargs):
        if threading.current_thread() is not threading.main_thread():
            opened.append(connection)

    connection_created.connect(note)
    yield opened
    connection_created.disconnect(note)


@pytest.mark.postgres
async def test_a_phones_reads_and_moves_leave_no_connection_open_in_a_thread(four_at_a_table, opened_in_threads):
    drive, table, players = four_at_a_table
    sockets = [(await connected(drive, player))[0] for player in players]  # each reads its table in a thread
    for socket in sockets:
        await socket.send_json_to({"type": "sync"})
        await until(socket, at_version(0))
    await sockets[0].send_json_to(action("pass", 0, card="not-a-card"))  # refused: the view again, from a thread
    await until(sockets[0], lambda frame: frame.get("type") == "error")
    for socket in sockets:
        await socket.disconnect()
    assert opened_in_threads  # the work did run in threads
    still_open = [c for c in opened_in_threads if c.connection is not None]
    assert still_open == []


async def test_a_flood_of_syncs_is_refused_beyond_what_a_phone_asks_for(four_at_a_table, monkeypatch):
    """Found by a tester: every sync looks up the player's seat (several queries) and rebuilds the
    view; 1,500 of them from one phone kept the server busy for 9 s. A phone may sync
    ``SYNC_BURST`` times at once and ``SYNC_RATE`` times a second after that; beyond, each is
    answered with a short refusal and no database work."""
    from tables import consumers

    drive, table, players = four_at_a_table
    socket, first = await connected(drive, players[0])  # (connecting is no sync)
    monkeypatch.setattr(consumers, "SYNC_RATE", 0.01)  # no token back during the flood, however slow the machine
    for _ in range(consumers.SYNC_BURST + 10):
        await socket.send_json_to({"type": "sync"})
    frames = [await socket.receive_json_from(timeout=30) for _ in range(consumers.SYNC_BURST + 10)]
    views = [f for f in frames if f["type"] == "state"]
    refused = [f for f in frames if f["type"] == "error"]
    assert len(views) == consumers.SYNC_BURST and len(refused) == 10
    assert all("too often" in f["message"] for f in refused)
    monkeypatch.setattr(consumers, "SYNC_RATE", 1e9)  # a moment later (here: any moment at all) it may look again
    await socket.send_json_to({"type": "sync"})
    assert (await socket.receive_json_from(timeout=30))["type"] == "state"
    await socket.disconnect()


async def test_a_new_socket_does_not_give_a_phone_its_syncs_back(four_at_a_table, monkeypatch):
    """Found by probing: the limit was each socket's, and a phone opening a new socket for every
    20 syncs read the table five times as often. A player's screens share one bucket, kept
    while a socket opens again; another player's is their own."""
    from tables import consumers

    drive, table, players = four_at_a_table
    monkeypatch.setattr(consumers, "SYNC_RATE", 0.01)  # no token back meanwhile, however slow the machine
    first, _ = await connected(drive, players[0])
    for _ in range(consumers.SYNC_BURST):
        await first.send_json_to({"type": "sync"})
    assert [(await first.receive_json_from(timeout=30))["type"] for _ in range(consumers.SYNC_BURST)] == (
        ["state"] * consumers.SYNC_BURST)
    await first.disconnect()
    again, _ = await connected(drive, players[0])
    await again.send_json_to({"type": "sync"})
    refused = await again.receive_json_from(timeout=30)
    assert refused["type"] == "error" and "too often" in refused["message"]
    other, _ = await connected(drive, players[1])
    await other.send_json_to({"type": "sync"})
    assert (await other.receive_json_from(timeout=30))["type"] == "state"
    await again.disconnect()
    await other.disconnect()


async def test_a_flood_of_refused_moves_is_cut_short_like_a_flood_of_syncs(four_at_a_table, monkeypatch):
    """Found by probing: a move the table refuses (a card the phone does not hold, a stale
    version, a hand-made frame) cost a locked read of the table and a view read from the
    database, and nothing limited them: 500 from one phone took 8 s of server work, a flood
    that every other table shared. A refusal is counted as a sync; once a phone has spent its
    syncs, its moves are refused at once, each with its key and no database work, until a
    moment has passed. A phone that plays normally never meets this."""
    from tables import consumers, digital

    drive, table, players = four_at_a_table
    socket, first = await connected(drive, players[0])
    applied = []
    real = digital.apply_action

    def counted(table_id, *args, **kwargs):
        if table_id == table.pk:  # (this test's table: not a move elsewhere in the process)
            applied.append(args)
        return real(table_id, *args, **kwargs)

    monkeypatch.setattr(digital, "apply_action", counted)
    monkeypatch.setattr(consumers, "SYNC_RATE", 0.01)  # no token back during the flood, however slow the machine
    for _ in range(consumers.SYNC_BURST):
        await socket.send_json_to(action("pass", 0, card="no-such-card"))
        assert (await until(socket, lambda f: f["type"] == "error"))["message"].startswith("You do not hold")
        assert (await socket.receive_json_from(timeout=30))["type"] == "state"  # what to choose from now
    assert len(applied) == consumers.SYNC_BURST
    good = action("pass", 0, card=first["view"]["hand"][0])
    for message in (action("pass", 0, card="no-such-card"), good):
        await socket.send_json_to(message)
        refused = await socket.receive_json_from(timeout=30)
        assert refused["type"] == "error" and "too often" in refused["message"] and refused["key"] == message["key"]
    assert await socket.receive_nothing(timeout=0.2)
    assert len(applied) == consumers.SYNC_BURST  # no database work for either
    version = await database_sync_to_async(lambda: TableHand.objects.get(pk=table.pk).version)()
    assert version == 0
    monkeypatch.setattr(consumers, "SYNC_RATE", 1e9)  # a moment later (here: any moment) the same move goes through
    await socket.send_json_to(good)
    assert (await until(socket, lambda f: f["type"] in ("ok", "error")))["type"] == "ok"
    await socket.disconnect()


async def test_a_flood_of_a_move_already_made_is_cut_short_like_a_flood_of_syncs(four_at_a_table, monkeypatch):
    """Found by probing: a move sent again with its key (answered "ok, duplicate" with the view)
    is a locked read of the table and a view, and nothing limited it: 400 a second from one
    socket slowed every table's moves, in every game, after the bell too. A repeat spends a
    sync's token, as a refusal does."""
    from tables import consumers

    drive, table, players = four_at_a_table
    socket, first = await connected(drive, players[0])
    monkeypatch.setattr(consumers, "SYNC_RATE", 0.01)  # no token back during the flood, however slow the machine
    move = action("pass", 0, card=first["view"]["hand"][0])
    await socket.send_json_to(move)
    assert (await until(socket, lambda f: f["type"] in ("ok", "error")))["duplicate"] is False
    for _ in range(consumers.SYNC_BURST):
        await socket.send_json_to(move)
        assert (await until(socket, lambda f: f["type"] in ("ok", "error")))["duplicate"] is True
        assert (await socket.receive_json_from(timeout=30))["type"] == "state"  # the table as it is
    await socket.send_json_to(move)
    refused = await until(socket, lambda f: f["type"] in ("ok", "error"))
    assert refused["type"] == "error" and "too often" in refused["message"] and refused["key"] == move["key"]
    await socket.disconnect()


async def test_a_player_may_hold_only_a_few_game_screens_open_and_the_oldest_gives_way(four_at_a_table):
    """Found by probing: one player could open any number of game sockets on their seat (300
    here), each sent its own view of every move (the table's other phones waited behind them)
    and each a buffer in the server when its client never reads. A player holds at most
    ``MAX_SCREENS`` in a process (two tabs, an old phone and a new one fit); one more closes the
    oldest, which is told why and does not reconnect by itself (close code 4403)."""
    from tables import consumers

    drive, table, players = four_at_a_table
    other, _ = await connected(drive, players[1])
    screens = [(await connected(drive, players[0]))[0] for _ in range(consumers.MAX_SCREENS)]
    newest, first = await connected(drive, players[0])
    told = await screens[0].receive_json_from(timeout=30)
    assert told["type"] == "error" and "open on too many screens" in told["message"]
    assert (await screens[0].receive_output(timeout=30)) == {"type": "websocket.close", "code": 4403}
    for socket in (*screens[1:], newest, other):  # the others play on
        await socket.send_json_to({"type": "sync"})
        assert (await until(socket, lambda f: f["type"] in ("state", "error")))["type"] == "state"
    # It holds MAX_SCREENS now: one more, and the oldest of those gives way in turn.
    newer, _ = await connected(drive, players[0])
    told = await screens[1].receive_json_from(timeout=30)
    assert told["type"] == "error" and "open on too many screens" in told["message"]
    for socket in (*screens[2:], newest, newer, other):
        await socket.disconnect()
    # All closed, none is held any more: MAX_SCREENS new ones, and one more closes the first of them.
    again = [(await connected(drive, players[0]))[0] for _ in range(consumers.MAX_SCREENS)]
    last, _ = await connected(drive, players[0])
    told = await again[0].receive_json_from(timeout=30)
    assert told["type"] == "error" and "open on too many screens" in told["message"]
    for socket in (*again[1:], last):
        await socket.send_json_to({"type": "sync"})
        assert (await until(socket, lambda f: f["type"] in ("state", "error")))["type"] == "state"
        await socket.disconnect()


async def test_a_game_socket_the_server_kills_leaves_no_group_or_screen_behind(four_at_a_table):
    """daphne cancels an application still running ``application_close_timeout`` (10 s) after
    its socket closed: under a burst of connections (1,000 at once from one client), game
    sockets still connecting when their clients gave up, thousands of them. A cancelled consumer
    is never dispatched its ``websocket.disconnect``; found by storming a real server, its
    channel stayed in its phone's, table's and drive's groups and the consumer in
    ``_SCREENS``. Cancelled here as daphne does, it leaves neither."""
    import asyncio

    from channels.layers import InMemoryChannelLayer, get_channel_layer

    from drive import broadcast
    from tables import consumers, digital

    drive, table, players = four_at_a_table
    socket, _ = await connected(drive, players[0])
    groups = [broadcast.phone_group(players[0].pk), digital.table_group(table.pk),
              broadcast.drive_group(drive.pk, "playing")]
    assert consumers._SCREENS.get(players[0].pk)
    socket.future.cancel()  # daphne's Server.application_checker, the timeout past
    with pytest.raises(asyncio.CancelledError):
        await socket.future
    assert players[0].pk not in consumers._SCREENS
    channel_layer = get_channel_layer()
    if isinstance(channel_layer, InMemoryChannelLayer):  # (Redis's membership is not readable here)
        assert not any(channel_layer.groups.get(group) for group in groups)
