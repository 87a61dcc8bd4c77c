"""Alice's answer clock on the phones: the seat asked for a card, and the asker whose ask
failed, each have a deadline kept in the hand's state (the drive's house rule, 20 s by
default); when it passes the server hands the card over or passes the turn, also after a
restart; a phone cannot run its own time out; a timer that outlived its question changes
nothing."""

from __future__ import annotations

import time

import pytest
from channels.db import database_sync_to_async

from games import get_game
from tables import bots
from tables.models import TableHand
from tests.games.alice_support import deal
from tests.tables.conftest import digital_drive, seated_players, table_of
from tests.tables.phones import action, connected, eventually_async, until
from tests.tables.test_alice_play import move, put_state, stored

pytestmark = pytest.mark.django_db(transaction=True)

GAME = get_game("alice")
# Ann (seat 0) starts (the dealer is seat 2). Bob holds A5 and a White Rabbit, so Ann's ask for
# A5 waits for his answer; Ann holds a Cheshire Cat, so her ask for C2 (nobody's) waits for hers.
ANN = ["A1", "A2", "A3", "A4", "CC", "C1", "D1"]
BOB = ["A5", "WR", "E1", "E2", "F1", "F2", "G1"]
CY = ["B2", "WR", "H1", "H2", "H3", "G2", "G3"]


@database_sync_to_async
def alice_table(organiser, **rules):
    drive = digital_drive(organiser, 3, game="alice", house_rules=rules)
    table = table_of(drive)
    return drive, table, seated_players(table)


async def dealt_and_connected(organiser, answer_seconds: int | None = None):
    """Alice at three on the phones, ANN, BOB and CY dealt (seat 2 deals; ``answer_seconds`` to
    answer, the drive's house rule and the hand's, if given), every seat's phone connected: the
    drive, the table, the players and their sockets."""
    drive, table, players = await alice_table(
        organiser, **({} if answer_seconds is None else {"answer_seconds": str(answer_seconds)}))
    chosen = deal(3, [ANN, BOB, CY], dealer=2)
    if answer_seconds is not None:
        chosen.answer_seconds = float(answer_seconds)
    await put_state(table.pk, chosen)
    return drive, table, players, [(await connected(drive, p))[0] for p in players]


async def disconnect(sockets) -> None:
    for s in sockets:
        await s.disconnect()


@database_sync_to_async
def move_deadline(table_id: int, seconds_from_now: float) -> float:
    """The stored deadline moved (as a server that restarted finds it, its timers gone)."""
    table = TableHand.objects.get(pk=table_id)
    table.state = {**table.state, "deadline": time.time() + seconds_from_now}
    table.save(update_fields=["state"])
    return table.state["deadline"]


async def test_an_ask_gets_its_deadline_in_the_state_and_every_phone_counts_it_down(organiser):
    drive, table, players, sockets = await dealt_and_connected(organiser)
    before = time.time()
    step = await move(sockets, 0, {"type": "ask", "to": 1, "card": "A5"}, 0)
    after = time.time()
    deadline = GAME.load_hand((await stored(table.pk)).state).deadline
    assert before + 20 <= deadline <= after + 20
    for view in step["views"]:
        assert view["deadline"] == deadline and view["answer_seconds"] == 20 and view["answering"] == 1
    # Each frame carries the server's clock, so a phone whose clock is off counts down rightly.
    await sockets[2].send_json_to({"type": "sync"})
    frame = await until(sockets[2], lambda f: f["type"] == "state")
    assert before <= frame["now"] <= time.time()
    # Bob answers: the question and its deadline are gone.
    step = await move(sockets, 1, {"type": "give"}, step["version"])
    assert step["views"][0]["deadline"] is None and step["views"][0]["pending"] is None
    assert GAME.load_hand((await stored(table.pk)).state).deadline is None
    await disconnect(sockets)


async def test_the_drives_house_rule_sets_the_time_to_answer(organiser):
    drive, table, players = await alice_table(organiser, answer_seconds="10")
    assert GAME.load_hand((await stored(table.pk)).state).answer_seconds == 10  # dealt with the rule
    chosen = deal(3, [ANN, BOB, CY], dealer=2)
    chosen.answer_seconds = 10.0
    await put_state(table.pk, chosen)
    sockets = [(await connected(drive, p))[0] for p in players]
    before = time.time()
    step = await move(sockets, 0, {"type": "ask", "to": 1, "card": "A5"}, 0)
    assert before + 10 <= GAME.load_hand((await stored(table.pk)).state).deadline <= time.time() + 10
    assert step["views"][1]["answer_seconds"] == 10
    await disconnect(sockets)


async def test_a_phone_cannot_run_out_its_own_time(organiser):
    drive, table, players, sockets = await dealt_and_connected(organiser)
    step = await move(sockets, 0, {"type": "ask", "to": 1, "card": "A5"}, 0)
    await move_deadline(table.pk, -5)  # even once its time has passed
    kept = (await stored(table.pk)).state
    await sockets[1].send_json_to(action("timeout", step["version"]))
    refused = await until(sockets[1], lambda f: f["type"] == "error")
    assert refused["message"] == "Only the server's clock can run out a player's time: choose your answer."
    assert (await stored(table.pk)).state == kept
    await disconnect(sockets)


async def test_when_the_asked_seats_time_runs_out_the_card_is_handed_over_also_after_a_restart(organiser):
    drive, table, players, sockets = await dealt_and_connected(organiser)
    await move(sockets, 0, {"type": "ask", "to": 1, "card": "A5"}, 0)
    # A restart: the deadline is in the database, the timer is not; a phone connecting again
    # sets it (as the bots resume), and the server answers for Bob when it passes.
    await move_deadline(table.pk, 0.3)
    again, _first = await connected(drive, players[2])
    frame = await until(again, lambda f: f["type"] == "state" and f["view"]["pending"] is None, timeout=30)
    view = frame["view"]
    # A5 handed over (not refused: Bob keeps his Rabbit), and Ann's set A laid at once.
    assert view["counts"] == [3, 6, 7] and view["laid"][0] == ["A"] and view["played"] == []
    assert view["turn"] == 0 and view["deadline"] is None
    assert [e["type"] for e in view["log"]].count("timeout") == 1
    await disconnect([*sockets, again])


async def test_after_a_restart_the_organisers_dashboard_sets_the_clock_of_a_table_no_phone_has_open(organiser):
    """After a restart a hand played on the phones stood still (bots, the answer
    clock) until a page of its own table connected; the phones were elsewhere. The organiser's
    dashboard connecting sets every table of the drive going again."""
    from asgiref.sync import sync_to_async

    from tests.drive.live_support import connected as live_connected, session_cookie

    # (this process's own timer fires only after the wait below)
    drive, table, players, sockets = await dealt_and_connected(organiser, answer_seconds=60)
    step = await move(sockets, 0, {"type": "ask", "to": 1, "card": "A5"}, 0)
    await disconnect(sockets)
    await move_deadline(table.pk, 0.3)  # a restart: the deadline is stored, its timer is not
    dashboard = await live_connected(f"/ws/drive/{drive.join_code}/organiser/",
                                     await sync_to_async(session_cookie)(organiser))
    async def answered() -> bool:  # the server has answered for Bob (each look a read of the table)
        return (await stored(table.pk)).version > step["version"]

    await eventually_async(answered, "the server's answer for Bob once the dashboard connected")
    state = GAME.load_hand((await stored(table.pk)).state)
    assert state.laid[0] == ["A"] and [e["type"] for e in state.log].count("timeout") == 1
    await dashboard.disconnect()


async def test_when_the_askers_time_runs_out_the_turn_passes(organiser):
    drive, table, players, sockets = await dealt_and_connected(organiser)
    step = await move(sockets, 0, {"type": "ask", "to": 1, "card": "C2"}, 0)
    assert step["views"][0]["pending"]["decision"] == "cat"
    await move_deadline(table.pk, 0.3)
    bots.schedule_table(table.pk)  # as a socket's "look again" does
    frame = await until(sockets[1], lambda f: f["type"] == "state" and f["view"]["pending"] is None, timeout=30)
    assert frame["view"]["turn"] == 1 and frame["view"]["played"] == []  # the Cat kept, the turn passed
    assert "CC" in GAME.load_hand((await stored(table.pk)).state).hands[0]
    await disconnect(sockets)


async def test_a_timer_that_outlived_its_question_or_fires_early_changes_nothing(organiser):
    drive, table, players, sockets = await dealt_and_connected(organiser)
    step = await move(sockets, 0, {"type": "ask", "to": 1, "card": "A5"}, 0)
    clock_step = database_sync_to_async(bots.clock_step)
    kept = await stored(table.pk)
    assert await clock_step(table.pk) == "early"  # 20 s to go
    assert (await stored(table.pk)).version == kept.version
    await move(sockets, 1, {"type": "rabbit"}, step["version"])
    answered = await stored(table.pk)
    assert await clock_step(table.pk) == "idle"  # answered: nothing is timed
    assert (await stored(table.pk)).state == answered.state
    await disconnect(sockets)
