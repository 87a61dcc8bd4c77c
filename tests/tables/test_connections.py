"""Database work a socket does in a thread gives its connection back when the work is done
(``config.db.database_sync_to_async``): a connection kept open by an executor thread would
never go back to the PostgreSQL pool, and enough of them (one per thread of a big machine's
executor) would leave none for the pages."""

from __future__ import annotations

import asyncio
import threading

import pytest
from django.db.backends.signals import connection_created

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
    frames = [await socket.receive_json_from(timeout=5) for _ in range(consumers.SYNC_BURST + 10)]
    views = [f for f in frames if f["type"] == "state"]
    refused = [f for f in frames if f["type"] == "error"]
    assert len(views) == consumers.SYNC_BURST and len(refused) == 10
    assert all("too often" in f["message"] for f in refused)
    monkeypatch.setattr(consumers, "SYNC_RATE", 100.0)
    await asyncio.sleep(0.05)  # a moment later (here: five tokens back) it may look again
    await socket.send_json_to({"type": "sync"})
    assert (await socket.receive_json_from(timeout=5))["type"] == "state"
    await socket.disconnect()
