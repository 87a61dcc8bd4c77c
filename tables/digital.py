"""Digital play: every write of a hand played on the phones.

The server is the only authority. A table's hand lives in ``TableHand.state`` (the engine's
JSON) with ``TableHand.version``. There is one path for a move, ``apply_action``, on every
database: read the table's row under ``select_for_update`` (SQLite's IMMEDIATE transactions
serialise writers), check the move (``_accept``: every refusal is written there once), apply
the engine's action, save, and, when the move ends the hand, record its result as every result
is recorded (``scoring.services.record_result``); then commit. Refusals raise ``DigitalError``
with a message for the phone; nothing is changed then.

After the commit the table's group gets one message (``state_message``) holding each seat's
view and the spectator's; each socket sends only its own seat's part (``tables.consumers``), so
a phone never receives another seat's cards. The message crosses the channel layer (Redis is
the server's own, trusted as the database is) and no socket reads the database for a move.

Entry points:
- ``deal_hand(drive, hand)``: from ``drive.services.start_hand``; deals every digital table.
- ``apply_action(table_id, seat, message, player_id=…)``: a phone's (or a bot's) action.
- ``stop_playing_tables(drive, hand)``: from the hand cycle's close (the organiser's bell).
- ``set_stand_in(drive, table_id, seat, playing)``: a bot plays a seat for its player, or no longer.
"""

from __future__ import annotations

import hashlib
import json
import logging
import random
import re
import time
from dataclasses import dataclass
from typing import Any, Callable

import orjson
from django.db import transaction
from django.utils import timezone

from common import layer
from common.bidi import isolate
from common.consumers import dumps
from games import GameError, get_game
from scoring import services as scoring
from scoring.models import Result
from tables.frames import (
    KEEP_CLIENT_KEYS, KEY_REUSED, SERVER_KEY, SERVER_KEYS, DigitalError, action_digest, seen_key, split_message,
)
from tables.dealer import home_dealer
from tables.models import BotPlayer, Hand, Seat, TableHand

log = logging.getLogger(__name__)


# Listeners registered at start-up (``drive.apps``, ``tables.apps``), so that this module needs
# neither the drive's services nor the bots (which call it):
# - with the drive's id, inside the transaction, when something digital changes what the drive's screens show;
drive_listeners: list[Callable[[int], None]] = []
# - with the table, inside the transaction, when the engine records a table's result;
table_listeners: list[Callable[[TableHand], None]] = []
# - with the table's id, the seats bots play and the hand's answer deadline (``Game.awaited``; None: none
#   timed), after the commit of a move, a deal or a stand-in: the bots look, the clock is set (``tables.bots``).
moved_listeners: list[Callable[[int, list[int], float | None], None]] = []


def _drive_changed(drive_id: int) -> None:
    for listener in drive_listeners:
        listener(drive_id)


@dataclass(frozen=True)
class Applied:
    """What became of an action: ``duplicate`` when its client key had already been applied (to the
    same action: with another it is refused, ``KEY_REUSED``); ``state``, the hand after it, and
    ``message``, the table's message of it (``state_message``: the sender's socket sends its own
    part of it); both None for a duplicate."""

    table_id: int
    version: int
    duplicate: bool = False
    finished: bool = False
    state: Any = None
    message: dict[str, Any] | None = None


# --- the table's group, and what goes through it ---------------------------------------------


def table_group(table_id: int) -> str:
    """The one place a table's group is named."""
    return f"table-{table_id}"


def seats_message(table_id: int) -> dict[str, Any]:
    """Who sits where, which seats the bots play, or whose phone is away, changed at the table."""
    return {"type": "table.seats", "table": table_id}


def tell_seats(table_id: int) -> None:
    """Once the transaction commits, every socket of the table reads its seats again and sends
    its view (``seats_message``)."""
    message = seats_message(table_id)
    transaction.on_commit(lambda: layer.send(table_group(table_id), message), robust=True)


def state_message(table_id: int, state: Any) -> dict[str, Any]:
    """The table at its new version: every seat's view (with its basis) and the spectator's, each
    as JSON text, made once for every socket of every process: the layer copies (in memory) or
    encodes (Redis) a few strings rather than nested views, and a socket sends its own seat's
    part as it is (``tables.consumers``)."""
    return {"type": "table.state", "table": table_id, "version": state.version, "finished": state.finished,
            "views": {str(seat): dumps(view_with_basis(state, seat)) for seat in range(seat_count(state))},
            "spectator": dumps(state.view(None))}


def seat_count(state: Any) -> int:
    return state.players


def tell_table(table_id: int, state: Any, bot_seats: list[int]) -> dict[str, Any]:
    """Once the transaction commits: the table's sockets get its new state, its bots look at it.
    Returns the table's message (``state_message``), built now, once."""
    seats = list(bot_seats or [])
    deadline = getattr(state, "deadline", None)
    message = state_message(table_id, state)

    def send() -> None:
        layer.send(table_group(table_id), message)
        for listener in moved_listeners:
            listener(table_id, seats, deadline)

    transaction.on_commit(send, robust=True)
    return message


# --- reading ----------------------------------------------------------------------------------


def load_state(table: TableHand):
    if table.state is None:
        raise DigitalError("This table's hand has not been dealt yet.")
    try:
        return get_game(table.state["game"]).load_hand(table.state)
    except (GameError, KeyError, TypeError) as exc:
        raise DigitalError(f"This table's stored hand cannot be read: {exc}") from None


def seat_basis(view: dict[str, Any]) -> str:
    """A fingerprint of what a seat's choices rest on: its view less the game's public chatter.

    Passes are simultaneous: while Ann chooses, Bob's pass bumps the table's version, although
    nothing Ann sees of her own situation has changed. An action sent with a stale version is
    still accepted when the sender's basis is unchanged (its cards, the phase, the round, the
    offers it is part of); otherwise it is refused as stale. Which view keys are chatter is the
    game's knowledge (``chatter_keys``)."""
    game = get_game(view["game"])
    chatter = set(game.chatter_keys)
    material = {k: v for k, v in view.items() if k not in chatter and k != "basis"}
    try:
        text = orjson.dumps(material, option=orjson.OPT_SORT_KEYS)  # a view is built for every seat of every action
    except TypeError:  # what orjson does not take (an integer dict key): the standard library
        text = json.dumps(material, sort_keys=True, default=str).encode()
    return hashlib.sha256(text).hexdigest()[:16]


def view_with_basis(state: Any, seat: int | None) -> dict[str, Any]:
    view = state.view(seat)
    if seat is not None:
        view["basis"] = seat_basis(view)
    return view


# --- the deal ---------------------------------------------------------------------------------


def _bot_positions(table: TableHand) -> list[int]:
    return list(
        table.seats.filter(player__bot__isnull=False).order_by("position").values_list("position", flat=True)
    )


def deal_rng(drive, hand: Hand, table: TableHand) -> random.Random:
    """Seeded from the drive, the hand and the table: a deal can be replayed for a dispute."""
    return random.Random(f"{drive.seed}-{hand.number}-{table.number}")


@transaction.atomic
def deal_hand(drive, hand: Hand) -> list[TableHand]:
    """Deal every digital table of ``hand`` that has no state yet; its bots start on commit.

    Called by ``drive.services.start_hand`` inside its transaction (the drive's row is locked).
    """
    game = drive.game_rules
    dealt = []
    tables = hand.tables.select_for_update().filter(play_mode=TableHand.PlayMode.DIGITAL, state__isnull=True)
    for table in tables.order_by("number"):
        players = table.seats.count()
        try:
            state = game.new_hand(players, deal_rng(drive, hand, table), home_dealer(hand, table))
        except GameError as exc:  # a table of one (late withdrawals): the organiser closes it
            log.warning("table %s of hand %s not dealt: %s", table.number, hand.number, exc)
            continue
        set_deadline(game, state)
        table.state = state.to_json()
        table.version = state.version
        table.bots = _bot_positions(table)
        table.client_keys = []
        table.save(update_fields=["state", "version", "bots", "client_keys", "updated_at"])
        tell_table(table.pk, state, table.bots)
        dealt.append(table)
    return dealt


# --- a move ---------------------------------------------------------------------------------


def _accept(table: TableHand, sender_sits: bool, seat: Any, message: dict[str, Any], *, bot: bool,
            clock: bool, token: str | None) -> Applied | tuple[Any, list[str]]:
    """Everything an action is checked for, on its locked row, and the engine's move: a
    duplicate's ``Applied``, or the moved state with the fields of ``table`` it changed (set on
    ``table``); refused with ``DigitalError``. No database work: both paths share it."""
    action, version, key, claimed = split_message(message)
    if key is not None and not (bot or clock) and key.startswith(SERVER_KEYS):
        raise DigitalError(SERVER_KEY)
    if key is not None:
        digest = action_digest(action)
        seen = seen_key(table.client_keys, key, seat)
        if seen is not None:
            if len(seen) > 3 and seen[3] != digest:  # the key, with another move: nothing was applied for it
                raise DigitalError(KEY_REUSED)
            return Applied(table.pk, table.version, duplicate=True, finished=table.status != TableHand.Status.PLAYING)
    if claimed is not None and claimed != seat:
        raise DigitalError(f"You play seat {seat + 1}: you can act only for your own seat.")
    if bot:
        if seat not in (table.bots or []):
            raise DigitalError(f"Seat {seat + 1} is not played by a bot.")
    elif clock:
        pass  # the server's answer clock: checked against the state below
    elif not sender_sits:
        if token is not None:  # a phone: not seated there, or signed out since it connected
            raise DigitalError("This phone does not hold that seat (any more): join the drive again.")
        raise DigitalError("You do not sit at that seat of this table.")
    elif seat in (table.bots or []):  # the organiser has a bot stand in (``set_stand_in``)
        # (Also a player the organiser has taken out since this phone connected: its next
        # connection says so; this row does not know.)
        raise DigitalError("A bot is playing your seat for now: the organiser set it there (or took you out "
                           "of the drive). Ask them to give it back to you.")
    if table.play_mode != TableHand.PlayMode.DIGITAL or table.state is None:
        raise DigitalError("This table is not playing on the phones.")
    if table.status != TableHand.Status.PLAYING or table.hand.status != Hand.Status.PLAYING:
        raise DigitalError("This hand is over.")
    if version is None:
        raise DigitalError("Send the version your phone last saw with every action.")
    state = load_state(table)
    if version > table.version:  # a hand-made frame: no phone was ever shown this version
        raise DigitalError(f"The table is at version {table.version}, not {version}: look again and choose.")
    if version != table.version and not _same_basis(state, seat, message.get("basis")):
        # Said in players' words: what this seat may do changed (an offer to it, a turn that
        # passed) between what its phone showed and its move's arrival (another seat's move, or one
        # sent by the same player's other phone).
        raise DigitalError("Your hand changed before your move arrived (another move came first): "
                           "look at it again and choose.")
    game = get_game(table.state["game"])
    awaited = game.awaited(state)
    if clock:
        deadline = getattr(state, "deadline", None)
        if awaited is None or awaited.seat != seat or deadline is None or time.time() < deadline:
            raise DigitalError("No answer's time has run out at this table.")
    elif awaited is not None and action.get("type") == awaited.action.get("type"):
        raise DigitalError("Only the server's clock can run out a player's time: choose your answer.")
    try:
        state.apply(seat, action)
    except GameError as exc:
        raise DigitalError(_named(table, game.refusal_words(str(exc)))) from None
    set_deadline(game, state)
    table.state = state.to_json()
    table.version = state.version
    fields = ["state", "version", "updated_at"]
    if key is not None:
        table.client_keys = [*(table.client_keys or []), [key, table.version, seat, digest]][-KEEP_CLIENT_KEYS:]
        fields.append("client_keys")
    table.updated_at = timezone.now()
    return state, fields


# A game's refusal names a seat as players count them, from 1 ("seat 4 plays next"): the engine
# knows no names. The phone is told the player's name instead, as everywhere else.
_SEAT_WORDS = re.compile(r"\bseat (\d+)\b")


def _named(table: TableHand, message: str) -> str:
    if not _SEAT_WORDS.search(message):
        return message
    names = list(table.seats.order_by("position").values_list("player__name", flat=True))
    return _SEAT_WORDS.sub(lambda m: isolate(names[int(m[1]) - 1]) if 1 <= int(m[1]) <= len(names) else m[0], message)


def set_deadline(game: Any, state: Any) -> None:
    """A decision the game times (``Game.awaited``) and not yet timed gets its deadline, a Unix
    time in the state: stored with the move, so a restarted server keeps it."""
    awaited = game.awaited(state)
    if awaited is not None and getattr(state, "deadline", None) is None:
        state.deadline = time.time() + awaited.seconds


@transaction.atomic
def apply_action(
    table_id: int,
    seat: int,
    message: dict[str, Any],
    *,
    player_id: int | None = None,
    token: str | None = None,
    bot: bool = False,
    clock: bool = False,
) -> Applied:
    """Apply one seat's action under the table's row lock: the one path of every move.

    ``message`` is the engine action plus ``version`` (the version the sender saw; required),
    ``key`` (a client key; optional) and ``seat`` (optional; must be the sender's own). The
    sender is ``player_id`` (a phone: must sit at ``seat``; with ``token``, the one its socket
    joined with, which must still be the player's), ``bot`` (``seat`` must be a bot seat) or the
    server's answer ``clock`` (the game's ``awaited`` action, once the state's deadline has passed;
    from anyone else that action is refused).
    Returns ``Applied``; a key seen before (with the same action) returns ``duplicate=True``
    without applying; with another action it is refused (``KEY_REUSED``), nothing applied.
    Refused (``DigitalError``, state unchanged): a foreign seat, a stale version, a hand that is
    over or not dealt, and anything the engine refuses. After the commit the table's sockets
    and bots are told (``tell_table``).
    """
    split_message(message)  # a malformed frame is refused before any database work
    table, sits = _locked_table(table_id, seat, player_id, token)
    accepted = _accept(table, sits, seat, message, bot=bot, clock=clock, token=token)
    if isinstance(accepted, Applied):
        return accepted
    state, fields = accepted
    # Told first: at the commit the table's sockets get the move before the result's messages
    # (a ranking of the drive, in another thread) are read.
    message = tell_table(table.pk, state, table.bots)
    if state.finished:
        _record(table, state)
        fields.append("status")
    table.save(update_fields=fields)
    return Applied(table.pk, table.version, finished=state.finished, state=state, message=message)


def _locked_table(table_id: int, seat: Any, player_id: int | None, token: str | None) -> tuple[TableHand, bool]:
    """The table's row, locked, with its hand; and whether the sender (``player_id``, with
    ``token`` when given) sits at ``seat``. A phone's move reads the seat, its player, the table
    and the hand in one query, locking the table's row (0.5 ms of the ORM's Python against 0.8
    for the table's read with the seat checked in an ``Exists``); a bot's or the clock's, or a
    seat nobody holds, reads the table alone. ``get``, never ``first``: no ORDER BY to build."""
    if player_id is not None and type(seat) is int:
        seats = Seat.objects.select_for_update(of=("table",)).select_related("table__hand", "player")
        try:
            found = seats.get(table_id=table_id, position=seat)
        except Seat.DoesNotExist:
            pass
        else:
            return found.table, found.player_id == player_id and (token is None or found.player.token == token)
    try:
        return TableHand.objects.select_for_update(of=("self",)).select_related("hand").get(pk=table_id), False
    except TableHand.DoesNotExist:
        raise DigitalError("That table no longer exists.") from None


def _same_basis(state: Any, seat: int, basis: Any) -> bool:
    return isinstance(basis, str) and not state.finished and seat_basis(state.view(seat)) == basis


def _record(table: TableHand, state) -> Result:
    """The engine scored the hand: its result enters the drive at once, confirmed (no entry
    step), recorded as every result is; the drive's screens are told once it commits."""
    players = [s.player for s in table.seats.select_related("player").order_by("position")]
    result = scoring.record_result(
        table=table, players=players, hand_number=table.hand.number, outcome=state.outcome(),
        summary=summary_of(table, state), source=Result.Source.DIGITAL, confirmed=True)
    table.status = TableHand.Status.CONFIRMED
    for listener in table_listeners:
        listener(table)
    return result

def summary_of(table: TableHand, state, game: Any = None) -> dict[str, Any]:
    """The finished hand in the game's entry format (so a correction form starts from it), with
    the engine's own points alongside under ``digital``."""
    summary = (game or table.hand.drive.game_rules).hand_summary(state)
    summary["digital"] = {"points": list(state.outcome().points), "ended_by": state.ended_by, "version": state.version}
    return summary


# --- the bell -------------------------------------------------------------------------------------


@transaction.atomic
def stop_playing_tables(drive, hand: Hand) -> list[TableHand]:
    """The organiser closes the hand: every digital table still playing ends with nobody having
    won (the game's ``stop``; docs/rules.md says how each game scores it), scored by the engine and
    recorded, so the movement that follows sees its result. Tables never dealt are left alone
    (the close records them as not played)."""
    stopped = []
    tables = hand.tables.select_for_update().filter(
        play_mode=TableHand.PlayMode.DIGITAL, status=TableHand.Status.PLAYING, state__isnull=False
    )
    for table in tables.select_related("hand").order_by("number"):
        state = load_state(table)
        if state.finished:  # finished but not recorded cannot happen; be safe anyway
            continue
        state.stop()
        table.state = state.to_json()
        table.version = state.version
        _record(table, state)
        table.save(update_fields=["state", "version", "status", "updated_at"])
        tell_table(table.pk, state, [])
        stopped.append(table)
    return stopped


# --- a bot stands in ----------------------------------------------------------------------


@transaction.atomic
def set_stand_in(drive, table_id: int, seat: Any, playing: bool) -> str:
    """The organiser has a bot play a seat of a hand in play on the phones for its player (who
    had to leave, or whose phone died), or gives the seat back (``playing`` False). The player
    keeps the seat and its score: the bot only makes the moves, as any bot, and the player's
    phone is refused meanwhile. It lasts until given back or the hand ends (the next hand
    seats people, not bots). Returns the player's name. Refused: the table is not playing on
    the phones, no such seat, or the seat's player is a bot itself."""
    try:
        table = TableHand.objects.select_for_update(of=("self",)).select_related("hand").get(
            pk=table_id, hand__drive=drive)
    except TableHand.DoesNotExist:
        raise DigitalError("That table is not part of this drive.") from None
    if not table.on_the_phones or table.hand.status != Hand.Status.PLAYING:
        raise DigitalError(f"Table {table.number} is not playing a hand on the phones now.")
    found = table.seats.select_related("player").filter(position=seat).first() if type(seat) is int else None
    if found is None:
        raise DigitalError(f"Table {table.number} has no such seat.")
    if BotPlayer.objects.filter(player_id=found.player_id).exists():
        raise DigitalError(f"{isolate(found.player.name)} is a bot: the server always plays that seat.")
    if not playing and not found.player.active:
        raise DigitalError(f"{isolate(found.player.name)} has left the drive: "
                           "have them rejoin first, then give the seat back.")
    bots = set(table.bots or [])
    if (seat in bots) == playing:
        return found.player.name  # already so (a second click): nothing to do
    table.bots = sorted(bots | {seat} if playing else bots - {seat})
    if playing:  # kept once the seat is given back: the record says a bot played some of it
        table.bot_played_for = sorted({*(table.bot_played_for or []), seat})
    table.save(update_fields=["bots", "bot_played_for", "updated_at"])
    if playing:  # the bot looks at the table at once
        deadline = getattr(load_state(table), "deadline", None)
        transaction.on_commit(lambda: [listener(table.pk, [seat], deadline) for listener in moved_listeners],
                              robust=True)
    # Who plays which seat changed, not the hand's version: every socket of the table reads
    # the seats again and sends its view (the player's own phone then says a bot plays it).
    tell_seats(table.pk)
    _drive_changed(drive.pk)
    return found.player.name
