"""Live sockets' fan-out: a result's message reaches each screen once, each audience its own
update, each phone its own part and its own instruction at a close, with one process or several."""

from __future__ import annotations

import pytest
from asgiref.sync import sync_to_async
from channels.layers import get_channel_layer

from drive import services
from tests import spies
from tests.drive.live_support import connected, drive_of_eight, frames_until, results_in, session_cookie  # noqa: F401 (a fixture)
from tests.factories import declared

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def screens_sends(monkeypatch):
    """Every group_send of a table's result message to a drive's screens group."""
    return spies.group_sends(
        monkeypatch, lambda group, message: group.endswith("-screens") and message.get("type") == "drive.result" and group
    )


async def _screens_then_a_result(drive, organiser, number: int):
    """The drive's board and dashboard connected, their first update read; then the organiser
    records table ``number``'s result."""
    board = await connected(f"/ws/drive/{drive.join_code}/board/")
    dashboard = await connected(f"/ws/drive/{drive.join_code}/organiser/", await sync_to_async(session_cookie)(organiser))
    for ws in (board, dashboard):
        await ws.receive_json_from(timeout=30)
    table = await sync_to_async(lambda: drive.hands.get().tables.get(number=number))()
    await sync_to_async(services.organiser_result)(drive, table, declared(4, 0), organiser)
    return board, dashboard


async def _result_frames(ws) -> list[dict]:
    return results_in(await frames_until(ws, results_in, quiet=0.4))


async def test_a_result_message_reaches_each_screen_once(drive_of_eight, organiser, screens_sends, monkeypatch):
    from drive.consumers import LiveConsumer

    handed = []
    real = LiveConsumer.drive_result

    async def counted(self, event):
        handed.append(self.audience)
        return await real(self, event)

    monkeypatch.setattr(LiveConsumer, "drive_result", counted)
    drive = drive_of_eight
    board, dashboard = await _screens_then_a_result(drive, organiser, 2)
    for ws in (board, dashboard):
        results = await _result_frames(ws)
        assert [(r["table"], r["status"]) for r in results] == [(2, "confirmed")]
    # One message to the drive's screens group, handed to each screen once.
    assert screens_sends == [f"drive-{drive.pk}-screens"]
    assert sorted(handed) == ["board", "organiser"]
    await board.disconnect()
    await dashboard.disconnect()


async def test_with_several_processes_each_phone_gets_its_own_part_once(drive_of_eight, organiser, monkeypatch):
    """Through Redis every phone's fragment is built (each process knows only its own phones)
    and goes to its player's group: each phone gets its own part, once."""
    import re

    from drive import broadcast

    monkeypatch.setattr(broadcast, "several_processes", lambda: True)  # as on Redis
    drive, code = drive_of_eight, drive_of_eight.join_code
    seats = await sync_to_async(lambda: [
        (s.player.name, s.player.token, t.number) for t in drive.hands.get().tables.all()
        for s in t.seats.select_related("player")[:2]
    ])()
    phones = [await connected(f"/ws/drive/{code}/phone/", f"ff_{code}={token}") for _name, token, _t in seats]
    snapshots = [await ws.receive_json_from(timeout=30) for ws in phones]
    table = await sync_to_async(lambda: drive.hands.get().tables.get(number=1))()
    await sync_to_async(services.organiser_result)(drive, table, declared(4, 0), organiser)
    for (name, _token, number), ws, snapshot in zip(seats, phones, snapshots):
        update = await ws.receive_json_from(timeout=30)
        assert list(update["parts"]) == ["phone"]
        assert re.search(r"<h1[^>]*><bdi>(.*?)</bdi></h1>", update["parts"]["phone"]).group(1) == name  # its own part
        if number == 1:
            assert "confirmed" in update["parts"]["phone"]
        else:  # unchanged, and sent all the same: no process knows what another sent it
            assert update["parts"] == snapshot["parts"]
        assert await ws.receive_nothing(timeout=0.3)  # once
        await ws.disconnect()


async def test_each_screen_gets_the_update_of_its_own_audience_once(drive_of_eight, organiser, monkeypatch):
    from drive import broadcast

    monkeypatch.setattr(broadcast, "several_processes", lambda: True)  # as on Redis
    drive = drive_of_eight
    board, dashboard = await _screens_then_a_result(drive, organiser, 1)
    for ws, parts in ((board, ["board"]), (dashboard, ["dashboard", "players-count", "players"])):
        part = parts[0]
        frames = await frames_until(ws, lambda frames: any(f["type"] == "update" for f in frames))
        updates = [f for f in frames if f["type"] == "update"]
        assert len(updates) == 1 and list(updates[0]["parts"]) == parts  # its own audience's, once
        assert "1 of 2 tables done" in updates[0]["parts"][part]
        await ws.disconnect()


async def test_a_close_sends_each_phone_its_own_instruction_at_the_commit(drive_of_eight, organiser, monkeypatch):
    """The movement instruction is read inside the close's transaction and sent the moment it
    commits (``live.hand_moved``), in one message to the drive's phones and its game screens;
    each phone shows only its own, before the full update, which is newer and shows the same
    instruction. Screens get none."""
    import re
    import time

    from drive import broadcast, selectors

    sent = spies.group_sends(monkeypatch, lambda group, message: message.get("type") == "drive.instruction" and group)
    drive, code = drive_of_eight, drive_of_eight.join_code
    seats = await sync_to_async(lambda: [
        (s.player_id, s.player.token) for t in drive.hands.get().tables.all() for s in t.seats.select_related("player")
    ])()
    phones = {pid: await connected(f"/ws/drive/{code}/phone/", f"ff_{code}={token}") for pid, token in seats[:3]}
    board = await connected(f"/ws/drive/{code}/board/")
    for ws in [*phones.values(), board]:
        await ws.receive_json_from(timeout=30)
    for table in await sync_to_async(lambda: list(drive.hands.get().tables.all()))():
        await sync_to_async(services.organiser_result)(drive, table, declared(4, 0), organiser)
    for ws in [*phones.values(), board]:
        while not await ws.receive_nothing(timeout=0.3):
            await ws.receive_json_from()
    closing = time.time_ns()  # the close's messages are stamped after this (by the clock: time.time_ns)

    async def of_the_close(ws) -> dict:
        """The socket's next frame sent by the close: one the results sent that was slow to come
        on a busy machine (after the quiet window above) is older, and passed over."""
        while True:
            frame = await ws.receive_json_from(timeout=30)
            if frame.get("stamp", frame.get("commit", closing)) >= closing:
                return frame

    await sync_to_async(services.close_hand)(drive)
    moves = await sync_to_async(lambda: selectors.drive_view(drive).moves)()
    for pid, ws in phones.items():
        # (Here the full update is built in the committing thread, so either may come first;
        # on a server it is built after the commit, by a worker.)
        frames = {f["type"]: f for f in [await of_the_close(ws), await of_the_close(ws)]}
        instruction, update = frames["instruction"], frames["update"]
        assert instruction["hand"] == 2
        assert re.fullmatch(r'<p class="instruction ?(stay)?" data-instruction>(.*)</p>\s*',
                            instruction["html"]).group(2) == moves[pid].text  # its own, its fragment's words
        assert update["stamp"] > instruction["stamp"]  # the page keeps the update's
        assert instruction["html"].strip() in update["parts"]["phone"]
        assert await ws.receive_nothing(timeout=0.3)  # once each
        await ws.disconnect()
    assert all(f["type"] != "instruction" for f in [await of_the_close(board)])
    await board.disconnect()
    # One message for each seated player's phone, to its own group.
    assert sorted(sent) == sorted(broadcast.phone_group(pid) for pid in moves)


async def test_messages_sent_to_the_drives_groups_reach_its_screens_and_phones(drive_of_eight, organiser):
    """A result message and close instructions sent to the drive's groups (as another process
    sends them, through Redis) reach its sockets: a board shows the result, a phone its own
    instruction."""
    from drive import broadcast

    drive, code = drive_of_eight, drive_of_eight.join_code
    pid, token = await sync_to_async(lambda: (lambda s: (s.player_id, s.player.token))(
        drive.hands.get().tables.get(number=1).seats.select_related("player").first()))()
    board = await connected(f"/ws/drive/{code}/board/")
    phone = await connected(f"/ws/drive/{code}/phone/", f"ff_{code}={token}")
    for ws in (board, phone):
        await ws.receive_json_from(timeout=30)
    channel_layer = get_channel_layer()
    await channel_layer.group_send(broadcast.drive_group(drive.pk, "screens"), {
        "type": "drive.result", "drive": drive.pk, "hand": 1, "table": 1,
        "current": True, "status": "confirmed", "status_label": "Confirmed", "commit": 7, "board_totals": False,
        "progress": {"done": 1, "total": 2, "entered": 0, "disputed": 0}, "totals": {},
    })
    frame = await board.receive_json_from(timeout=30)
    assert frame["type"] == "result" and frame["table"] == 1 and frame["commit"] == 7
    html = '<p class="instruction" data-instruction>Move UP to Table 1</p>'
    for _ in range(2):
        message = {"type": "drive.instruction", "drive": drive.pk, "hand": 2, "stamp": 1, "html": html}
        await channel_layer.group_send(broadcast.phone_group(pid), message)
        frame = await phone.receive_json_from(timeout=30)
        assert frame["type"] == "instruction" and frame["html"] == html
    await board.disconnect()
    await phone.disconnect()
