"""On PostgreSQL a digital move commits without waiting for the disk (as SQLite's WAL with
synchronous=NORMAL does); the move that ends the hand, whose result enters the drive, waits."""

from __future__ import annotations

import pytest
from django.db import connection

from tables import digital
from tables.models import TableHand
from tests.tables.conftest import play_to_the_end

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


def test_moves_commit_lazily_and_the_last_move_durably(four_at_a_table, monkeypatch):
    drive, table, players = four_at_a_table
    seen: list[tuple[str, bool]] = []
    real = digital._write

    def write(row, fields):
        with connection.cursor() as cursor:
            cursor.execute("SHOW synchronous_commit")
            seen.append((cursor.fetchone()[0], "status" in fields))
        real(row, fields)

    monkeypatch.setattr(digital, "_write", write)
    play_to_the_end(table, players, 3)
    assert TableHand.objects.get(pk=table.pk).status == TableHand.Status.CONFIRMED
    assert seen[-1] == ("on", True)  # the move that recorded the result
    assert len(seen) > 10 and set(seen[:-1]) == {("off", False)}
    with connection.cursor() as cursor:  # and nothing leaked out of the transactions
        cursor.execute("SHOW synchronous_commit")
        assert cursor.fetchone()[0] == "on"


async def test_a_kept_connection_cut_while_idle_is_replaced_before_the_next_move(four_at_a_table, monkeypatch):
    """A database restart or an idle timeout cuts the connection an apply thread keeps: after a
    pause it is checked before use, so the next move does not fail on it."""
    from asgiref.sync import sync_to_async

    from tests.tables.phones import action, connected, until

    monkeypatch.setattr(digital, "CHECK_IDLE_SECONDS", 0)
    drive, table, players = four_at_a_table
    pairs = [await connected(drive, p) for p in players]
    sockets, firsts = [s for s, _ in pairs], [f for _, f in pairs]

    def backend_pid() -> int:
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_backend_pid()")
            return cursor.fetchone()[0]

    def terminate(pid: int) -> bool:
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_terminate_backend(%s)", [pid])
            return cursor.fetchone()[0]

    killed = await digital.in_apply_thread(backend_pid)
    assert await sync_to_async(terminate)(killed)
    view = firsts[1]["view"]
    await sockets[1].send_json_to(action("pass", view["version"], card=view["hand"][0]))
    reply = await until(sockets[1], lambda f: f["type"] in ("ok", "error"))
    assert reply["type"] == "ok", reply
    assert await digital.in_apply_thread(backend_pid) != killed
    for socket in sockets:
        await socket.disconnect()
