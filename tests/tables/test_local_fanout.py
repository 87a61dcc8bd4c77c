"""An applied action reaches the table's other sockets of the same process directly (not through
the channel layer), once each; other processes are reached through the layer (Redis)."""

from __future__ import annotations

import asyncio
import threading
import time

import pytest
from channels.db import database_sync_to_async

from tables import consumers, digital
from tables.models import TableHand
from tests import spies
from tests.tables.phones import action, at_version, codes_in, connected, until

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def table_sends(monkeypatch):
    """Every group_send to a table's group, from whichever socket makes it."""
    return spies.group_sends(monkeypatch, lambda group, message: group.startswith("table-") and (group, message))


def assert_version_told(table_sends, table, version: int) -> None:
    """One message through the layer: "table T is at version V", with the sealed move and no card."""
    [(group, message)] = table_sends
    assert group == digital.table_group(table.pk)
    assert {k: v for k, v in message.items() if k != "move"} == digital.version_message(table.pk, version)
    assert set(message["move"]) == {"seat", "action", "digest"}
    assert codes_in(message) == set()


async def _four(drive, players):
    pairs = [await connected(drive, p) for p in players]
    return [s for s, _ in pairs], [f for _, f in pairs]


async def _states_after(socket, version: int, before: list[dict] = (), quiet: float = 0.3) -> list[dict]:
    """Every state frame (after those ``before``) until one of ``version`` has come, each waited
    for however busy the machine, then until the socket has been quiet for ``quiet`` seconds."""
    frames = list(before)
    while not any(f["view"]["version"] >= version for f in frames):
        frame = await socket.receive_json_from(timeout=10)
        if frame["type"] == "state":
            frames.append(frame)
    while not await socket.receive_nothing(timeout=quiet):
        frame = await socket.receive_json_from()
        if frame["type"] == "state":
            frames.append(frame)
    return frames


async def test_the_other_phones_of_this_process_get_the_view_without_the_layer(four_at_a_table, table_sends):
    from channels.layers import InMemoryChannelLayer, get_channel_layer

    drive, table, players = four_at_a_table
    in_memory = isinstance(get_channel_layer(), InMemoryChannelLayer)
    sockets, firsts = await _four(drive, players)
    version = firsts[0]["view"]["version"]
    await sockets[0].send_json_to(action("pass", version, card=firsts[0]["view"]["hand"][0]))
    ok = await until(sockets[0], lambda f: f["type"] in ("ok", "error"))
    assert ok["type"] == "ok"
    for seat, socket in enumerate(sockets):
        states = await _states_after(socket, ok["version"])
        # exactly one view of the new version, and it is this seat's own
        assert [f["view"]["version"] for f in states] == [ok["version"]], seat
        assert states[0]["view"]["seat"] == seat
    if in_memory:  # nothing went through the layer: every socket is in this process
        assert table_sends == []
    else:  # Redis: other processes' sockets hear of the version through it (no card)
        assert_version_told(table_sends, table, ok["version"])
    for socket in sockets:
        await socket.disconnect()


async def test_with_other_processes_the_layer_carries_the_version_and_nobody_gets_it_twice(
    four_at_a_table, table_sends, monkeypatch
):
    drive, table, players = four_at_a_table
    monkeypatch.setattr(consumers, "reaches_other_processes", lambda layer: True)  # as on Redis
    sockets, firsts = await _four(drive, players)
    version = firsts[1]["view"]["version"]
    await sockets[1].send_json_to(action("pass", version, card=firsts[1]["view"]["hand"][0]))
    seen: list[dict] = []  # this process hears of the version through the layer too: the sender's
    ok = await until(sockets[1], lambda f: f["type"] in ("ok", "error"), seen=seen)  # view may come first
    assert ok["type"] == "ok"
    for i, socket in enumerate(sockets):
        before = [f for f in seen if f["type"] == "state"] if i == 1 else []
        assert [f["view"]["version"] for f in await _states_after(socket, ok["version"], before)] == [ok["version"]]
    assert_version_told(table_sends, table, ok["version"])
    for socket in sockets:
        await socket.disconnect()


async def test_with_other_processes_the_layer_send_starts_before_the_local_views(
    four_at_a_table, table_sends, monkeypatch
):
    """The other processes' trip (Redis) is the longest: it is on its way before this process
    builds its sockets' views."""
    drive, table, players = four_at_a_table
    monkeypatch.setattr(consumers, "reaches_other_processes", lambda layer: True)  # as on Redis
    order: list[str] = []
    real_push = consumers._TableSocket.push

    async def push(self, version):
        order.append(f"push {len(table_sends)}")  # how many layer sends had begun by then
        return await real_push(self, version)

    monkeypatch.setattr(consumers._TableSocket, "push", push)
    sockets, firsts = await _four(drive, players)
    await sockets[2].send_json_to(action("pass", firsts[2]["view"]["version"], card=firsts[2]["view"]["hand"][0]))
    ok = await until(sockets[2], lambda f: f["type"] in ("ok", "error"))
    assert ok["type"] == "ok"
    assert order == ["push 1"] * 3  # each of the three other local sockets, after the layer send began
    for socket in sockets:
        await socket.disconnect()


async def test_a_socket_without_its_table_read_gets_its_view_from_the_database(four_at_a_table):
    drive, table, players = four_at_a_table
    sockets, firsts = await _four(drive, players)
    local = [s for s in consumers._LOCAL[table.pk] if s.seat == 2]
    assert len(local) == 1
    local[0].table_facts = None  # as a socket that has not built a view of this table yet
    version = firsts[0]["view"]["version"]
    await sockets[0].send_json_to(action("pass", version, card=firsts[0]["view"]["hand"][0]))
    ok = await until(sockets[0], lambda f: f["type"] == "ok")
    frame = await until(sockets[2], at_version(ok["version"]))
    assert frame["view"]["seat"] == 2 and [s["name"] for s in frame["seats"]] == [p.name for p in players]
    for socket in sockets:
        await socket.disconnect()


async def test_a_closed_socket_leaves_the_table_and_the_others_still_get_the_view(four_at_a_table):
    drive, table, players = four_at_a_table
    sockets, firsts = await _four(drive, players)
    assert len(consumers._LOCAL[table.pk]) == 4
    await sockets[3].disconnect()
    assert {s.seat for s in consumers._LOCAL[table.pk]} == {0, 1, 2}
    version = firsts[0]["view"]["version"]
    await sockets[0].send_json_to(action("pass", version, card=firsts[0]["view"]["hand"][0]))
    ok = await until(sockets[0], lambda f: f["type"] == "ok")
    for socket in sockets[1:3]:
        await until(socket, at_version(ok["version"]))
    for socket in sockets[:3]:
        await socket.disconnect()
    assert table.pk not in consumers._LOCAL


async def test_a_version_applied_by_another_process_is_read_once_for_all_sockets_here(four_at_a_table, monkeypatch):
    from channels.db import database_sync_to_async
    from channels.layers import get_channel_layer

    drive, table, players = four_at_a_table
    sockets, firsts = await _four(drive, players)
    reads = []
    real = digital._read_state

    async def counted(table_id):
        reads.append(table_id)
        return await real(table_id)

    monkeypatch.setattr(digital, "_read_state", counted)
    # Another process applies a pass and announces it through the layer: its state is not here.
    view = firsts[0]["view"]
    applied = await database_sync_to_async(digital.apply_action)(
        table.pk, 0, {"type": "pass", "card": view["hand"][0], "version": view["version"]},
        player_id=players[0].pk, notify=False,
    )
    await get_channel_layer().group_send(digital.table_group(table.pk), digital.version_message(table.pk, applied.version))
    for seat, socket in enumerate(sockets):
        frame = await until(socket, at_version(applied.version))
        assert frame["view"]["seat"] == seat and frame["view"]["version"] == applied.version
    assert reads == [table.pk]  # one read of the table for the four sockets
    for socket in sockets:
        await socket.disconnect()


async def _terminate(backend_pid: int) -> None:
    from channels.db import database_sync_to_async
    from django.db import connection

    def terminate():
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_terminate_backend(%s)", [backend_pid])
        connection.close()

    await database_sync_to_async(terminate)()


@pytest.mark.postgres
def test_on_postgresql_a_version_applied_elsewhere_is_read_on_the_event_loop(four_at_a_table, monkeypatch):
    """One round trip on the loop's own connection, not a trip to a thread; a connection that
    fails is dropped, that read goes to a thread, and the next read opens a new one."""
    drive, table, players = four_at_a_table
    threaded = []
    real = digital._stored_state
    monkeypatch.setattr(digital, "_stored_state", lambda table_id: threaded.append(table_id) or real(table_id))
    stored = digital.TableHand.objects.get(pk=table.pk)

    async def reads():
        pool = digital._LoopReader.pool()
        first = await digital._read_state(table.pk)
        [conn] = pool.held
        again = await digital._read_state(table.pk)
        assert pool.held == {conn} and pool.idle == [conn]  # kept, and free again
        await _terminate(conn.info.backend_pid)  # the database ends its session: the client finds out on use
        after_failure = await digital._read_state(table.pk)
        assert pool.held == set()  # dropped
        reopened = await digital._read_state(table.pk)
        [now] = pool.held
        assert now is not conn
        pids.append(now.info.backend_pid)
        return first, again, after_failure, reopened

    pids = []
    try:
        states = asyncio.run(reads())
    finally:
        digital.close_apply_connections()
    from django.db import connection

    for _ in range(50):  # closed: the database ends its session
        with connection.cursor() as cursor:
            cursor.execute("SELECT count(*) FROM pg_stat_activity WHERE pid = %s", pids)
            if cursor.fetchone()[0] == 0:
                break
        time.sleep(0.05)
    else:
        raise AssertionError("the loop's reader was not closed")
    assert [s.version for s in states] == [stored.version] * 4
    assert states[0].view(0)["hand"] == digital.load_state(stored).view(0)["hand"]
    assert threaded == [table.pk]  # only the read whose connection had failed


def test_the_apply_threads_keep_their_connection_and_close_it_on_request(four_at_a_table):
    from collections import Counter

    from django.db import connection
    from django.db.backends.signals import connection_created

    opened: list[str] = []

    def count(sender, connection, **kwargs):
        opened.append(threading.current_thread().name)

    def use() -> str:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
        return threading.current_thread().name

    async def uses(n: int = 12) -> Counter:
        return Counter([await digital.in_apply_thread(use) for _ in range(n)])

    digital.close_apply_connections()
    connection_created.connect(count)
    try:
        used = asyncio.run(uses())
        # 12 uses on at most 4 threads: each thread opened one connection, however often it ran
        assert max(used.values()) >= 3
        assert Counter(opened) == Counter(dict.fromkeys(used, 1))
        digital.close_apply_connections()
        assert digital._APPLY_THREADS is None
        opened.clear()
        used = asyncio.run(uses())
        assert Counter(opened) == Counter(dict.fromkeys(used, 1))  # new threads open their own, once
    finally:
        connection_created.disconnect(count)


async def test_a_forced_view_read_slowly_never_replaces_a_newer_pushed_one(four_at_a_table, monkeypatch):
    drive, table, players = four_at_a_table
    sockets, firsts = await _four(drive, players)
    real = consumers._TableSocket.load_frame
    read, release = threading.Event(), threading.Event()

    def slow(self, version=None, facts=None):
        frame = real(self, version, facts)  # the current version, read from the database...
        if self.seat == 1 and version is None and not release.is_set():
            read.set()
            release.wait(30)  # ...and slow to come back, while another phone's move is pushed
        return frame

    monkeypatch.setattr(consumers._TableSocket, "load_frame", slow)
    await sockets[1].send_json_to({"type": "sync"})  # a forced view, reading
    # Events, not fixed sleeps: on a busy machine the read could still be on its way when the
    # move came (it then read the newer version), or come back before the move was pushed.
    assert await asyncio.to_thread(read.wait, 30)  # the older version is read
    view = firsts[0]["view"]
    await sockets[0].send_json_to(action("pass", view["version"], card=view["hand"][0]))
    ok = await until(sockets[0], lambda f: f["type"] in ("ok", "error"))
    assert ok["type"] == "ok"
    pushed = await until(sockets[1], lambda f: f["type"] == "state")
    assert pushed["view"]["version"] == ok["version"]  # the newer view, pushed while the read waits
    release.set()
    # The socket handles one frame at a time: its next sync is answered once the slow one is
    # done, and an older view sent by the slow one would come before that answer.
    await sockets[1].send_json_to({"type": "sync"})
    after = await until(sockets[1], lambda f: f["type"] == "state")
    assert after["view"]["version"] == ok["version"]  # not the older one after the newer
    for socket in sockets:
        await socket.disconnect()


async def test_a_failed_read_of_a_version_leaves_every_socket_open(four_at_a_table, monkeypatch):
    from channels.layers import get_channel_layer
    from django.db import OperationalError

    drive, table, players = four_at_a_table
    sockets, firsts = await _four(drive, players)

    async def broken(table_id):
        raise OperationalError("server closed the connection unexpectedly")

    monkeypatch.setattr(digital, "_read_state", broken)
    await get_channel_layer().group_send(digital.table_group(table.pk), digital.version_message(table.pk, 999))
    for socket in sockets:
        frame = await socket.receive_json_from(timeout=5)
        assert frame["type"] == "error" and "could not be read" in frame["message"]
    monkeypatch.undo()
    # still open and working: the next move reaches everyone
    view = firsts[0]["view"]
    await sockets[0].send_json_to(action("pass", view["version"], card=view["hand"][0]))
    ok = await until(sockets[0], lambda f: f["type"] == "ok")
    for socket in sockets:
        await until(socket, at_version(ok["version"]))
    for socket in sockets:
        await socket.disconnect()


async def test_a_closed_play_socket_leaves_its_phone_group_and_the_last_one_the_table_group(
    four_at_a_table, monkeypatch
):
    from channels.layers import get_channel_layer

    from drive import broadcast

    drive, table, players = four_at_a_table
    left: list[tuple[str, str]] = []
    layer = type(get_channel_layer())
    real = layer.group_discard

    async def spy(self, group, channel):
        left.append((group, channel))
        return await real(self, group, channel)

    monkeypatch.setattr(layer, "group_discard", spy)
    from config import layer as process

    socket, _ = await connected(drive, players[0])
    channel = next(iter(consumers._LOCAL[table.pk])).channel_name
    other, _ = await connected(drive, players[1])
    inbox = process._inboxes[(id(asyncio.get_running_loop()), id(get_channel_layer()))][0]
    # Not one of the process's "specific" channels (name!suffix), whose shared receive loses a
    # message when a socket's receive is cancelled as it disconnects (config.layer).
    assert "!" not in inbox and "!" in channel
    if hasattr(get_channel_layer(), "groups"):  # in memory: the members are there to see
        assert set(get_channel_layer().groups[digital.table_group(table.pk)]) == {inbox}  # the process's, once
    await socket.disconnect()
    assert (broadcast.phone_group(players[0].pk), channel) in left
    assert (digital.table_group(table.pk), inbox) not in left  # the other socket still needs it
    await other.disconnect()
    assert (digital.table_group(table.pk), inbox) in left  # the last socket of the table here went
    assert table.pk not in consumers._LOCAL


async def test_a_version_of_another_table_is_ignored_and_an_unheard_table_group_is_left(four_at_a_table):
    """A socket told of a table it has just left sends nothing; a version for a table with no
    socket here any more (they went without leaving) takes this process's inbox out of its group."""
    from channels.layers import get_channel_layer

    from config import layer as process

    drive, table, players = four_at_a_table
    socket, first = await connected(drive, players[0])
    consumer = next(iter(consumers._LOCAL[table.pk]))
    await consumer.table_version(digital.version_message(table.pk + 1000, first["view"]["version"] + 5))
    assert await socket.receive_nothing(timeout=0.3)
    channel_layer = get_channel_layer()
    gone = table.pk + 2000  # a table whose sockets here went without leaving
    await process.join_inbox(digital.table_group(gone), channel_layer)
    await channel_layer.group_send(digital.table_group(gone), digital.version_message(gone, 3))
    key = (id(asyncio.get_running_loop()), id(channel_layer))
    await until_true(lambda: digital.table_group(gone) not in process._inboxes[key][2])
    assert digital.table_group(table.pk) in process._inboxes[key][2]  # the live table's group stays
    await socket.disconnect()


async def until_true(predicate, timeout: float = 5) -> None:
    for _ in range(int(timeout / 0.02)):
        if predicate():
            return
        await asyncio.sleep(0.02)
    raise AssertionError("not reached in time")


async def test_a_view_read_while_the_phone_moved_to_its_next_table_is_not_sent(organiser, monkeypatch):
    """Found by reading, proven here: a socket reading a version of its table (told by another
    process) built the view after the read with the seat it held *then*. A phone that moved to
    its next table meanwhile (a sync after the close) was sent the old table's hand as seen
    from its new seat's number: another player's cards. A view read for a table and seat the
    socket has left since is dropped (the sync sends the new table's)."""
    from drive import services
    from tables import consumers, digital
    from tests.tables.conftest import digital_drive, seated_players, table_of

    drive = await database_sync_to_async(digital_drive)(organiser, 8, preferred_table_size=4)  # two tables

    def seats_now():
        return {p: (table, table.seats.get(player=p).position) for table in (table_of(drive, 1), table_of(drive, 2))
                for p in seated_players(table)}

    seats = await database_sync_to_async(seats_now)()
    await database_sync_to_async(services.close_hand)(drive)  # the bell: both tables stopped, hand 2 seated
    next_seats = await database_sync_to_async(seats_now)()
    # Seat numbers at the next table: movement's, and the organiser's swap (here: a player takes
    # another's seat, whose number differs from the seat the first held in hand 1).
    moved = next(iter(seats))
    other = next(p for p in seats if next_seats[p][1] != seats[moved][1])
    await database_sync_to_async(services.swap_players)(drive, moved, other)
    next_seats = await database_sync_to_async(seats_now)()
    assert next_seats[moved][1] != seats[moved][1]
    (old, old_position), (new, position) = seats[moved], next_seats[moved]
    socket, first = await connected(drive, moved)
    assert first["type"] == "waiting"  # hand 2 not started
    final = (await database_sync_to_async(lambda: TableHand.objects.get(pk=old.pk))()).version
    # The socket is back at the old table (as one still showing the finished hand would be).
    consumer = consumers._LOCAL.of(new.pk)[0]
    await consumer.join_table(old.pk, old_position)
    consumer.table_facts = await database_sync_to_async(digital.table_facts)(old.pk)
    digital._STATES.clear()  # the version is another process's: read from the database
    release = asyncio.Event()
    real_read = digital.state_read
    reads = []

    async def slow_read(table_id, version):
        reads.append(table_id)
        state = await real_read(table_id, version)
        await release.wait()
        return state

    monkeypatch.setattr(digital, "state_read", slow_read)
    told = asyncio.ensure_future(consumer.table_version({"table": old.pk, "version": final}))
    await asyncio.sleep(0.1)
    await consumer.join_table(new.pk, position)  # the phone's sync moved it meanwhile
    release.set()
    await told
    frames = []
    while not await socket.receive_nothing(timeout=0.3):
        frames.append(await socket.receive_json_from(timeout=5))
    stopped = [f for f in frames if f.get("type") == "state" and f["view"]["phase"] == "finished"]
    assert reads == [old.pk]  # the old table's version was read, slowly
    assert all(f["view"]["seat"] == old_position for f in stopped), stopped  # (none is sent now)
    await socket.disconnect()
