"""The Game of Alice in Wonderland played on phones over Channels: each phone's own view, a whole
hand through the play sockets to a confirmed result, refusals in the rules' words, the organiser's
view without cards."""

from __future__ import annotations

import random
import re

import pytest
from channels.db import database_sync_to_async

from games import get_game
from scoring.models import Result, Score
from tables.models import TableHand
from tests.tables.conftest import digital_drive, seated_players, table_of
from tests.tables.phones import action, at_version, connected, until
from tests.tables.test_bots_bell_and_watch import organisers_watch
from tests.tables.wonderland_support import cards_in

pytestmark = pytest.mark.django_db(transaction=True)

GAME = get_game("wonderland")


@pytest.fixture
def wonderland_four(transactional_db, organiser):
    drive = digital_drive(organiser, 4, game="wonderland")
    table = table_of(drive)
    return drive, table, seated_players(table)


@database_sync_to_async
def stored(table_id: int) -> TableHand:
    return TableHand.objects.get(pk=table_id)


async def test_each_phone_gets_its_own_seven_cards_and_the_one_to_play_its_legal_cards(wonderland_four):
    drive, table, players = wonderland_four
    state = GAME.load_hand((await stored(table.pk)).state)
    for position, player in enumerate(players):
        socket, first = await connected(drive, player)
        view = first["view"]
        assert first["type"] == "state" and view["game"] == "wonderland" and view["seat"] == position
        assert sorted(view["hand"]) == sorted(state.hands[position]) and len(view["hand"]) == 7
        assert view["dealer"] == state.dealer and view["deal"] == 1 and view["deals"] == [7, 6]
        assert view["legal"] == (view["hand"] if position == state.turn else [])
        assert [s["name"] for s in first["seats"]] == [p.name for p in players]
        await socket.disconnect()


async def test_a_whole_hand_on_the_play_sockets_enters_the_drive_confirmed_with_its_facts(wonderland_four):
    drive, table, players = wonderland_four
    sockets = [(await connected(drive, p))[0] for p in players]
    rng, moves, seen_last_trick = random.Random(5), 0, False
    while True:
        row = await stored(table.pk)
        state = GAME.load_hand(row.state)
        if state.finished:
            break
        seat = state.turn
        move = GAME.bot_action(state, seat, rng)
        await sockets[seat].send_json_to(action("play", row.version, card=move["card"]))
        reply = await until(sockets[seat], lambda f: f["type"] in ("ok", "error"))
        assert reply["type"] == "ok", reply
        for s, socket in enumerate(sockets):
            frame = await until(socket, at_version(reply["version"]))
            view = frame["view"]
            assert view["seat"] == s and view["version"] == reply["version"]
            others = {c for o, h in enumerate(GAME.load_hand((await stored(table.pk)).state).hands) if o != s for c in h}
            assert not cards_in(frame) & others
            seen_last_trick |= view["last_trick"] is not None
        moves += 1
        assert moves <= 52
    assert moves == 52 and seen_last_trick  # four players: deals of 7 and 6, every card played
    done = await stored(table.pk)
    assert done.status == TableHand.Status.CONFIRMED
    outcome = GAME.load_hand(done.state).outcome()
    result = await database_sync_to_async(lambda: Result.objects.get(table=done))()
    assert result.status == Result.Status.CONFIRMED and result.source == Result.Source.DIGITAL
    scores = await database_sync_to_async(
        lambda: {s.player_id: (s.points, s.details) for s in Score.objects.filter(result=result)})()
    for seat, player in enumerate(players):
        assert scores[player.pk] == (outcome.points[seat], outcome.facts_of(seat))
    assert sum(outcome.details["cards"]) == 52
    for s in sockets:
        await s.disconnect()


async def test_a_card_the_rules_forbid_is_refused_in_their_words_and_changes_nothing(wonderland_four):
    drive, table, players = wonderland_four
    row = await stored(table.pk)
    state = GAME.load_hand(row.state)
    leader = state.turn
    follower = (leader + 1) % 4
    # The leader plays a card that forces the follower's hand: a picture whose mate it holds,
    # or a set it holds but not entirely.
    for card in state.legal(leader):
        trial = GAME.load_hand(row.state)
        trial.apply(leader, {"type": "play", "card": card})
        if len(trial.legal(follower)) < len(trial.hands[follower]):
            break
    else:  # the drive's seed fixes the deal: one that forces nothing would test nothing
        pytest.fail("the seeded deal gives the leader no card that forces the follower")
    sockets = {s: (await connected(drive, players[s]))[0] for s in (leader, follower)}
    await sockets[leader].send_json_to(action("play", row.version, card=card))
    assert (await until(sockets[leader], lambda f: f["type"] in ("ok", "error")))["type"] == "ok"
    frame = await until(sockets[follower], at_version(row.version + 1))
    view = frame["view"]
    assert view["must"] in ({"rule": "mate", "of": card}, {"rule": "follow", "led": card})
    forbidden = next(c for c in view["hand"] if c not in view["legal"])
    before = await stored(table.pk)
    await sockets[follower].send_json_to(action("play", view["version"], card=forbidden))
    reply = await until(sockets[follower], lambda f: f["type"] in ("ok", "error"))
    assert reply["type"] == "error"
    # In the phone's words, not the codes of the public API ("S3 was led").
    words = {"S": "star", "P": "plain", "N": "number"}
    named = f"{words[card[0]]} {card[1:]}"
    assert (f"You hold the mate of {named}: play " in reply["message"]) if view["must"]["rule"] == "mate" else (
        reply["message"].startswith(f"{named.capitalize()} was led"))
    assert not re.search(r"\b[SPN]\d", reply["message"]), reply["message"]
    # Out of turn: the phone names who plays next (a tester read "seat 3 plays next").
    await sockets[leader].send_json_to(action("play", view["version"], card=state.hands[leader][0]
                                              if state.hands[leader][0] != card else state.hands[leader][1]))
    reply = await until(sockets[leader], lambda f: f["type"] in ("ok", "error"))
    assert reply == {**reply, "type": "error",
                     "message": f"It is not your turn: \u2068{players[follower].name}\u2069 plays next."}
    after = await stored(table.pk)
    assert (after.state, after.version) == (before.state, before.version)
    for s in sockets.values():
        await s.disconnect()


async def test_the_organisers_view_of_a_wonderland_table_has_no_cards_in_hands(organiser):
    drive = await database_sync_to_async(digital_drive)(organiser, 4, game="wonderland")
    watch = await organisers_watch(organiser, drive)
    frame = await watch.receive_json_from(timeout=30)
    view = frame["view"]
    assert frame["type"] == "state" and view["seat"] is None and "hand" not in view and "legal" not in view
    assert cards_in(frame) == set()  # nothing played yet: no card at all
    await watch.send_json_to({"type": "play", "card": "N1", "version": 0})
    assert (await watch.receive_json_from(timeout=30))["type"] == "error"
    await watch.disconnect()
