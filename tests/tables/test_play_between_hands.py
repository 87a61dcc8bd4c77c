"""The game screens between hands, over Channels: where to sit after the close, the hand just
played shown to a screen opened later, a player taken out told so, the next hand's start and
the drive's end reaching every screen (``live.hand_moved``, ``live.hand_started``,
``live.drive_ended``)."""

from __future__ import annotations

import asyncio
import random

import pytest
from channels.db import database_sync_to_async

from tests.tables.phones import connected, phone, until
from tests.tables.test_play_consumer import play_to_the_end

pytestmark = pytest.mark.django_db(transaction=True)


async def two_tables_played_and_closed(organiser):
    """A drive of eight on the phones at two tables, each played to the end on its players'
    game screens, then the hand closed: the drive, and each player's socket by player id."""
    from drive import services
    from tests.tables.conftest import digital_drive, seated_players, table_of

    drive = await database_sync_to_async(digital_drive)(organiser, 8, preferred_table_size=4)
    sockets = {}
    for number in (1, 2):
        table = await database_sync_to_async(table_of)(drive, number)
        players = await database_sync_to_async(seated_players)(table)
        at_table = [(await connected(drive, p))[0] for p in players]
        await play_to_the_end(at_table, table.pk, random.Random(number))
        sockets.update({p.pk: s for p, s in zip(players, at_table)})
    await database_sync_to_async(services.close_hand)(drive)
    return drive, sockets


async def test_the_game_screens_show_where_to_sit_next_when_the_hand_closes(organiser):
    """A player still looking at the finished hand on the game screen is told at the close
    where to sit next (``live.hand_moved``, through the drive's "playing" group), each phone
    its own instruction only."""
    from drive import selectors

    drive, sockets = await two_tables_played_and_closed(organiser)
    moves = await database_sync_to_async(lambda: selectors.drive_view(drive).moves)()
    assert len({m.text for m in moves.values()}) > 1  # not all the same words: each must get its own
    for pid, socket in sockets.items():
        frame = await until(socket, lambda f: f["type"] == "instruction")
        assert frame["hand"] == 2
        assert f">{moves[pid].text}</p>" in frame["html"]
        assert await socket.receive_nothing(timeout=0.2)  # once
        await socket.disconnect()


async def test_a_player_taken_out_of_the_drive_is_told_so_when_the_game_screen_connects(four_at_a_table):
    from drive import services

    drive, table, players = four_at_a_table
    await database_sync_to_async(services.withdraw_player)(drive, players[0])
    socket = phone(drive, players[0])
    assert (await socket.connect())[0]
    frame = await socket.receive_json_from(timeout=30)
    assert frame["type"] == "error" and "taken you out of this drive" in frame["message"]
    await socket.disconnect()


async def test_a_close_s_instructions_reach_each_game_screen_its_own_player_s(four_at_a_table):
    """A close's movement instructions (``broadcast.send_instructions``, as the closing process
    sends them, through the layer) reach each player's game screen: its own player's only."""
    from drive import broadcast

    drive, table, players = four_at_a_table
    first, _ = await connected(drive, players[0])
    second, _ = await connected(drive, players[1])
    html = '<p class="instruction" data-instruction>Move UP to Table 1</p>'
    await database_sync_to_async(broadcast.send_instructions)({
        "type": "drive.instruction", "drive": drive.pk, "hand": 2, "stamp": 1,
        "instructions": {str(players[0].pk): html, str(players[1].pk): "hers"},
    })
    frame = await until(first, lambda f: f["type"] == "instruction")
    assert frame["html"] == html and frame["hand"] == 2
    assert (await until(second, lambda f: f["type"] == "instruction"))["html"] == "hers"
    await first.disconnect()
    await second.disconnect()


async def test_a_game_screen_opened_after_the_close_shows_the_hand_just_played_then_where_to_sit(organiser):
    """Hand 2 seated on the phones, not started: a screen opened now (reloaded) gets the hand
    its player just played, over, then where to sit; one at a table before any hand is over gets
    only where to sit."""
    drive, sockets = await two_tables_played_and_closed(organiser)
    for socket in sockets.values():
        await socket.disconnect()
    again, frame = await reopened_after_the_hand(drive, await first_player(drive, sockets))
    assert frame["type"] == "waiting" and frame["hand"] == 2, frame
    await again.disconnect()


async def test_a_game_screen_opened_after_the_close_says_each_player_s_own_move(organiser):
    """The close's "Move UP to Table 1" on a game screen gave way, at the screen's
    next look (its watchdog's, or a reconnect to another process), to "Hand 2 has not started
    yet: sit at Table 1", and a phone away at the close never had it. What a screen is told
    while the hand waits holds the player's move, as the close's instruction does; at a table
    with cards too."""
    from drive import selectors, services

    drive, sockets = await two_tables_played_and_closed(organiser)
    for socket in sockets.values():
        await socket.disconnect()
    moves = await database_sync_to_async(lambda: selectors.drive_view(drive).moves)()
    assert {m.direction for m in moves.values()} >= {"up", "down"}
    players = await database_sync_to_async(lambda: {p.pk: p for p in drive.players.all()})()
    for pid, move in moves.items():
        again, frame = await reopened_after_the_hand(drive, players[pid])
        words = move.text[:1].lower() + move.text[1:]  # "move UP to Table 1"
        assert frame["type"] == "waiting" and frame["message"].startswith(f"Hand 2 has not started yet: {words}. "), frame
        await again.disconnect()
    await database_sync_to_async(services.set_table_mode)(drive, 1, "physical")
    mover = next(pid for pid, m in moves.items() if m.direction == "up")
    again, frame = await reopened_after_the_hand(drive, players[mover])
    assert frame["message"].startswith("Hand 2 is about to start: move UP to Table 1, where it is played with cards"), frame
    await again.disconnect()


async def test_a_game_screen_shows_only_the_hand_just_before_never_an_older_one(organiser):
    """Hand 2 seated with cards: a screen opened now shows hand 1 (played on the phones), then
    where to sit. Once hand 2 is played with cards and closed, a screen opened during hand 3's
    seating shows nothing of hand 1 (found in review: it showed it as the hand just played)."""
    from drive import services
    from tests.tables.conftest import seated_players, table_of

    drive, sockets = await two_tables_played_and_closed(organiser)
    for socket in sockets.values():
        await socket.disconnect()
    await database_sync_to_async(services.set_table_mode)(drive, 2, "physical")
    player = (await database_sync_to_async(lambda: seated_players(table_of(drive, 2)))())[0]
    again, frame = await reopened_after_the_hand(drive, player)
    assert frame["message"].startswith("Hand 2 is about to start: stay at Table 2, where it is played with cards"), frame
    await database_sync_to_async(services.start_hand)(drive)
    await database_sync_to_async(lambda: services.close_hand(drive, force=True))()
    late = phone(drive, player)
    assert (await late.connect())[0]
    frame = await late.receive_json_from(timeout=30)
    assert frame["type"] != "state" and frame["message"].startswith("Hand 3 "), frame  # hand 2 was with cards: nothing of hand 1
    await late.disconnect()


async def test_a_game_screen_before_any_hand_is_over_shows_only_where_to_sit(organiser):
    from tests.tables.conftest import digital_drive, seated_players, table_of

    drive = await database_sync_to_async(digital_drive)(organiser, 4, start=False)
    player = (await database_sync_to_async(lambda: seated_players(table_of(drive)))())[0]
    socket = phone(drive, player)
    assert (await socket.connect())[0]
    frame = await socket.receive_json_from(timeout=30)
    assert frame["type"] == "waiting" and frame["hand"] == 1, frame
    await socket.disconnect()


async def test_a_game_screen_left_open_on_a_finished_hand_says_where_the_next_hand_is_with_a_link(organiser):
    """A phone left on the game screen of a finished hand: when the organiser starts the next
    hand it looks again at once (``live.hand_started``), and the player whose next table plays
    with cards is told so plainly, with a button to their phone's page for that hand (it said
    "You are not seated at a table played on the phones in this hand", and only at its next
    quiet-time sync); the one whose next table is on the phones gets its cards. A screen
    opened afterwards (reloaded) says the same and stays connected, to follow the drive."""
    from drive import services
    from tests.tables.conftest import seated_players, table_of

    drive, sockets = await two_tables_played_and_closed(organiser)
    await database_sync_to_async(services.set_table_mode)(drive, 2, "physical")
    on_cards = await database_sync_to_async(lambda: seated_players(table_of(drive, 2)))()
    on_phones = await database_sync_to_async(lambda: seated_players(table_of(drive, 1)))()
    for socket in sockets.values():
        await until(socket, lambda f: f["type"] == "instruction")
    await database_sync_to_async(services.start_hand)(drive)
    me = f"/{drive.join_code}/me"
    for player in on_cards:
        frame = await until(sockets[player.pk], lambda f: f["type"] == "error")
        assert frame["message"] == ("Hand 2 has started: you are at Table 2, playing with cards. "
                                    "Enter or confirm its result on your page.")
        assert frame["elsewhere"] == {"hand": 2, "button": "Go to hand 2", "href": me}
    for player in on_phones:
        frame = await until(sockets[player.pk], lambda f: f["type"] == "state")
        assert (frame["hand"], frame["table"]) == (2, 1) and frame["view"]["seat"] is not None
    for socket in sockets.values():
        await socket.disconnect()
    again = phone(drive, on_cards[0])
    assert (await again.connect())[0]
    frame = await again.receive_json_from(timeout=30)  # (hand 1 is not shown: hand 2 is being played)
    assert frame["elsewhere"]["href"] == me and frame["message"].startswith("Hand 2 has started: you are at Table 2")
    assert await again.receive_nothing(timeout=0.3)  # (not closed)
    await again.disconnect()


async def first_player(drive, sockets):
    return await database_sync_to_async(lambda: drive.players.get(pk=next(iter(sockets))))()


async def reopened_after_the_hand(drive, player):
    """``player`` opens the game screen again, after their hand on the phones is
    over: it shows that hand first, at its end, from their seat (reloaded after the
    close or the drive's end, it showed nothing of it, where the screen left open keeps its
    result). Returns the socket and the frame that comes next."""
    socket = phone(drive, player)
    assert (await socket.connect())[0]
    frame = await socket.receive_json_from(timeout=30)
    assert frame["type"] == "state" and frame["status"] == "done" and frame["hand"] == 1, frame
    assert frame["view"]["result"]["points"] and frame["view"]["seat"] == next(
        s["position"] for s in frame["seats"] if s["name"] == player.name)
    return socket, await socket.receive_json_from(timeout=30)


async def test_the_game_screens_say_the_drive_has_finished_when_it_ends(organiser):
    """Found in a browser: a game screen left on the last hand went on showing it once the drive
    had ended (no close instruction comes then), even reloaded. At the end every game screen
    looks again and says the drive has finished, with a button to the final place; one opened
    afterwards says the same and does not reconnect (4403)."""
    from drive import services

    drive, sockets = await two_tables_played_and_closed(organiser)
    for socket in sockets.values():
        await until(socket, lambda f: f["type"] == "instruction")
    await database_sync_to_async(services.end_drive)(drive)
    me = f"/{drive.join_code}/me"
    for socket in sockets.values():
        frame = await until(socket, lambda f: f["type"] == "error")
        assert frame["message"] == "The drive has finished: your page shows your final place."
        assert frame["elsewhere"] == {"hand": 1, "button": "See your final place", "href": me}
        await socket.disconnect()
    again, frame = await reopened_after_the_hand(drive, await first_player(drive, sockets))
    assert frame["elsewhere"]["href"] == me and frame["message"].startswith("The drive has finished")
    assert (await again.receive_output(timeout=30)) == {"type": "websocket.close", "code": 4403}


async def test_a_seat_read_by_a_sync_before_the_seating_changed_gives_way_to_the_hands_start(
    organiser, monkeypatch
):
    """Found by reading, proven here: a sync looks the player's seat up in a thread; a hand's start
    has every game screen look again too, in a task of its own. On a busy machine the sync's
    read, made before the organiser swapped two players, could come back after the start's read
    of the new seating and be taken: the socket sat again at its seat of the seating before the
    swap (a table since replaced), its phone said hand 2 had not started while it had, and heard
    nothing of its real table until its next sync. A seat read begun before a newer read that
    was taken already is dropped."""
    import threading

    from drive import services
    from tables import consumers
    from tests.tables.conftest import seated_players, table_of

    drive, sockets = await two_tables_played_and_closed(organiser)

    def seats_now():
        return {p.pk: (t.pk, t.seats.get(player=p).position) for t in (table_of(drive, 1), table_of(drive, 2))
                for p in seated_players(t)}

    before = await database_sync_to_async(seats_now)()
    moved = next(iter(sockets))
    other = next(pk for pk in before if before[pk] != before[moved])
    for socket in sockets.values():
        await until(socket, lambda f: f["type"] == "instruction")
    real, read, release = consumers.PlayConsumer.identify, threading.Event(), threading.Event()

    def held_once(self):
        found = real(self)
        if self.player_id == moved and not read.is_set():
            read.set()  # the sync's read of the seating before the swap, slow to come back
            release.wait(30)
        return found

    monkeypatch.setattr(consumers.PlayConsumer, "identify", held_once)
    await sockets[moved].send_json_to({"type": "sync"})
    assert await asyncio.to_thread(read.wait, 30)
    players = await database_sync_to_async(lambda: {p.pk: p for p in drive.players.all()})()
    await database_sync_to_async(services.swap_players)(drive, players[moved], players[other])
    after = await database_sync_to_async(seats_now)()
    assert after[moved] != before[moved]
    await database_sync_to_async(services.start_hand)(drive)  # the screens look again: the new seat
    release.set()
    # The sync's read, from before the swap, is answered first (the socket handles one frame
    # at a time); the start's look follows and sits the socket at its new seat for good.
    frame = await until(sockets[moved], lambda f: f["type"] == "state" and f["hand"] == 2)
    assert frame["view"]["seat"] == after[moved][1]
    await sockets[moved].send_json_to({"type": "sync"})
    frame = await until(sockets[moved], lambda f: f["type"] == "state")
    assert (frame["view"]["seat"], frame["hand"]) == (after[moved][1], 2)
    for socket in sockets.values():
        await socket.disconnect()


async def test_a_game_screen_opened_during_a_hand_with_cards_follows_the_drive(organiser):
    """A game screen opened while its player's table plays with cards says so and stays
    connected: the close's instruction reaches it, and when the next hand starts with the table
    on the phones its cards show, as on the phone's other pages (not closed at once, saying
    "playing with cards" until reloaded)."""
    from drive import services
    from tests.factories import declared
    from tests.tables.conftest import digital_drive, seated_players, table_of

    drive = await database_sync_to_async(digital_drive)(organiser, 4, start=False)
    await database_sync_to_async(services.set_table_mode)(drive, 1, "physical")
    await database_sync_to_async(services.start_hand)(drive)
    player = (await database_sync_to_async(lambda: seated_players(table_of(drive)))())[0]
    socket = phone(drive, player)
    assert (await socket.connect())[0]
    frame = await socket.receive_json_from(timeout=30)
    assert frame["message"].startswith("Hand 1 has started: you are at Table 1, playing with cards"), frame

    def played_with_cards_and_closed():
        services.organiser_result(drive, table_of(drive), declared(4, 0), organiser)
        services.close_hand(drive)
        services.set_table_mode(drive, 1, "digital")

    await database_sync_to_async(played_with_cards_and_closed)()
    assert (await until(socket, lambda f: f["type"] in ("instruction", "state") or "code" in f))["type"] == "instruction"
    await database_sync_to_async(services.start_hand)(drive)
    frame = await until(socket, lambda f: f["type"] == "state")
    assert (frame["hand"], frame["table"]) == (2, 1) and frame["view"]["seat"] is not None
    await socket.disconnect()
