"""Alice on the phones over Channels: each phone's view, a whole hand to its result, the asked
seat's give-or-Rabbit question and the asker's Cheshire Cat question answered through the
sockets, refusals in words, and the organiser's view of the table."""

from __future__ import annotations

import random

import pytest
from channels.db import database_sync_to_async

from games import get_game
from scoring.models import Result, Score
from tables.models import TableHand
from tests.games.alice_support import deal
from tests.tables.conftest import digital_drive, seated_players, table_of
from tests.tables.test_bots_bell_and_watch import organisers_watch
from tests.tables.phones import action, at_version, connected, until

pytestmark = pytest.mark.django_db(transaction=True)

GAME = get_game("alice")


@database_sync_to_async
def stored(table_id: int) -> TableHand:
    return TableHand.objects.get(pk=table_id)


@database_sync_to_async
def three_at_an_alice_table(organiser):
    drive = digital_drive(organiser, 3, game="alice")
    table = table_of(drive)
    return drive, table, seated_players(table)


@database_sync_to_async
def put_state(table_id: int, state) -> None:
    """The table's hand replaced by a chosen deal (as a restore would leave it)."""
    TableHand.objects.filter(pk=table_id).update(state=state.to_json(), version=state.version)


async def move(sockets, seat: int, act: dict, version: int) -> dict:
    """Seat ``seat`` sends ``act`` through its socket; every phone then sees the new version."""
    await sockets[seat].send_json_to(action(act["type"], version, **{k: v for k, v in act.items() if k != "type"}))
    reply = await until(sockets[seat], lambda f: f["type"] in ("ok", "error"))
    assert reply["type"] == "ok", reply
    views = [(await until(s, at_version(reply["version"])))["view"] for s in sockets]
    return {"version": reply["version"], "views": views}


async def test_each_phone_sees_its_own_cards_and_the_table_as_counts(organiser):
    drive, table, players = await three_at_an_alice_table(organiser)
    state = GAME.load_hand((await stored(table.pk)).state)
    for position, player in enumerate(players):
        socket, first = await connected(drive, player)
        view = first["view"]
        assert first["type"] == "state" and view["game"] == "alice" and view["seat"] == position
        assert view["hand"] == sorted(state.hands[position]) and len(view["hand"]) == 7
        assert view["counts"] == [7, 7, 7] and view["stock"] == 44 - 21 - 7 and len(view["row"]) == 7
        assert "hands" not in view and "result" not in view
        assert view["turn"] == (view["dealer"] + 1) % 3  # the dealer's left begins
        assert [s["name"] for s in first["seats"]] == [p.name for p in players]
        await socket.disconnect()


async def test_a_whole_alice_hand_played_on_phones_enters_the_drive_with_its_facts(organiser):
    drive, table, players = await three_at_an_alice_table(organiser)
    sockets = [(await connected(drive, p))[0] for p in players]
    rng, moves, last = random.Random(5), 0, None
    while True:
        now = await stored(table.pk)
        state = GAME.load_hand(now.state)
        if state.finished:
            break
        seat, act = next((s, m) for s in range(3) if (m := GAME.bot_action(state, s, rng)) is not None)
        last = await move(sockets, seat, act, now.version)
        moves += 1
        assert moves < 1000
    assert moves > 10
    for view in last["views"]:  # every phone is told the result
        assert view["finished"] and view["result"]["points"] == state.points
        assert view["result"]["sets"] == [len(x) for x in state.laid] and sum(view["result"]["sets"]) == 8
        assert view["result"]["mover"] == state.mover()
    done = await stored(table.pk)
    assert done.status == TableHand.Status.CONFIRMED
    result = await database_sync_to_async(lambda: Result.objects.get(table=done))()
    assert result.source == Result.Source.DIGITAL and result.summary["holdings"] == [
        {"sets": len(x)} for x in state.laid]
    scores = await database_sync_to_async(
        lambda: {s.player_id: (s.points, s.details) for s in Score.objects.filter(result=result)})()
    mover = state.mover()
    for seat, player in enumerate(players):
        points, details = scores[player.pk]
        assert points == 5 * len(state.laid[seat])
        assert details.get("hands_won", 0) == (1 if seat == mover else 0)
        assert details.get("best_hand_sets", 0) == len(state.laid[seat])
    for s in sockets:
        await s.disconnect()


# Seat 2 deals, so seat 0 (Ann) begins. Ann holds A1-A4 and a Cheshire Cat; Bob holds A5 and a
# White Rabbit; Cy holds B2 and the other White Rabbit.
ANN = ["A1", "A2", "A3", "A4", "C1", "CC", "D1"]
BOB = ["A5", "WR", "E1", "E2", "F1", "F2", "G1"]
CY = ["B2", "WR", "H1", "H2", "H3", "G2", "G3"]


async def test_the_asked_seat_and_the_asker_answer_their_questions_through_the_sockets(organiser):
    drive, table, players = await three_at_an_alice_table(organiser)
    await put_state(table.pk, deal(3, [ANN, BOB, CY], dealer=2))
    sockets = [(await connected(drive, p))[0] for p in players]
    ann, bob, cy = sockets
    # Ann asks Bob for A5: Bob holds it and a White Rabbit, so Bob is asked what to do.
    step = await move(sockets, 0, {"type": "ask", "to": 1, "card": "A5"}, 0)
    views = step["views"]
    assert views[1]["pending"] == {"decision": "give", "asker": 0, "to": 1, "card": "A5"}
    assert views[1]["may"] == ["give", "rabbit"] and views[0]["may"] == [] and views[1]["answering"] == 1
    # Ann cannot move meanwhile; the refusal says why.
    await ann.send_json_to(action("take", step["version"], card=views[0]["row"][0]))
    refused = await until(ann, lambda f: f["type"] == "error")
    # The engine says "seat 2" (Bob, counted from 1); the phone names him.
    assert refused["message"].startswith(f"Wait: \u2068{players[1].name}\u2069 must first answer whether to hand A5")
    assert refused["message"].endswith(" to you.")
    step = await move(sockets, 1, {"type": "rabbit"}, step["version"])
    views = step["views"]
    assert views[1]["turn"] == 1 and views[0]["played"] == ["WR"] and views[1]["counts"] == [7, 6, 7]
    assert [e["type"] for e in views[2]["log"][-3:]] == ["asked", "rabbit", "turn"]
    # Bob and Cy take a row card each; Ann asks for a card of a set she does not hold: refused.
    step = await move(sockets, 1, {"type": "take", "card": views[1]["row"][0]}, step["version"])
    step = await move(sockets, 2, {"type": "take", "card": step["views"][2]["row"][0]}, step["version"])
    await ann.send_json_to(action("ask", step["version"], to=2, card="B2"))
    refused = await until(ann, lambda f: f["type"] == "error")
    assert refused["message"] == "You may ask for a card of set B only while you hold a card of set B."
    # Ann asks Bob for C2, which he does not hold: she may play her Cheshire Cat and go on.
    step = await move(sockets, 0, {"type": "ask", "to": 1, "card": "C2"}, step["version"])
    views = step["views"]
    assert views[0]["pending"]["decision"] == "cat" and views[0]["may"] == ["cat", "pass"]
    step = await move(sockets, 0, {"type": "cat"}, step["version"])
    assert step["views"][0]["turn"] == 0 and "CC" not in step["views"][0]["hand"]
    # Bob may no longer refuse with his Rabbit (it is gone): A5 is handed over and set A is laid.
    step = await move(sockets, 0, {"type": "ask", "to": 1, "card": "A5"}, step["version"])
    assert step["views"][2]["laid"][0] == ["A"] and step["views"][2]["counts"][0] == 2
    for s in sockets:
        await s.disconnect()


async def test_the_organisers_view_of_an_alice_table_holds_no_hand(organiser):
    drive, table, players = await three_at_an_alice_table(organiser)
    watch = await organisers_watch(organiser, drive)
    frame = await watch.receive_json_from(timeout=30)
    view = frame["view"]
    assert frame["type"] == "state" and view["seat"] is None and "hand" not in view and "may" not in view
    assert view["counts"] == [7, 7, 7] and isinstance(view["stock"], int)
    await watch.send_json_to({"type": "take", "card": view["row"][0], "version": view["version"]})
    assert (await watch.receive_json_from(timeout=30))["type"] == "error"
    await watch.disconnect()
