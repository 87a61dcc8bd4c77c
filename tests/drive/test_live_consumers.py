"""Live sockets: who may connect, what each receives after a commit, and state on reconnect.
Each message's fan-out (once per screen, per audience, per phone): test_live_fanout.py."""

from __future__ import annotations

import pytest
from asgiref.sync import sync_to_async
from django.test import Client

from drive import services
from tests.drive.live_support import (  # noqa: F401 (drive_of_eight: a fixture)
    connected, drive_of_eight, frames_until, phones_of, results_in, session_cookie, socket,
)
from tests.factories import declared, seated_drive

pytestmark = pytest.mark.django_db(transaction=True)


async def test_board_gets_the_current_state_at_once(drive_of_eight):
    ws = await connected(f"/ws/drive/{drive_of_eight.join_code}/board/")
    first = await ws.receive_json_from(timeout=30)
    assert first["type"] == "update" and "0 of 2 tables done" in first["parts"]["board"]
    await ws.disconnect()


async def test_board_sees_a_result_after_commit(drive_of_eight, organiser):
    drive = drive_of_eight
    ws = await connected(f"/ws/drive/{drive.join_code}/board/")
    await ws.receive_json_from(timeout=30)
    table = await sync_to_async(lambda: drive.hands.get().tables.get(number=1))()
    await sync_to_async(services.organiser_result)(drive, table, declared(4, 0), organiser)
    frames = [await ws.receive_json_from(timeout=30), await ws.receive_json_from(timeout=30)]
    assert await ws.receive_nothing(timeout=0.3)  # one change: its result message and one update
    update = next(f for f in frames if f["type"] == "update")
    assert "1 of 2 tables done" in update["parts"]["board"]
    result = next(f for f in frames if f["type"] == "result")
    seated = await sync_to_async(lambda: {str(s.player_id): s.player.name for s in table.seats.select_related("player")})()
    assert result["table"] == 1 and result["status"] == "confirmed" and result["current"] is True
    assert result["progress"] == {"done": 1, "total": 2, "entered": 0, "disputed": 0}
    assert set(result["totals"]) == set(seated)
    assert sorted(t["total"] for t in result["totals"].values()) == sorted(update_totals(update, seated))
    assert result["commit"] > update["read"]  # read by the update before, so the page shows it again
    await ws.disconnect()


def update_totals(update, seated):
    """The totals the board's update shows for the seated players (rows marked data-player)."""
    import re

    html = update["parts"]["board"]
    return [int(re.search(rf'data-player="{pid}" data-total="(-?\d+)"', html).group(1)) for pid in seated]


async def test_refused_write_sends_nothing(drive_of_eight, organiser):
    drive = drive_of_eight
    ws = await connected(f"/ws/drive/{drive.join_code}/board/")
    await ws.receive_json_from(timeout=30)
    with pytest.raises(services.DriveError):
        await sync_to_async(services.close_hand)(drive)  # tables still playing: refused, rolled back
    assert await ws.receive_nothing(timeout=0.3)
    await ws.disconnect()


async def test_organiser_socket_needs_the_organisers_session(drive_of_eight, organiser, django_user_model):
    code = drive_of_eight.join_code
    ws = socket(f"/ws/drive/{code}/organiser/")
    assert not (await ws.connect(timeout=30))[0]
    other = await sync_to_async(django_user_model.objects.create_user)(username="eve", password="x-long-password")
    ws = socket(f"/ws/drive/{code}/organiser/", await sync_to_async(session_cookie)(other))
    assert not (await ws.connect(timeout=30))[0]
    ws = await connected(f"/ws/drive/{code}/organiser/", await sync_to_async(session_cookie)(organiser))
    first = await ws.receive_json_from(timeout=30)
    assert "Table 2" in first["parts"]["dashboard"]
    await ws.disconnect()


async def test_phone_socket_needs_the_players_token_and_gets_only_its_own_part(drive_of_eight, organiser):
    drive = drive_of_eight
    code = drive.join_code
    ws = socket(f"/ws/drive/{code}/phone/", f"ff_{code}=not-a-token")
    assert (await ws.connect(timeout=30))[0]  # told it holds no player, and closed: nothing sent
    assert (await ws.receive_json_from(timeout=30))["message"].startswith("This phone is not signed in")
    assert await ws.receive_output(timeout=30) == {"type": "websocket.close", "code": 4401}
    seats = await sync_to_async(lambda: [
        (s.player.name, s.player.token) for s in drive.hands.get().tables.get(number=1).seats.select_related("player")
    ])()
    name, token = seats[0]
    ws = await connected(f"/ws/drive/{code}/phone/", f"ff_{code}={token}")
    first = await ws.receive_json_from(timeout=30)
    assert list(first["parts"]) == ["phone"] and name in first["parts"]["phone"]
    table = await sync_to_async(lambda: drive.hands.get().tables.get(number=1))()
    await sync_to_async(services.organiser_result)(drive, table, declared(4, 0), organiser)
    update = await ws.receive_json_from(timeout=30)
    assert list(update["parts"]) == ["phone"] and "confirmed" in update["parts"]["phone"]
    await ws.disconnect()


async def test_only_the_phones_listening_have_their_fragment_built(drive_of_eight, organiser, monkeypatch):
    """One process (the in-memory layer) knows every phone socket: a change renders the
    fragments of the phones whose live page is open, not of the others (at a game screen, or
    not joined); a phone that connects later gets its own at once, then every change of it."""
    from drive import broadcast, pages

    drive = drive_of_eight
    code = drive.join_code
    monkeypatch.setattr(broadcast, "several_processes", lambda: True)
    assert broadcast.phones_listening(drive.pk) is None  # several processes: each knows its own only
    monkeypatch.setattr(broadcast, "several_processes", lambda: False)  # one process
    built = []
    phone_parts = pages.phone_parts
    monkeypatch.setattr(pages, "phone_parts", lambda view, players=None: built.append(
        None if players is None else sorted(p.pk for p in players)) or phone_parts(view, players))
    players = await sync_to_async(lambda: [
        (s.player_id, s.player.token) for s in drive.hands.get().tables.get(number=1).seats.select_related("player")
    ])()
    (first, first_token), (second, second_token) = players[0], players[1]
    ws = await connected(f"/ws/drive/{code}/phone/", f"ff_{code}={first_token}")
    await ws.receive_json_from(timeout=30)
    assert broadcast.phones_listening(drive.pk) == {first}
    table = await sync_to_async(lambda: drive.hands.get().tables.get(number=1))()
    await sync_to_async(services.organiser_result)(drive, table, declared(4, 0), organiser)
    assert "confirmed" in (await ws.receive_json_from(timeout=30))["parts"]["phone"]
    assert built[-1] == [first]
    other = await connected(f"/ws/drive/{code}/phone/", f"ff_{code}={second_token}")
    assert "confirmed" in (await other.receive_json_from(timeout=30))["parts"]["phone"]  # its snapshot
    assert broadcast.phones_listening(drive.pk) == {first, second}
    await sync_to_async(services.organiser_result)(drive, table, declared(4, 1), organiser, "wrong declarer")
    for phone in (ws, other):
        assert (await phone.receive_json_from(timeout=30))["type"] == "update"
    assert built[-1] == sorted([first, second])
    await ws.disconnect()
    await other.disconnect()
    assert broadcast.phones_listening(drive.pk) == frozenset()


async def test_on_one_process_a_result_reaches_only_the_phones_it_changes(drive_of_eight, organiser, monkeypatch):
    """One process (the in-memory layer) knows what it last sent each phone: a result at one
    table reaches that table's phones, not the others', whose fragment is unchanged. A phone
    that connected since the last update holds its snapshot, not a sent fragment: the next
    update sends it its fragment all the same."""
    from drive import broadcast, live

    monkeypatch.setattr(broadcast, "several_processes", lambda: False)
    drive = drive_of_eight
    phones = await phones_of(drive, 1, 2)
    await sync_to_async(live.drive_changed)(drive.pk)  # nothing shown changes
    for _number, ws in phones.values():
        assert (await ws.receive_json_from(timeout=30))["type"] == "update"
    table = await sync_to_async(lambda: drive.hands.get().tables.get(number=1))()
    await sync_to_async(services.organiser_result)(drive, table, declared(4, 0), organiser)
    for number, ws in phones.values():
        if number == 1:
            assert "confirmed" in (await ws.receive_json_from(timeout=30))["parts"]["phone"]
    for _number, ws in phones.values():
        assert await ws.receive_nothing(timeout=0.3)  # table 2's fragments did not change: none sent
        await ws.disconnect()


async def test_on_one_process_a_phone_that_was_away_gets_its_next_fragment_even_unchanged(
        drive_of_eight, organiser, monkeypatch):
    """A phone built for, then gone (its owner at a game screen), then back: its snapshot on
    connecting may differ from what it was last sent, so its next fragment goes, even if it
    equals that; the phones that stayed get only what changed."""
    from drive import broadcast, live

    monkeypatch.setattr(broadcast, "several_processes", lambda: False)
    drive, code = drive_of_eight, drive_of_eight.join_code
    phones = await phones_of(drive, 2)
    await sync_to_async(live.drive_changed)(drive.pk)
    for _number, ws in phones.values():
        await ws.receive_json_from(timeout=30)
    (away, (_n, away_ws)), *stayed = phones.items()
    await away_ws.disconnect()
    table = await sync_to_async(lambda: drive.hands.get().tables.get(number=1))()
    await sync_to_async(services.organiser_result)(drive, table, declared(4, 0), organiser)  # built without it
    token = await sync_to_async(lambda: drive.players.get(pk=away).token)()
    back = await connected(f"/ws/drive/{code}/phone/", f"ff_{code}={token}")
    snapshot = await back.receive_json_from(timeout=30)
    await sync_to_async(services.organiser_result)(drive, table, declared(4, 1), organiser, "wrong declarer")
    again = await back.receive_json_from(timeout=30)
    assert again["type"] == "update" and again["parts"] == snapshot["parts"]  # unchanged, and sent
    for _pid, (_number, ws) in stayed:
        assert await ws.receive_nothing(timeout=0.3)  # unchanged, and not sent
        await ws.disconnect()
    await back.disconnect()


async def test_reconnecting_phone_gets_what_it_missed(drive_of_eight, organiser):
    drive = drive_of_eight
    code = drive.join_code
    token = await sync_to_async(lambda: drive.hands.get().tables.get(number=2).seats.first().player.token)()
    ws = await connected(f"/ws/drive/{code}/phone/", f"ff_{code}={token}")
    await ws.receive_json_from(timeout=30)
    await ws.disconnect()
    table = await sync_to_async(lambda: drive.hands.get().tables.get(number=2))()
    await sync_to_async(services.organiser_result)(drive, table, declared(4, 1), organiser)
    ws = await connected(f"/ws/drive/{code}/phone/", f"ff_{code}={token}")
    snapshot = await ws.receive_json_from(timeout=30)
    assert "confirmed" in snapshot["parts"]["phone"]
    await ws.disconnect()


async def test_foreign_origin_and_unknown_code_are_refused(drive_of_eight):
    ws = socket(f"/ws/drive/{drive_of_eight.join_code}/board/", origin=(b"origin", b"http://evil.example"))
    assert not (await ws.connect(timeout=30))[0]
    ws = socket("/ws/drive/QQQQQ/board/")
    assert not (await ws.connect(timeout=30))[0]


async def test_bad_frames_get_an_error(drive_of_eight):
    ws = await connected(f"/ws/drive/{drive_of_eight.join_code}/board/")
    await ws.receive_json_from(timeout=30)
    for frame in ["{oops", "[]", '{"type": "close_hand"}', "x" * 5000]:
        await ws.send_to(text_data=frame)
        assert (await ws.receive_json_from(timeout=30))["type"] == "error"
    await ws.send_to(bytes_data=b"\x00\x01")
    assert (await ws.receive_json_from(timeout=30))["type"] == "error"
    await ws.send_json_to({"type": "ping"})
    assert (await ws.receive_json_from(timeout=30))["type"] == "pong"
    await ws.disconnect()


async def test_a_digital_table_stopped_by_the_bell_sends_its_result_message(organiser):
    drive = await sync_to_async(seated_drive)(organiser, 8, start=False)
    await sync_to_async(services.set_table_mode)(drive, 2, "digital")
    await sync_to_async(services.start_hand)(drive)
    ws = await connected(f"/ws/drive/{drive.join_code}/organiser/", await sync_to_async(session_cookie)(organiser))
    await ws.receive_json_from(timeout=30)
    table1 = await sync_to_async(lambda: drive.hands.get().tables.get(number=1))()
    await sync_to_async(services.organiser_result)(drive, table1, declared(4, 0), organiser)
    await sync_to_async(services.close_hand)(drive, force=True)
    results = results_in(await frames_until(ws, lambda frames: len(results_in(frames)) >= 2))
    assert [r["table"] for r in results] == [1, 2]
    digital = results[1]  # recorded by the engine (no declaration), before the table's row is saved
    assert digital["status"] == "confirmed" and digital["progress"]["done"] == 2
    assert len(digital["totals"]) == 4
    await ws.disconnect()


async def test_the_board_gets_no_totals_during_suspense_even_for_a_correction_of_an_earlier_hand(organiser):
    def setup():
        drive = seated_drive(organiser, 4, target="hands", target_hands=3, suspense_hands=1)
        for number in (1, 2):
            services.organiser_result(drive, drive.hands.get(number=number).tables.get(), declared(4, 0), organiser)
            services.close_hand(drive)
            services.start_hand(drive)
        return drive  # hand 3 is a suspense hand: the board shows the standings after hand 2

    drive = await sync_to_async(setup)()
    board = await connected(f"/ws/drive/{drive.join_code}/board/")
    dashboard = await connected(f"/ws/drive/{drive.join_code}/organiser/", await sync_to_async(session_cookie)(organiser))
    await board.receive_json_from(timeout=30)
    await dashboard.receive_json_from(timeout=30)
    old = await sync_to_async(lambda: drive.hands.get(number=1).tables.get())()
    await sync_to_async(services.organiser_result)(drive, old, declared(4, 1), organiser, "wrong declarer")

    async def result_of(ws):
        return results_in(await frames_until(ws, results_in, quiet=0.3))[0]

    on_board, on_dashboard = await result_of(board), await result_of(dashboard)
    assert on_board["hand"] == 1 and on_board["current"] is False
    assert "totals" not in on_board  # the suspense hand's scores must not leak through hand 1
    assert len(on_dashboard["totals"]) == 4  # the organiser sees everything
    await board.disconnect()
    await dashboard.disconnect()


def _leave_the_phone(drive, player) -> None:
    """The phone's own "Leave this phone", as its browser sends it."""
    phone = Client()
    phone.cookies[f"ff_{drive.join_code}"] = player.token
    assert phone.post(f"/{drive.join_code}/forget").status_code == 302


@pytest.mark.parametrize("by,said,left", [
    (services.revoke_phone, "The organiser signed this phone out: ask them for your private link to join again.", False),
    (_leave_the_phone, "This phone has left the drive", True),
])
async def test_signing_a_phone_out_closes_its_open_sockets_at_once(organiser, by, said, left):
    """The organiser's sign-out and the phone's own "Leave this phone" alike. The live socket
    says which (``left``: an entry form left open keeps its answers, out of date, when the phone
    left by itself in another tab; signed out by the organiser, it goes to joining, told why)."""
    from tests.tables.conftest import digital_drive, seated_players, table_of

    drive = await sync_to_async(digital_drive)(organiser, 4)
    players = await sync_to_async(lambda: seated_players(table_of(drive)))()
    player, other = players[0], players[1]
    cookie = f"ff_{drive.join_code}={player.token}"
    live_socket = await connected(f"/ws/drive/{drive.join_code}/phone/", cookie)
    await live_socket.receive_json_from(timeout=30)
    play_socket = await connected(f"/ws/play/{drive.join_code}/", cookie)
    assert (await play_socket.receive_json_from(timeout=30))["type"] == "state"
    others = await connected(f"/ws/play/{drive.join_code}/", f"ff_{drive.join_code}={other.token}")
    await others.receive_json_from(timeout=30)
    # The drive's live updates reach the phone's live socket, not its play socket.
    from drive import live

    live.forget_phones(drive.pk)  # every phone's fragment goes with the next update
    await sync_to_async(live.drive_changed)(drive.pk)
    assert (await live_socket.receive_json_from(timeout=30))["type"] == "update"
    assert await play_socket.receive_nothing(timeout=0.3)

    await sync_to_async(by)(drive, player)
    for ws in (live_socket, play_socket):
        frame = await ws.receive_json_from(timeout=30)
        assert frame["type"] == "error" and frame["message"].startswith(said)
        assert ws is play_socket or frame["left"] is left
        assert await ws.receive_output(timeout=30) == {"type": "websocket.close", "code": 4401}
    # Another player's phone at the table is not closed; it is told that the seat now waits for a phone.
    frame = await others.receive_json_from(timeout=30)
    assert frame["type"] == "state" and frame["seats"][0]["away"]
    assert await others.receive_nothing(timeout=0.3)
    await others.disconnect()
    # and the old cookie cannot come back: the game screen reconnecting (a phone asleep when it
    # was signed out) is closed as signed out too, so that its page reloads and goes to joining
    again = socket(f"/ws/play/{drive.join_code}/", cookie)
    await again.connect(timeout=30)
    assert (await again.receive_json_from(timeout=30))["type"] == "error"
    assert await again.receive_output(timeout=30) == {"type": "websocket.close", "code": 4401}
    # A page that was away meanwhile (a phone offline when it was signed out retried
    # its refused live socket for good): its next connection is told it is signed out, as an
    # open one is, so that the page reloads and goes to joining.
    away = socket(f"/ws/drive/{drive.join_code}/phone/", cookie)
    assert (await away.connect(timeout=30))[0]
    assert (await away.receive_json_from(timeout=30))["type"] == "error"
    assert await away.receive_output(timeout=30) == {"type": "websocket.close", "code": 4401}


async def test_a_withdrawn_players_open_phone_page_closes_at_once(organiser):
    """The organiser marks a player as leaving: the phone page they left open is closed (it
    reloads, and the page then says the organiser took them out), not left saying "You will be
    seated at the next hand". Another player's phone only gets the update."""
    drive = await sync_to_async(seated_drive)(organiser, 8, start=False)
    leaver, other = await sync_to_async(lambda: list(drive.players.order_by("pk")[:2]))()
    leaving = await connected(f"/ws/drive/{drive.join_code}/phone/", f"ff_{drive.join_code}={leaver.token}")
    staying = await connected(f"/ws/drive/{drive.join_code}/phone/", f"ff_{drive.join_code}={other.token}")
    for ws in (leaving, staying):
        await ws.receive_json_from(timeout=30)

    await sync_to_async(services.withdraw_player)(drive, leaver)
    frame = await leaving.receive_json_from(timeout=30)
    while frame["type"] == "update":  # the drive's own update may come first
        frame = await leaving.receive_json_from(timeout=30)
    assert frame["type"] == "error" and frame["message"].startswith("The organiser has taken you out of the drive.")
    assert await leaving.receive_output(timeout=30) == {"type": "websocket.close", "code": 4401}
    assert (await staying.receive_json_from(timeout=30))["type"] == "update"
    assert await staying.receive_nothing(timeout=0.3)
    await staying.disconnect()
