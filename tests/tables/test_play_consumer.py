"""Playing a digital hand on phones over Channels: views, a whole hand, refusals, resends, restart."""

from __future__ import annotations

import json
import random

import pytest
from channels.db import database_sync_to_async

from games import get_game
from scoring.models import Result
from tables.models import TableHand
from tests.tables.phones import action, at_version, connected, phone, until

pytestmark = pytest.mark.django_db(transaction=True)

GAME = get_game("film-fantasy")


@database_sync_to_async
def stored(table_id: int) -> TableHand:
    return TableHand.objects.get(pk=table_id)


async def next_move(table_id: int, rng: random.Random) -> tuple[int, dict, int] | None:
    """(seat, greedy action, version) for the first seat with something to do, or None if over."""
    table = await stored(table_id)
    state = GAME.load_hand(table.state)
    if state.finished:
        return None
    for seat in rng.sample(range(state.players), state.players):
        move = GAME.bot_action(state, seat, rng)
        if move is not None:
            return seat, move, table.version
    return None


async def play_to_the_end(sockets, table_id: int, rng: random.Random, limit: int = 2000) -> int:
    """Every seat plays the greedy bot's move through its own socket until the hand is over."""
    moves = 0
    while (move := await next_move(table_id, rng)) is not None:
        seat, act, version = move
        await sockets[seat].send_json_to(action(act["type"], version, **{k: v for k, v in act.items() if k != "type"}))
        reply = await until(sockets[seat], lambda f: f["type"] in ("ok", "error"))
        assert reply["type"] == "ok", reply
        for s in sockets:
            await until(s, at_version(reply["version"]))
        moves += 1
        assert moves < limit
    return moves


async def test_each_phone_gets_its_own_view_and_the_names_at_once(four_at_a_table):
    drive, table, players = four_at_a_table
    for position, player in enumerate(players):
        socket, first = await connected(drive, player)
        assert first["type"] == "state"
        assert first["view"]["seat"] == position
        assert len(first["view"]["hand"]) == 4
        assert [s["name"] for s in first["seats"]] == [p.name for p in players]
        assert first["view"]["dealer_draw"][-1] == "J"  # the dealer draw is shown to all
        await socket.disconnect()


async def test_each_frame_says_whether_anyone_moves_after_its_hand(organiser):
    """The phones say who moves after a hand, except after the drive's last and at a drive's lone
    table (nobody moves then): every frame says which it is."""
    from drive.models import Drive
    from tests.tables.conftest import digital_drive, seated_players, table_of

    for players, target, hands, moves in ((8, Drive.Target.HANDS, 1, False), (8, Drive.Target.HANDS, 3, True),
                                          (8, Drive.Target.TOTAL, 1, True), (4, Drive.Target.HANDS, 3, False)):
        drive = await database_sync_to_async(digital_drive)(organiser, players, target=target, target_hands=hands,
                                                            preferred_table_size=4)
        for number in range(1, players // 4 + 1):
            seated = await database_sync_to_async(lambda: seated_players(table_of(drive, number)))()
            socket, first = await connected(drive, seated[0])
            assert first["type"] == "state" and first["moves"] is moves, (players, target, hands, number)
            await socket.disconnect()


async def test_a_hand_whose_result_reaches_the_total_names_no_move_and_says_the_final_standings_come_next(organiser):
    """At a drive played to a total, the hand whose result reaches it ends the drive at its close:
    its finished frames say nobody moves after it and that the final standings come next (as
    the phone's page says), on every phone of the table and on a screen opened afterwards; and
    once the close has ended the drive, the hand reopened says it was the last."""
    from drive import services
    from drive.models import Drive
    from tests.tables.conftest import digital_drive, seated_players, table_of

    drive = await database_sync_to_async(digital_drive)(organiser, 8, target=Drive.Target.TOTAL, target_total=1,
                                                        preferred_table_size=4)
    table = await database_sync_to_async(table_of)(drive, 2)
    players = await database_sync_to_async(seated_players)(table)
    opened = [await connected(drive, p) for p in players]
    sockets = [socket for socket, _ in opened]
    assert all(first["moves"] and not first["ending"] for _, first in opened)  # (nothing reached yet)
    seen: list[list[dict]] = [[] for _ in sockets]
    rng = random.Random(4)
    while (move := await next_move(table.pk, rng)) is not None:
        seat, act, version = move
        await sockets[seat].send_json_to(action(act["type"], version, **{k: v for k, v in act.items() if k != "type"}))
        reply = await until(sockets[seat], lambda f: f["type"] in ("ok", "error"), seen=seen[seat])
        for socket, frames in zip(sockets, seen):
            await until(socket, at_version(reply["version"]), seen=frames)
    for socket, frames in zip(sockets, seen):
        done = [f for f in frames if f["type"] == "state" and f["status"] == "done"]
        assert len(done) == 1 and done[0]["moves"] is False and "final standings come next" in done[0]["ending"], done
        await socket.disconnect()
    again, frame = await connected(drive, players[1])
    assert frame["moves"] is False and "final standings come next" in frame["ending"]
    await again.disconnect()
    await database_sync_to_async(lambda: services.close_hand(drive, force=True))()
    again, frame = await connected(drive, players[1])
    assert frame["status"] == "done" and frame["moves"] is False and frame["ending"].startswith("This was the drive's last hand")
    await again.disconnect()


async def test_a_finished_hand_says_who_moves_up_and_who_moves_down(organiser):
    """After each hand the mover moves up a table and the player on their left moves down: the
    finished frames of a table of several name both seats, with what each does at this table
    (at the top table the mover stays; at the last the player on their left stays), as the
    close will make it; once the close has made it, as made."""
    from drive import services
    from tests.tables.conftest import digital_drive, seated_players, table_of

    drive = await database_sync_to_async(digital_drive)(organiser, 12, target_hands=3, preferred_table_size=4)
    said = {1: ("stays at the top table", "moves down a table"), 2: ("moves up a table", "moves down a table"),
            3: ("moves up a table", "stays at the last table")}
    for number, (up, down) in said.items():
        table = await database_sync_to_async(table_of)(drive, number)
        players = await database_sync_to_async(seated_players)(table)
        sockets = [(await connected(drive, p))[0] for p in players]
        await play_to_the_end(sockets, table.pk, random.Random(number))
        mover = await database_sync_to_async(lambda: Result.objects.get(table_id=table.pk).mover_id)()
        at = [p.pk for p in players].index(mover)
        for socket in sockets:
            await socket.disconnect()
        again, frame = await connected(drive, players[0])
        assert frame["status"] == "done" and frame["movement"] == [[at, up], [(at + 1) % 4, down]], (number, frame)
        await again.disconnect()
    await database_sync_to_async(services.close_hand)(drive)
    again = phone(drive, players[0])
    assert (await again.connect())[0]
    frame = await again.receive_json_from(timeout=30)  # hand 3's table, as it was played, then where to sit
    assert frame["movement"] == [[at, "moved up a table"], [(at + 1) % 4, "stayed at the last table"]], frame
    await again.disconnect()


async def test_a_whole_hand_played_on_phones_enters_the_drive_confirmed(four_at_a_table):
    drive, table, players = four_at_a_table
    sockets = [(await connected(drive, p))[0] for p in players]
    moves = await play_to_the_end(sockets, table.pk, random.Random(3))
    assert moves > 4
    done = await stored(table.pk)
    assert done.status == TableHand.Status.CONFIRMED
    result = await database_sync_to_async(lambda: Result.objects.get(table=done))()
    assert result.status == Result.Status.CONFIRMED and result.source == Result.Source.DIGITAL
    points = await database_sync_to_async(lambda: sorted(result.scores.values_list("points", flat=True)))()
    assert points == sorted(GAME.load_hand(done.state).outcome().points)
    for s in sockets:
        await s.disconnect()


async def test_each_phone_is_sent_each_version_of_the_table_once(four_at_a_table):
    """The mover's phone gets its part of the table's message once, whether the group's copy or
    its own move's answer comes first; the others get theirs from the group, once."""
    drive, table, players = four_at_a_table
    sockets = [(await connected(drive, p))[0] for p in players]
    seen: list[list[dict]] = [[] for _ in sockets]
    rng, moves = random.Random(5), 0
    while (move := await next_move(table.pk, rng)) is not None:
        seat, act, version = move
        await sockets[seat].send_json_to(action(act["type"], version, **{k: v for k, v in act.items() if k != "type"}))
        reply = await until(sockets[seat], lambda f: f["type"] in ("ok", "error"), seen=seen[seat])
        assert reply["type"] == "ok", reply
        for s, frames in zip(sockets, seen):
            await until(s, at_version(reply["version"]), seen=frames)
        moves += 1
    last = (await stored(table.pk)).version
    for s, frames in zip(sockets, seen):
        # The answer to a malformed frame comes after everything the socket was sent before it.
        await s.send_to(text_data="not json")
        await until(s, lambda f: f["type"] == "error", seen=frames)
        versions = [f["view"]["version"] for f in frames if f["type"] == "state"]
        assert versions == sorted(set(versions)) and versions[-1] == last, versions
    assert moves > 4
    for s in sockets:
        await s.disconnect()


async def refused(socket, message) -> dict:
    await socket.send_json_to(message)
    reply = await until(socket, lambda f: f["type"] in ("ok", "error"))
    assert reply["type"] == "error", reply
    return reply


async def test_stale_illegal_and_foreign_seat_actions_are_refused_with_a_message(four_at_a_table):
    drive, table, players = four_at_a_table
    socket, first = await connected(drive, players[0])
    view = first["view"]
    before = await stored(table.pk)
    card = view["hand"][0]
    if view["version"]:
        stale = await refused(socket, action("pass", view["version"] - 1, card=card))
        assert "moved on" in stale["message"]
    # A version no phone was shown (found from outside: it was called stale, "version 999, now 0").
    ahead = await refused(socket, action("pass", view["version"] + 900, card=card))
    assert ahead["message"] == f"The table is at version {view['version']}, not {view['version'] + 900}: look again and choose."
    illegal = await refused(socket, action("pass", view["version"], card="no-such-card"))
    assert illegal["message"] == "You do not hold 'no-such-card' to pass."
    foreign = await refused(socket, {**action("pass", view["version"], card=card), "seat": 1})
    assert "you can act only for your own seat" in foreign["message"]
    for odd in ("0", 0.0, True, [0]):  # a seat that is no number (found by a tester: "0" was told "you play seat 1")
        odd_seat = await refused(socket, {**action("pass", view["version"], card=card), "seat": odd})
        assert odd_seat["message"] == "'seat', when sent, must be your seat's number."
    huge = await refused(socket, action("pass", 10**4000, card=card))  # no "version" at all: not echoed
    assert huge["message"] == "'version' must be the version number your phone last saw."
    not_yet = await refused(socket, action("offer", view["version"], to=1, cards=[card]))
    assert "auction" in not_yet["message"].lower()
    after = await stored(table.pk)
    assert (after.state, after.version) == (before.state, before.version)
    await socket.disconnect()


async def test_malformed_and_oversized_frames_get_an_error_not_a_crash(four_at_a_table):
    drive, table, players = four_at_a_table
    socket, _ = await connected(drive, players[0])
    for text in ("{not json", json.dumps(["a"]), json.dumps({"no": "type"}), json.dumps({"type": "pass", "pad": "x" * 5000})):
        await socket.send_to(text_data=text)
        assert (await until(socket, lambda f: f["type"] == "error"))["type"] == "error"
    await socket.send_json_to({"type": "sync"})
    assert (await until(socket, lambda f: f["type"] == "state"))["view"]["seat"] == 0  # still alive
    await socket.disconnect()


@pytest.mark.parametrize("key", ["\\ud800", "a\\u0000b", "", "x" * 65, "a b", "é"])
async def test_a_client_key_that_is_not_letters_digits_or_dashes_is_refused_with_a_message(four_at_a_table, key):
    """A lone surrogate or a NUL in the key reached PostgreSQL's JSON column and failed there
    (an internal error and a resend to every seat, found by probing): refused up front now."""
    drive, table, players = four_at_a_table
    socket, first = await connected(drive, players[0])
    view = first["view"]
    frame = '{"type": "pass", "card": "%s", "version": %d, "key": "%s"}' % (view["hand"][0], view["version"], key)
    await socket.send_to(text_data=frame)
    error = await until(socket, lambda f: f["type"] in ("error", "ok"))
    assert error["type"] == "error" and "'key' must be" in error["message"]
    assert (await stored(table.pk)).version == view["version"]
    await socket.disconnect()


async def test_an_action_sent_twice_is_applied_once(four_at_a_table):
    drive, table, players = four_at_a_table
    socket, first = await connected(drive, players[0])
    message = action("pass", first["view"]["version"], card=first["view"]["hand"][0])
    await socket.send_json_to(message)
    ok = await until(socket, lambda f: f["type"] == "ok")
    assert ok["duplicate"] is False
    await socket.send_json_to(message)
    again = await until(socket, lambda f: f["type"] == "ok")
    assert again["duplicate"] is True and again["version"] == ok["version"]
    view = await until(socket, lambda f: f["type"] == "state")
    assert view["view"]["version"] == ok["version"] and view["view"]["my_pass"] == message["card"]
    passes = [e for e in GAME.load_hand((await stored(table.pk)).state).log if e["type"] == "passed"]
    assert len(passes) == 1
    await socket.disconnect()


async def test_a_key_sent_again_with_another_move_is_refused_and_changes_nothing(four_at_a_table):
    """A phone that reuses a client key for another move (a buggy or hostile client: another card,
    another kind of move) was answered "duplicate", as if that move had been made. It is refused
    with a message and nothing changes; the same frame sent again is still a duplicate."""
    from tables import frames

    drive, table, players = four_at_a_table
    socket, first = await connected(drive, players[0])
    view = first["view"]
    card, other = view["hand"][0], view["hand"][1]
    message = action("pass", view["version"], card=card)
    await socket.send_json_to(message)
    ok = await until(socket, lambda f: f["type"] == "ok")
    assert ok["duplicate"] is False
    before = await stored(table.pk)
    for reused in ({"type": "pass", "card": other}, {"type": "declare"}):  # another card, another kind of move
        for version in (ok["version"], message["version"]):  # on the version it would be made on, or the first's
            reply = await refused(socket, {**reused, "version": version, "key": message["key"]})
            assert reply["message"] == frames.KEY_REUSED == (
                "That move's key was already used for another move: reload to see the table.")
            assert reply["key"] == message["key"]
    after = await stored(table.pk)
    assert (after.state, after.version, after.client_keys) == (before.state, before.version, before.client_keys)
    assert GAME.load_hand(after.state).passes[0] == card
    await socket.send_json_to(message)  # a true repeat
    again = await until(socket, lambda f: f["type"] in ("ok", "error"))
    assert again["type"] == "ok" and again["duplicate"] is True and again["version"] == ok["version"]
    # The other card was a move the phone could make: with a key of its own it is made.
    await socket.send_json_to(action("pass", ok["version"], card=other))
    changed = await until(socket, lambda f: f["type"] in ("ok", "error"))
    assert changed["type"] == "ok" and changed["duplicate"] is False and changed["version"] > ok["version"]
    assert GAME.load_hand((await stored(table.pk)).state).passes[0] == other
    await socket.disconnect()


async def test_strangers_and_players_of_other_drives_are_refused(four_at_a_table, organiser):
    drive, table, players = four_at_a_table
    stranger = phone(drive)
    assert (await stranger.connect())[0]
    assert (await stranger.receive_json_from(timeout=30))["type"] == "error"
    assert (await stranger.receive_output(timeout=30))["type"] == "websocket.close"
    other_drive = await database_sync_to_async(
        lambda: __import__("tests.tables.conftest", fromlist=["x"]).digital_drive(organiser, 2, name="Other")
    )()
    outsider = await database_sync_to_async(lambda: other_drive.players.first())()
    socket = phone(drive, outsider)
    assert (await socket.connect())[0]
    assert "Join" in (await socket.receive_json_from(timeout=30))["message"]


async def test_a_restart_mid_hand_resumes_from_the_database(four_at_a_table):
    drive, table, players = four_at_a_table
    rng = random.Random(5)
    sockets = [(await connected(drive, p))[0] for p in players]
    for _ in range(6):  # a round and a half of passes
        seat, act, version = await next_move(table.pk, rng)
        await sockets[seat].send_json_to(action(act["type"], version, **{k: v for k, v in act.items() if k != "type"}))
        reply = await until(sockets[seat], lambda f: f["type"] in ("ok", "error"))
        assert reply["type"] == "ok"
    for s in sockets:
        await s.disconnect()
    mid = await stored(table.pk)
    # A fresh process: nothing in memory; every phone reconnects and gets its current view at once.
    from channels.layers import channel_layers

    channel_layers.backends.clear()
    sockets, views = zip(*[await connected(drive, p) for p in players])
    assert all(v["view"]["version"] == mid.version for v in views)
    assert views[0]["view"]["hand"] == GAME.load_hand(mid.state).view(0)["hand"]
    await play_to_the_end(list(sockets), table.pk, rng)
    assert (await stored(table.pk)).status == TableHand.Status.CONFIRMED
    for s in sockets:
        await s.disconnect()


async def test_simultaneous_passes_are_accepted_when_only_other_seats_moved(four_at_a_table):
    drive, table, players = four_at_a_table
    ann, ann_first = await connected(drive, players[0])
    bob, bob_first = await connected(drive, players[1])
    seen = bob_first["view"]  # Bob chooses from this view while Ann passes
    await ann.send_json_to(action("pass", ann_first["view"]["version"], card=ann_first["view"]["hand"][0]))
    assert (await until(ann, lambda f: f["type"] in ("ok", "error")))["type"] == "ok"
    # Bob's version is now stale, but nothing he decides on changed: his pass goes through.
    await bob.send_json_to({**action("pass", seen["version"], card=seen["hand"][0]), "basis": seen["basis"]})
    assert (await until(bob, lambda f: f["type"] in ("ok", "error")))["type"] == "ok"
    await ann.disconnect()
    await bob.disconnect()


async def test_a_stale_action_whose_basis_changed_is_refused(four_at_a_table):
    drive, table, players = four_at_a_table
    sockets, views = [], []
    for p in players:
        s, first = await connected(drive, p)
        sockets.append(s)
        views.append(first["view"])
    old = views[0]
    version = old["version"]
    for seat, s in enumerate(sockets):  # everyone passes: the round ends, hands change
        await s.send_json_to(action("pass", version, card=views[seat]["hand"][0]))
        reply = await until(s, lambda f: f["type"] in ("ok", "error"))
        assert reply["type"] == "ok", reply
        version = reply["version"]
    before = await stored(table.pk)
    reply = await refused(sockets[0], {**action("pass", old["version"], card=old["hand"][1]), "basis": old["basis"]})
    assert reply["message"] == ("Your hand changed before your move arrived (another move came first): "
                                "look at it again and choose.")
    assert (await stored(table.pk)).version == before.version
    await refused(sockets[0], {**action("pass", old["version"], card=old["hand"][1]), "basis": "forged"})
    for s in sockets:
        await s.disconnect()


async def test_a_phone_signed_out_after_connecting_cannot_act_even_if_its_socket_stayed_open(four_at_a_table):
    from drive.models import Player, new_token

    drive, table, players = four_at_a_table
    socket, first = await connected(drive, players[0])
    # The sign-out's close message missed this socket (it came between its checks): the token changed.
    await database_sync_to_async(Player.objects.filter(pk=players[0].pk).update)(token=new_token())
    view = first["view"]
    await socket.send_json_to(action("pass", view["version"], card=view["hand"][0]))
    reply = await until(socket, lambda f: f["type"] in ("ok", "error"))
    assert reply["type"] == "error" and "join the drive again" in reply["message"]
    assert (await stored(table.pk)).version == view["version"]  # nothing applied
    await socket.disconnect()


async def top_table_played_out(organiser):
    """A drive of eight on the phones whose top table has played its hand out: the drive, that
    table's players by seat, and the seat of the hand's winner."""
    from tests.tables.conftest import digital_drive, play_to_the_end as played_out, seated_players, table_of

    drive = await database_sync_to_async(digital_drive)(organiser, 8, target_hands=3, preferred_table_size=4)
    table = await database_sync_to_async(table_of)(drive, 1)
    players = await database_sync_to_async(seated_players)(table)
    await database_sync_to_async(played_out)(table, players, 3)
    mover = await database_sync_to_async(lambda: Result.objects.get(table_id=table.pk).mover_id)()
    return drive, players, [p.pk for p in players].index(mover)


async def test_a_finished_hand_won_by_a_player_who_then_left_says_they_left_not_that_they_move(organiser):
    """The winner of a hand on the phones, taken out of the drive before the close, is said on
    the table's phones to have left the drive, not to stay at the top table (as the dashboard
    says; the close seats them nowhere). Before the close and after it."""
    from drive import services

    drive, players, at = await top_table_played_out(organiser)
    await database_sync_to_async(services.withdraw_player)(drive, players[at])
    watcher = players[(at + 2) % 4]
    socket, frame = await connected(drive, watcher)
    assert frame["status"] == "done" and frame["movement"] == [[at, "has left the drive"],
                                                               [(at + 1) % 4, "moves down a table"]], frame
    await socket.disconnect()
    await database_sync_to_async(lambda: services.close_hand(drive, force=True))()
    again = phone(drive, watcher)
    assert (await again.connect())[0]
    frame = await again.receive_json_from(timeout=30)  # the hand as it ended, then where to sit
    assert frame["movement"] == [[at, "left the drive"], [(at + 1) % 4, "moved down a table"]], frame
    await again.disconnect()


async def test_an_open_screen_hears_that_the_hands_winner_left_the_drive(organiser):
    """A table's screen left open when its hand's winner is taken out of the drive (before the
    close) says at once that they left, not that they move, without a reload; and that they
    move again once they rejoin."""
    from drive import services

    drive, players, at = await top_table_played_out(organiser)
    socket, frame = await connected(drive, players[(at + 2) % 4])
    assert frame["movement"][0] == [at, "stays at the top table"], frame
    await database_sync_to_async(services.withdraw_player)(drive, players[at])
    frame = await until(socket, lambda f: f["type"] == "state" and f["movement"][0][1] != "stays at the top table")
    assert frame["movement"] == [[at, "has left the drive"], [(at + 1) % 4, "moves down a table"]], frame
    await database_sync_to_async(services.rejoin_player)(drive, players[at])  # and back again
    frame = await until(socket, lambda f: f["type"] == "state" and f["movement"][0][1] != "has left the drive")
    assert frame["movement"][0] == [at, "stays at the top table"], frame
    await socket.disconnect()



async def test_a_screen_open_through_the_close_hears_that_the_hands_winner_left_the_drive_after_it(organiser):
    """A finished hand's screen left open through the close, when the organiser takes the hand's
    winner out between hands (the next hand's seating shown), says at once that they left the
    drive, as a reload of the hand says, not that they move; brought back, that they moved."""
    from drive import services

    drive, players, at = await top_table_played_out(organiser)
    socket, frame = await connected(drive, players[(at + 2) % 4])
    assert frame["movement"][0] == [at, "stays at the top table"], frame
    await database_sync_to_async(lambda: services.close_hand(drive, force=True))()
    await database_sync_to_async(services.withdraw_player)(drive, players[at])
    frame = await until(socket, lambda f: f["type"] == "state" and "top table" not in f["movement"][0][1])
    assert frame["movement"] == [[at, "left the drive"], [(at + 1) % 4, "moved down a table"]], frame
    await database_sync_to_async(services.rejoin_player)(drive, players[at])
    frame = await until(socket, lambda f: f["type"] == "state" and f["movement"][0][1] != "left the drive")
    assert frame["movement"][0] == [at, "stayed at the top table"], frame
    await socket.disconnect()
