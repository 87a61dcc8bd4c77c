"""Hundreds of hands over real websocket connections, for every registered game: no frame sent to
a seat ever names a card of another seat's hand.

Each game is played at its smallest table (two players: Film Fantasy's one pack with four sets
removed, Wonderland's whole pack in four deals, Alice's whole pack), where every card code is
unique. The game's bot plays every seat from the test side, through that seat's own socket. The
hand's true state: the dealt hand read from the database, each move applied to it as the server
applies it (the engine's ``apply``); a state the server timed (``Game.awaited``: its deadline is
the server's clock) is read back instead, and agrees with the engine's on everything else, as
the hand's end read back agrees whole. Every frame is checked against the state of its own
version (a state frame; any other frame against the newest):

- a state frame's view is the engine's view for that seat at that version (the socket adds only
  its ``basis``), and on every key the spectator's view has, it is the spectator's;
- no frame names, anywhere (in a message too), a card of ``Game.hidden_cards(state, seat)``: by
  default every other seat's cards; Wonderland adds the deals to come; Alice's are every set card
  the seat does not hold and the table has not seen (its public log names the cards that moved
  in the open: taken from the row, asked for, handed over). The game's ``public_card_keys`` are
  not looked in: Film Fantasy's dealer draw, dealt face up from a separate shuffle before the
  deal, and Wonderland's Pool of Tears card, a house rule's.

All of it comes from the contract (``games/base.py``); ``SEAT_ONLY`` adds, for the games it
names, the keys a seat's view may hold beyond the spectator's.
"""

from __future__ import annotations

import random
import re
import time

import orjson
import pytest
from channels.db import database_sync_to_async

from drive import services
from games import all_games, get_game
from tables.models import TableHand
from tests.tables.conftest import digital_drive, seated_players, table_of
from tests.tables.phones import action, connected, until

# Once, on the embedded defaults: the frames are built from the engine's views whatever the
# database (PostgreSQL's own move paths have their tests), and 200 hands there take 80 s.
pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.sqlite]

HANDS = 200
TRANSPORT = {"basis"}  # what the socket adds to a seat's view (tables.digital.view_with_basis)
# What a seat's view of these games holds beyond the spectator's (a game left out: not checked so).
SEAT_ONLY = {
    "film-fantasy": {"dealer_draw", "hand", "my_pass", "received", "offers_left", "offers", "declaration"},
    "alice": {"hand", "may"},
    "wonderland": {"hand", "legal", "must"},
}
WORD = re.compile(r"[\w-]+")  # a card code is a whole word: "12-3", "A1", "S16"


def words_in(frame, skip: tuple[str, ...], found: set[str] | None = None) -> set[str]:
    """Every word of every key and string anywhere in a frame, except under the keys ``skip``."""
    found = set() if found is None else found
    if isinstance(frame, dict):
        for k, v in frame.items():
            if k not in skip:
                found.update(WORD.findall(str(k)))
                words_in(v, skip, found)
    elif isinstance(frame, list):
        for v in frame:
            words_in(v, skip, found)
    elif isinstance(frame, str):
        found.update(WORD.findall(frame))
    return found


_ESCAPE = re.compile(r"\\(u[0-9a-fA-F]{4}|.)")


def cards_leaked(frame, skip: tuple[str, ...], hidden: set[str]) -> set[str]:
    """The cards of ``hidden`` that ``frame`` names outside the keys ``skip`` (``words_in``).
    Most frames name none anywhere: their JSON text, its escapes made spaces, holds every word of
    their keys and strings (and their numbers', which no card code is), so none of its words
    hidden means none leaked; only a frame that holds one is walked key by key."""
    text = _ESCAPE.sub(" ", orjson.dumps(frame).decode())
    if not set(WORD.findall(text)) & hidden:
        return set()
    return words_in(frame, skip) & hidden


def as_sent(view: dict) -> dict:
    return orjson.loads(orjson.dumps(view))


def check_frames(game, frames_by_seat, states, names) -> int:
    """Every frame each seat received, checked against the state of its version (see above);
    the number of frames checked. ``states``: this hand's state at each version."""
    latest = states[max(states)]
    seat_only = SEAT_ONLY.get(game.slug)
    checked = 0
    for seat, frames in enumerate(frames_by_seat):
        for frame in frames:
            state = latest
            if frame.get("type") == "state":
                view = frame["view"]
                state = states[view["version"]]
                engine = as_sent(state.view(seat))
                assert {k: v for k, v in view.items() if k not in TRANSPORT} == engine, (
                    f"{names[seat]} was sent another view than its own: {frame}")
                spectator = as_sent(state.view(None))
                public = {k: v for k, v in view.items() if k in spectator and k != "seat"}
                assert public == {k: v for k, v in spectator.items() if k != "seat"}, (
                    f"{names[seat]}'s view differs from the table's on what the table sees: {frame}")
                if seat_only is not None:
                    assert set(view) - set(spectator) - TRANSPORT <= seat_only, (
                        f"{names[seat]}'s view holds more than the table's: {frame}")
            leaked = cards_leaked(frame, game.public_card_keys, game.hidden_cards(state, seat))
            assert not leaked, f"{names[seat]} was sent {sorted(leaked)} of another seat or nobody's yet: {frame}"
            checked += 1
        frames.clear()
    return checked


async def stored_state(game, table_id: int):
    """The table's hand as the database holds it now."""
    stored = await database_sync_to_async(lambda: TableHand.objects.get(pk=table_id))()
    return game.load_hand(stored.state)


def moved(game, state, seat: int, act: dict):
    """A copy of ``state`` with ``seat``'s ``act`` applied, as the server applies it."""
    copy = game.load_hand(as_sent(state.to_json()))
    copy.apply(seat, act)
    return copy


def without_deadline(state) -> dict:
    return {k: v for k, v in as_sent(state.to_json()).items() if k != "deadline"}


# A Wonderland or Alice hand is played out move by move (about 50 moves): 200 of them take one to
# two minutes on a quiet machine; the timeouts are backstops for a busy one.
@pytest.mark.timeout(900)
@pytest.mark.parametrize("slug", [g.slug for g in all_games()])
async def test_two_hundred_hands_never_show_a_seat_anothers_cards(slug, organiser, settings, monkeypatch):
    from tables import consumers

    GAME = get_game(slug)
    seats = GAME.min_players

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
        state = await stored_state(GAME, table.pk)
        states = {state.version: state}  # this hand's state at each version: every frame is checked against its own
        while True:
            frames_checked += check_frames(GAME, [frames[i] for i in by_seat], states, [names[i] for i in by_seat])
            if state.finished:
                break
            move = next(((s, m) for s in range(state.players) if (m := GAME.bot_action(state, s, rng))), None)
            assert move is not None
            seat, act = move
            phone = sockets[by_seat[seat]]
            await phone.send_json_to(action(act["type"], state.version, **{k: v for k, v in act.items() if k != "type"}))
            reply = await until(phone, lambda f: f["type"] in ("ok", "error"), seen=frames[by_seat[seat]])
            assert reply["type"] == "ok", reply
            for i in by_seat:
                await until(sockets[i], lambda f: f.get("type") == "state" and f["view"]["version"] >= reply["version"], seen=frames[i])
            actions += 1
            state = moved(GAME, state, seat, act)
            if GAME.awaited(state) is not None:  # timed by the server: its deadline is read back
                stored = await stored_state(GAME, table.pk)
                assert without_deadline(stored) == without_deadline(state), "the server's hand is not the engine's"
                state = stored
            assert state.version == reply["version"]
            states[state.version] = state
        stored = await stored_state(GAME, table.pk)
        assert as_sent(stored.to_json()) == as_sent(state.to_json()), "the server's hand at its end is not the engine's"
        hands_played += 1
        await database_sync_to_async(services.close_hand)(drive)
        await database_sync_to_async(services.start_hand)(drive)
    for s in sockets:
        await s.disconnect()
    elapsed = time.monotonic() - started
    print(f"{slug}: {hands_played} hands, {actions} actions, {frames_checked} frames checked in {elapsed:.1f}s")
    # At least each phone's state at each hand's start, and for each move the mover's answer and
    # every phone's new state (from what was played: a game of few moves a hand sends few frames).
    assert frames_checked >= HANDS * seats + actions * (seats + 1)


def played(game, moves: int, seed: int = 5) -> dict:
    """A hand of ``game`` at its smallest table, by version, after ``moves`` of its bot's moves."""
    rng = random.Random(seed)
    state = game.new_hand(game.min_players, rng)
    states = {state.version: game.load_hand(as_sent(state.to_json()))}
    for _ in range(moves):
        move = next(((s, m) for s in range(state.players) if (m := game.bot_action(state, s, rng))), None)
        if move is None:
            break
        state.apply(*move)
        states[state.version] = game.load_hand(as_sent(state.to_json()))
    return states


def frame(state, seat) -> dict:
    return {"type": "state", "status": "playing", "seats": [], "view": {**as_sent(state.view(seat)), "basis": "b"}}


@pytest.mark.parametrize("game", all_games(), ids=lambda g: g.slug)
def test_the_check_passes_the_views_as_sent_and_catches_each_kind_of_leak(game):
    """The check itself, on any registered game from its contract: every seat's own views pass;
    another seat's view, a hidden card in a message and a view the socket changed do not."""
    states = played(game, 12)
    # The latest state with a card hidden from seat 0 (the deal hides the other seats' hands; a
    # game whose hand is over within 12 moves may show every card at its end).
    state = next(s for s in reversed(states.values()) if game.hidden_cards(s, 0))
    seats = range(state.players)
    names = [f"P{s}" for s in seats]
    assert check_frames(game, [[frame(v, s) for v in states.values()] for s in seats], states, names) > 0
    hidden = sorted(game.hidden_cards(state, 0))
    assert hidden, "nothing is hidden from seat 0: the check would catch nothing"
    for leak in (frame(state, 1),
                 {"type": "error", "message": f"You cannot play {hidden[0]} now."},
                 {"type": "error", "message": f"You hold:\n{hidden[0]}\t\"{hidden[-1]}\""},  # (escaped in JSON)
                 {"type": "state", "view": {**frame(state, 0)["view"], "extra": [hidden[-1]]}}):
        with pytest.raises(AssertionError):
            check_frames(game, [[leak], *([] for _ in seats[1:])], states, names)
    for key in game.public_card_keys:  # what a public key names says nothing of any hand
        assert check_frames(game, [[{"type": "note", key: hidden}], *([] for _ in seats[1:])], states, names) == 1
