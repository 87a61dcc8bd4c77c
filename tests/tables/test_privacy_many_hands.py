"""Hundreds of hands over real websocket connections: no frame sent to a seat ever holds a card
of another seat's hand.

Two-player tables use one pack (four sets removed), so every card code is unique and any code of
another seat's hand in a frame is a leak. The greedy bot plays every seat from the test side,
through that seat's own socket; the hand's true state is read from the database after every
action and every frame is checked against it. ``dealer_draw`` is exempt: the dealer draw is dealt
face up from a separate shuffle before the deal, so its cards are public and say nothing about
anyone's hand. Wonderland's two-player tables deal the whole pack in four deals: every card is
unique, and the deals still to come are checked never to reach a phone.

Alice plays 200 hands at two-player tables too (its hands are longer: a few minutes), checked
otherwise: its public log names the cards that moved in the open (taken from the row, asked for,
handed over), so a code of another seat's hand in a frame is a leak only when that card was never
shown to the table. Every view a
phone receives is the spectator's view of the same version plus only its own hand (exactly the
cards it holds) and what it may do; the stock is a count.
"""

from __future__ import annotations

import random
import re
import time

import pytest
from channels.db import database_sync_to_async

from drive import services
from games import get_game
from tables.models import TableHand
from tests.tables.conftest import digital_drive, seated_players, table_of
from tests.tables import wonderland_support
from tests.tables.phones import action, codes_in, connected, until

# Once, on the embedded defaults: the frames are built from the engine's views whatever the
# database (PostgreSQL's own move paths have their tests), and 200 hands there take 80 s.
pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.sqlite]

HANDS = 200


def card_check(codes, undealt):
    """Film Fantasy, Wonderland: no frame received by seat s names a card held now by another
    seat, or one not dealt yet (``undealt(state)``); ``codes(frame)``: the card codes in it."""
    def check(frames_by_seat, states, names) -> int:
        state = states[max(states)]
        return _check_cards(frames_by_seat, state.hands, names, codes, undealt(state))
    return check


def _check_cards(frames_by_seat, hands, names, codes, undealt) -> int:
    checked = 0
    for seat, frames in enumerate(frames_by_seat):
        others = {c for s, h in enumerate(hands) if s != seat for c in h} | set(undealt)
        for frame in frames:
            leaked = codes(frame) & others
            assert not leaked, f"{names[seat]} was sent {sorted(leaked)} of another seat: {frame}"
            checked += 1
        frames.clear()
    return checked


ALICE_CODE = re.compile(r"(?<![\w-])([A-H][1-5])(?![\w-])")
SEAT_ONLY = {"hand", "may", "seat", "basis"}  # what a seat's view holds beyond the spectator's


def shown_to_the_table(state) -> set[str]:
    """The Alice set cards the table has seen: the row, every card named by the public log
    (taken, turned up, asked for, handed over, refused), every card of a laid set."""
    from games.alice.cards import SET_CARDS

    seen = set(state.row)
    for entry in state.log:
        seen.update(entry[k] for k in ("card", "filled") if entry.get(k))
        if entry["type"] == "laid":
            seen.update(SET_CARDS[entry["set"]])
    return seen


def check_alice(frames_by_seat, states, names) -> int:
    """Alice: a seat's view is the spectator's of the same version plus its own hand and options;
    no frame names a card of another seat's hand or of the stock that the table has not seen."""
    latest = states[max(states)]
    checked = 0
    for seat, frames in enumerate(frames_by_seat):
        for frame in frames:
            state = latest
            if frame.get("type") == "state":
                view = frame["view"]
                state = states[view["version"]]
                assert view["seat"] == seat and view["hand"] == sorted(state.hands[seat]), (names[seat], frame)
                assert view["stock"] == len(state.stock) and type(view["stock"]) is int
                public = {k: v for k, v in view.items() if k not in SEAT_ONLY}
                spectator = {k: v for k, v in state.view(None).items() if k != "seat"}
                assert public == spectator, f"{names[seat]}'s view holds more than the table's: {frame}"
            leaked = set(ALICE_CODE.findall(repr(frame))) - set(state.hands[seat]) - shown_to_the_table(state)
            assert not leaked, f"{names[seat]} was sent {sorted(leaked)}, never shown to the table: {frame}"
            checked += 1
        frames.clear()
    return checked


# game: (players at the table, the frames' check). Every registered game needs one: a game
# registered without it fails here, not left out unchecked.
GAMES = {
    "film-fantasy": (2, card_check(codes_in, lambda state: set())),
    "wonderland": (2, card_check(wonderland_support.cards_in, lambda state: set(state.stock))),
    "alice": (2, check_alice),
}


def test_every_registered_game_has_its_privacy_check():
    from games import all_games

    assert sorted(g.slug for g in all_games()) == sorted(GAMES)


# A Wonderland or Alice hand is played out move by move (about 50 moves): 200 of them take one to
# two minutes on a quiet machine; the timeouts are backstops for a busy one.
@pytest.mark.timeout(900)
@pytest.mark.parametrize("slug", sorted(GAMES))
async def test_two_hundred_hands_never_show_a_seat_anothers_cards(slug, organiser, settings, monkeypatch):
    from tables import consumers

    GAME = get_game(slug)
    seats, check_frames = GAMES[slug]

    # A hand here takes milliseconds, and each starts with every phone's sync: far more syncs a
    # second than a phone at a table sends (``PlayConsumer.may_sync``), which this test is not about.
    monkeypatch.setattr(consumers, "SYNC_RATE", 1000.0)
    # Each phone here finds its seat at the new table by its own sync, and every frame it gets is
    # checked against the state of that moment. A hand's start also has each game screen look
    # again by itself (``live.hand_started``; its views are built as a sync's): a second view of
    # the same version, arriving after the next move, would be checked against a later state.
    from drive import broadcast

    monkeypatch.setattr(broadcast, "send_game_screens", lambda drive_id, message: None)
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
        states = {}  # this hand's state at each version: every frame is checked against its own
        while True:
            stored = await database_sync_to_async(lambda: TableHand.objects.get(pk=table.pk))()
            state = states[stored.version] = GAME.load_hand(stored.state)
            frames_checked += check_frames([frames[i] for i in by_seat], states, [names[i] for i in by_seat])
            if state.finished:
                break
            move = next(((s, m) for s in range(state.players) if (m := GAME.bot_action(state, s, rng))), None)
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
