"""Hundreds of hands over real websocket connections, for each game: no frame sent to a seat ever
holds a card of another seat's hand, nor one not dealt yet.

Two-player tables use one pack (four sets removed), so every card code is unique and any code of
another seat's hand in a frame is a leak. The greedy bot plays every seat from the test side,
through that seat's own socket; the hand's true state is read from the database after every
action and every frame is checked against it. ``dealer_draw`` is exempt: the dealer draw is dealt
face up from a separate shuffle before the deal, so its cards are public and say nothing about
anyone's hand. Wonderland's two-player tables deal the
whole pack in four deals: every card is unique, and the deals still to come are checked never to
reach a phone.
"""

from __future__ import annotations

import random
import time

import pytest
from channels.db import database_sync_to_async

from drive import services
from games import get_game
from tables.models import TableHand
from tests.tables.conftest import digital_drive, seated_players, table_of
from tests.tables.phones import action, codes_in, connected, until
from tests.tables import wonderland_support

# Once, on the embedded defaults: the frames are built from the engine's views whatever the
# database (PostgreSQL's own move paths have their tests), and 200 hands there take 80 s.
pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.sqlite]

HANDS = 200
# Per game: the players at the table, the card codes in a frame, the cards no phone may see yet.
GAMES = {
    "film-fantasy": (2, codes_in, lambda state: set()),
    "wonderland": (2, wonderland_support.cards_in, lambda state: set(state.stock)),
}


def check(frames_by_seat, hands, names, codes=codes_in, undealt=frozenset()) -> int:
    """No frame received by seat s names a card held now by another seat, or one not dealt."""
    checked = 0
    for seat, frames in enumerate(frames_by_seat):
        others = {c for s, h in enumerate(hands) if s != seat for c in h} | set(undealt)
        for frame in frames:
            leaked = codes(frame) & others
            assert not leaked, f"{names[seat]} was sent {sorted(leaked)} of another seat: {frame}"
            checked += 1
        frames.clear()
    return checked


# Wonderland's hands are played out card by card (52 moves a hand at two players): 200 of them
# take about 90 s on a quiet machine; the timeouts are backstops for a busy one.
@pytest.mark.parametrize("slug", [pytest.param("film-fantasy", marks=pytest.mark.timeout(600)),
                                  pytest.param("wonderland", marks=pytest.mark.timeout(900))])
async def test_two_hundred_hands_never_show_a_seat_anothers_cards(organiser, settings, monkeypatch, slug):
    from tables import consumers

    # A hand here takes milliseconds, and each starts with every phone's sync: far more syncs a
    # second than a phone at a table sends (``PlayConsumer.may_sync``), which this test is not about.
    monkeypatch.setattr(consumers, "SYNC_RATE", 1000.0)
    # Each phone here finds its seat at the new table by its own sync, and every frame it gets is
    # checked against the state of that moment. A hand's start also has each game screen look
    # again by itself (``live.hand_started``; its views are built as a sync's): a second view of
    # the same version, arriving after the next move, would be checked against a later state.
    from drive import broadcast

    monkeypatch.setattr(broadcast, "send_hand_started", lambda drive_id, message: None)
    game, (seats, codes, undealt) = get_game(slug), GAMES[slug]
    drive = await database_sync_to_async(digital_drive)(organiser, seats, game=slug, target="hands",
                                                        target_hands=HANDS + 5)
    players = await database_sync_to_async(lambda: seated_players(table_of(drive)))()
    names = [p.name for p in players]
    sockets = []
    for p in players:
        socket, _ = await connected(drive, p)
        sockets.append(socket)
    rng = random.Random(2026)
    frames = [[] for _ in sockets]
    hands_played = frames_checked = actions = 0
    started = time.monotonic()
    while hands_played < HANDS:
        table = await database_sync_to_async(table_of)(drive)
        seat_of = {p.pk: s.position for s in await database_sync_to_async(lambda: list(table.seats.all()))() for p in players if p.pk == s.player_id}
        by_seat = [None] * len(players)
        for i, p in enumerate(players):
            by_seat[seat_of[p.pk]] = i
        for i in by_seat:  # each phone finds its seat at the new table
            await sockets[i].send_json_to({"type": "sync"})
            frames[i].append(await until(sockets[i], lambda f: f["type"] == "state"))
        while True:
            stored = await database_sync_to_async(lambda: TableHand.objects.get(pk=table.pk))()
            state = game.load_hand(stored.state)
            frames_checked += check([frames[i] for i in by_seat], state.hands, [names[i] for i in by_seat], codes,
                                    undealt(state))
            if state.finished:
                break
            move = next(((s, m) for s in range(state.players) if (m := game.bot_action(state, s, rng))), None)
            assert move is not None
            seat, act = move
            phone = sockets[by_seat[seat]]
            await phone.send_json_to(action(act["type"], stored.version, **{k: v for k, v in act.items() if k != "type"}))
            reply = await until(phone, lambda f: f["type"] in ("ok", "error"), seen=frames[by_seat[seat]])
            assert reply["type"] == "ok", reply
            for i in by_seat:
                await until(sockets[i], lambda f: f.get("type") == "state" and f["view"]["version"] >= reply["version"], seen=frames[i])
            actions += 1
        hands_played += 1
        await database_sync_to_async(services.close_hand)(drive)
        await database_sync_to_async(services.start_hand)(drive)
    for s in sockets:
        await s.disconnect()
    elapsed = time.monotonic() - started
    print(f"{slug}: {hands_played} hands, {actions} actions, {frames_checked} frames checked in {elapsed:.1f}s")
    assert frames_checked > HANDS * 10
