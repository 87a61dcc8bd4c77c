"""Results from players' phones: enter, confirm, dispute (the organiser settles on the dashboard).

The server decides every state change (docs/drive-rules.md, "Recording a hand played with cards"):
- only a player seated at that table in that hand may enter, confirm or dispute;
- the confirmer must be a different player from the one whose entry it is;
- a confirmed result is locked: only the organiser can change it, with a reason;
- each submission carries a client key: sending it again returns the first outcome, once;
- an entry made while looking at an older version of the table's result is refused, naming
  the version that won;
- every entry, confirmation and dispute names the hand and the table its page was shown for
  (``Shown``): one for another hand or table than the player's now (a page left open over a
  close, the phone's offline queue), or naming none (a page from before this rule), is refused
  with ``StaleForm`` and writes nothing;
- it also names the player the page was shown to, and is refused (``NotThisPlayersForm``,
  nothing written) unless that is the player the request's cookie names: a phone changes hands
  ("Leave this phone", someone else joins), and what the first player's page sends (their
  entry queued offline, a tab left open) must never act for the next one; otherwise the first
  could confirm an entry recorded as the next player's, one person both entering and confirming.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from django.db import transaction

from common.bidi import isolate
from common.db import one_or_none
from drive import live
from drive.models import Drive, LateEntry, Player
from drive.services import (DriveError, NotThisPlayersForm, StaleForm, clean_name, current_hand, hand_now, lock,
                            outcome_for, players_at, same_answers)
from scoring import services as scoring
from scoring.models import Result
from tables.models import Hand, Seat, TableHand


@dataclass
class Submitted:
    result: Result
    repeated: bool  # True when this client key had already been recorded


@dataclass(frozen=True)
class Shown:
    """What a phone's form was shown for: the hand and table numbers, and the id of the player
    whose page it was (None: the form did not say)."""

    hand: int | None
    table: int | None
    player: int | None


LOOK_NOW = "Nothing was saved. Look at your table now."
# A page left open on a phone (an entry queued offline, a "Confirm") after the last close, or
# "End the drive now": said as such, not as "no hand is being played", which it would be too.
FINISHED = "The drive has finished: no result can be entered, confirmed or disputed any more."


def _check_player_shown(player: Player, shown: Shown) -> None:
    if shown.player is None:
        raise NotThisPlayersForm(f"This page is out of date: it does not say whose it was. {LOOK_NOW}")
    if shown.player != player.pk:
        raise NotThisPlayersForm(f"This was sent from a page shown to another player on this phone. {LOOK_NOW}")


def _check_hand_shown(hand: Hand | None, shown: Shown) -> None:
    if shown.hand is None or shown.table is None:
        raise StaleForm(f"This page is out of date: it does not say which hand and table it was for. {LOOK_NOW}")
    if hand is None or shown.hand != hand.number:
        if hand is not None and shown.hand < hand.number:  # (sent late: kept on a phone while it was offline)
            raise StaleForm(f"This was for hand {shown.hand}, which is over: {hand_now(hand)}. Nothing was saved: if "
                            f"it should count, tell the organiser, who can still correct hand {shown.hand}'s results.")
        raise StaleForm(f"This was for hand {shown.hand}: {hand_now(hand)}. {LOOK_NOW}")


ON_THE_PHONES = "This table plays on the phones: its result is recorded automatically."


def locked_for_players(table: TableHand, result: Result | None) -> str | None:
    """Why no player may enter ``table``'s result now (played on the phones: the engine records
    it; confirmed: only the organiser changes it; disputed: the organiser settles it), or None.
    The entry page says it instead of showing a form that would be refused."""
    if table.play_mode != TableHand.PlayMode.PHYSICAL:
        return ON_THE_PHONES
    if result is None:
        return None
    if result.status == Result.Status.CONFIRMED:
        return f"Table {table.number}'s result is confirmed. Only the organiser can change it now."
    if result.status == Result.Status.DISPUTED:
        return f"Table {table.number}'s result is disputed: the organiser will settle it."
    return None


def _hand_being_played(drive: Drive, player: Player, shown: Shown | None, hand: Hand | None) -> Hand:
    """``hand`` (the drive's current hand, None before the first seating) as the hand being
    played: refused when it is not (a finished drive has none, whatever the form), or with
    ``shown`` unless the form was shown to this player, for this hand."""
    if drive.is_finished:
        raise DriveError(FINISHED)
    if shown is not None:
        _check_player_shown(player, shown)
        _check_hand_shown(hand, shown)
    if hand is None or hand.status != Hand.Status.PLAYING:
        raise DriveError("No hand is being played right now.")
    return hand


def _at_table(drive: Drive, hand: Hand, table: TableHand | None, shown: Shown | None) -> TableHand:
    """The player's ``table`` in ``hand`` (None: not seated), refused as stale when ``shown``
    names another table."""
    if table is None:
        raise DriveError("You are not seated in this hand.")
    if shown is not None and shown.table != table.number:
        raise StaleForm(
            f"This was for Table {shown.table}, but you are at Table {table.number} in hand {hand.number}. {LOOK_NOW}"
        )
    table.hand = hand
    hand.drive = drive  # the caller's (locked) row: what reads the table's drive next needs no query
    return table


def my_table(drive: Drive, player: Player, *, for_update: bool = True, shown: Shown | None = None) -> TableHand:
    """The player's table in the hand being played, read with its hand in one query (locked:
    the table's row); with ``shown`` (a form's), refused as stale unless the form was shown to
    this player, for this hand and this table. A finished drive has no table to act on,
    whatever the form."""
    # (No ordering: the models' default one joins the drive for it; one table per player.)
    tables = (TableHand.objects.select_related("hand")
              .filter(hand=Hand.objects.current_id(drive), seats__player=player).order_by())
    if for_update:
        tables = tables.select_for_update(of=("self",))
    table = tables.first()
    # Not seated in the current hand: the hand is read for the refusal that says what is so.
    hand = _hand_being_played(drive, player, shown, table.hand if table is not None else current_hand(drive))
    return _at_table(drive, hand, table, shown)


def my_table_and_players(drive: Drive, player: Player, shown: Shown | None = None
                         ) -> tuple[TableHand, list[Player]]:
    """``my_table`` (not locked) and its players in seat order (``players_at``), the hand, the
    table and its players read in one query: its seats, each with its hand, table and player."""
    seats = list(Seat.objects.select_related("hand", "table", "player")
                 .filter(hand=Hand.objects.current_id(drive), table__seats__player=player).order_by("position"))
    hand = _hand_being_played(drive, player, shown, seats[0].hand if seats else current_hand(drive))
    table = _at_table(drive, hand, seats[0].table if seats else None, shown)
    return table, [seat.player for seat in seats]


def _my_table_as_read(drive: Drive, player: Player, shown: Shown, read: tuple[TableHand, list[Player]] | None
                      ) -> tuple[TableHand, list[Player]]:
    """Under the drive's lock: the player's table and its players, as ``my_table`` and
    ``players_at`` give them. ``read``: the same, read by the caller before the lock (the entry
    page checks the form against them); still the player's own when the hand they belong to is
    still the one being played (a table's mode and its seats change only between hands, under
    this lock), which one query says, where reading them again takes three."""
    if read is not None:
        table, players = read
        hand = current_hand(drive)
        _check_player_shown(player, shown)
        _check_hand_shown(hand, shown)
        if (hand is not None and hand.status == Hand.Status.PLAYING and hand.pk == table.hand_id
                and shown.table == table.number and player.pk in {p.pk for p in players}):
            table.hand = hand
            hand.drive = drive  # the locked row
            return table, players
    table = my_table(drive, player, shown=shown)
    return table, players_at(table)


def _clean_key(client_key: str | None) -> str | None:
    key = (client_key or "").strip()
    if not key:
        return None
    if len(key) > 64 or not all(c.isalnum() or c in "-_" for c in key):
        raise DriveError("The form's key is malformed; reload the page.")
    return key


def is_repeat(earlier: Result, summary: dict) -> bool:
    """Whether ``summary`` is what the entry its client key found (``earlier``) was sent with: a
    resend of those answers, not other answers. Compared as stored (JSON). The organiser may
    have corrected the result since (a correction keeps the key): the answers sent are then the
    first correction's "before" (a player's entry locks once corrected, so none came between)."""
    first = earlier.corrections.order_by("pk").first()
    sent = first.old.get("summary") if first is not None else earlier.summary
    return sent == json.loads(json.dumps(summary))


def sent_otherwise(earlier: Result) -> str:
    """A key already recorded, sent again with other answers: the phone changed them after a
    send whose answer it never got (the Wi-Fi dropped). Taken as a repeat, the new answers were
    lost without a word, and the table confirmed the first ones. Said with what the player may
    still do: send them again while the entry stands unconfirmed in the hand being played, or
    else ask the organiser."""
    said = "This form was sent before, with other answers than these, and those were received."
    if earlier.status == Result.Status.ENTERED and earlier.table.hand.status == Hand.Status.PLAYING:
        return f"{said} Reload the page to see the result as it stands, and correct it there if it is wrong."
    return f"{said} See the result on your page; if it is wrong, ask the organiser to correct it."


def already_recorded(player: Player, client_key: str | None) -> Result | None:
    """The entry this player already sent with this client key, if any (a double tap, a resend
    of the offline queue); a key of another player's entry is refused."""
    key = _clean_key(client_key)
    earlier = one_or_none(Result.objects.filter(client_key=key)) if key else None
    if earlier is not None and earlier.entered_by_id != player.pk:
        raise DriveError("The form's key is already used; reload the page.")
    return earlier


@transaction.atomic
def enter(
    drive: Drive, player: Player, summary: dict, *, client_key: str | None, seen_revision: int, shown: Shown,
    read: tuple[TableHand, list[Player]] | None = None,
) -> Submitted:
    """A player enters their table's result (or replaces an unconfirmed entry they have seen).
    ``shown``: the player, the hand and the table the form was for; a repeat of a recorded key
    of this player's is answered first (it writes nothing), whatever hand it was for.
    ``read``: the player's table and its players as the caller read them before the lock
    (``_my_table_as_read``)."""
    drive = lock(drive)
    key = _clean_key(client_key)
    earlier = already_recorded(player, key)
    if earlier is not None:  # first: an entry resent as the last close ended the drive was received
        if not is_repeat(earlier, summary):
            raise DriveError(sent_otherwise(earlier))
        return Submitted(earlier, repeated=True)
    if drive.is_finished:
        raise DriveError(FINISHED)
    table, players = _my_table_as_read(drive, player, shown, read)
    if table.play_mode != TableHand.PlayMode.PHYSICAL:
        raise DriveError(ON_THE_PHONES)
    outcome = outcome_for(drive, len(players), summary, [p.name for p in players])
    # With who entered it, for the refusal that names them (the lock: the result's row only).
    existing = one_or_none(Result.objects.select_for_update(of=("self",)).select_related("entered_by").filter(table=table))
    if existing is None:
        if seen_revision:
            # (No result is ever taken back: only a form made or kept by hand says it saw one.)
            raise DriveError(f"This form showed a result that Table {table.number} does not have: nothing was "
                             "saved. Reload the page and send it again.")
        result = scoring.record_result(
            table=table, players=players, hand_number=table.hand.number, outcome=outcome, summary=summary,
            source=Result.Source.PHONE, confirmed=False, entered_by=player, client_key=key,
        )
    else:
        who = isolate(existing.entered_by.name) if existing.entered_by else "the organiser"
        locked = locked_for_players(table, existing)
        if locked:
            raise DriveError(locked)
        if existing.revision != seen_revision and existing.entered_by_id == player.pk:
            # Their own entry, sent from another page (a second tab, another phone of theirs).
            raise DriveError(
                f"You already sent Table {table.number}'s result (version {existing.revision}) from another "
                "page; these answers were not saved. Reload to see it, and change it there if it is wrong."
            )
        if existing.revision != seen_revision:
            # Replaced since it was first sent (this phone's own entry may have been the first:
            # its resend is not known by its key then), it is no longer "first".
            if existing.revision == 1:
                raise DriveError(f"{who} sent Table {table.number}'s result first; yours was not saved. Check theirs "
                                 "on your page, then confirm or dispute it.")
            raise DriveError(f"Table {table.number}'s result stands as {who} last sent it; these answers were not "
                             "saved. Check it on your page, then confirm or dispute it.")
        result = scoring.replace_phone_entry(
            existing, players=players, hand_number=table.hand.number, outcome=outcome,
            summary=summary, entered_by=player, client_key=key,
        )
    table.status = TableHand.Status.ENTERED
    table.save(update_fields=["status", "updated_at"])
    # An entry counts for nobody's total until it is confirmed: no place changes.
    live.table_changed(table, current=True, places=False)
    return Submitted(result, repeated=False)


def late_table(drive: Drive, player: Player, shown: Shown) -> TableHand | None:
    """The table, played with cards, of a hand already closed that an entry's form was shown for
    (``shown``), if the form was this player's and they sat there: the entry was kept on the
    phone while it had no connection and sent after the organiser closed the hand ("Close
    anyway"). None otherwise, or once the drive has finished (its results are final). Read
    without a lock: ``keep_late_entry`` reads it again."""
    if drive.is_finished or None in (shown.hand, shown.table) or shown.player != player.pk:
        return None
    return (TableHand.objects.select_related("hand")
            .filter(hand__drive=drive, hand__number=shown.hand, hand__status=Hand.Status.CLOSED, number=shown.table,
                    play_mode=TableHand.PlayMode.PHYSICAL, seats__player=player).order_by().first())


@transaction.atomic
def keep_late_entry(drive: Drive, player: Player, table: TableHand, summary: dict, client_key: str | None) -> str | None:
    """A result sent late for ``table`` (``late_table``): kept for the organiser (``LateEntry``),
    whose dashboard shows it until they apply it or set it aside; nothing counts or moves. Not
    kept when the table's result as recorded has the same answers (nothing to do), or while
    another of this player's for this table waits (one at a time), the phone told so; nor when
    the answers are impossible, carry no key or another player's: None then (the phone is told
    to ask the organiser). What the phone is told."""
    drive = lock(drive)
    key = _clean_key(client_key)
    table = late_table(drive, player, Shown(table.hand.number, table.number, player.pk)) if key else None
    if drive.is_finished or table is None:
        return None
    players = players_at(table)
    try:
        outcome_for(drive, len(players), summary, [p.name for p in players])
    except DriveError:
        return None
    over = f"This was for hand {table.hand.number}, which the organiser closed before it arrived ({hand_now(current_hand(drive))})"
    result = one_or_none(Result.objects.filter(table=table))
    if result is not None and same_answers(drive, len(players), result.summary, summary):
        return f"{over}: Table {table.number}'s result as recorded has these very answers. Nothing more to do."
    if LateEntry.objects.filter(table=table, player=player, settled=False, reason="").exclude(client_key=key).exists():
        # One waits per player and table: each is named on the organiser's dashboard until it is
        # settled, and a phone sending one with a new key each time would grow it without end.
        return (f"{over}: the organiser has the answers you sent for Table {table.number} already, and can apply "
                "them; ask the organiser if anything should change.")
    late, made = LateEntry.objects.get_or_create(
        client_key=key, defaults={"drive": drive, "table": table, "player": player, "summary": summary})
    if late.player_id != player.pk or late.table_id != table.pk:
        return None
    if late.settled:  # sent again after the organiser set it aside
        return f"{over}: the organiser has seen your answers, and Table {table.number}'s result stands as recorded."
    if made:
        live.drive_changed(drive.pk)  # the organiser's dashboard shows it
    return (f"{over}, so it does not count yet: the organiser has your answers, and can apply them to "
            f"Table {table.number}'s result.")


@transaction.atomic
def keep_late_dispute(drive: Drive, player: Player, shown: Shown, seen_revision: int, reason: str) -> str | None:
    """A dispute of the result ``shown`` was for, sent after the organiser closed its hand (kept
    on the phone while it had no connection): kept for the organiser as a ``LateEntry`` with the
    player's ``reason`` and the result as the phone showed it, shown on the dashboard until they
    correct the result or set it aside; nothing counts or moves. None (the refusal stands as it
    was) unless the player sat at that table, gave a reason, and the result is still the one
    they were shown, accepted by the close unjudged (no player confirmed or disputed it, the
    organiser has not changed it). What the phone is told."""
    drive = lock(drive)
    table = late_table(drive, player, shown)
    reason = clean_name(reason or "")[:200]
    if table is None or not reason:
        return None
    result = one_or_none(Result.objects.filter(table=table))
    if (result is None or result.source != Result.Source.PHONE or result.revision != seen_revision
            or result.entered_by_id == player.pk or result.confirmed_by_id is not None):  # refused as before the close
        return None
    late, made = LateEntry.objects.get_or_create(
        client_key=f"dispute-{result.pk}-{result.revision}-{player.pk}",
        defaults={"drive": drive, "table": table, "player": player, "summary": result.summary, "reason": reason})
    over = (f"Your dispute was for hand {table.hand.number}, which the organiser closed before it arrived "
            f"({hand_now(current_hand(drive))})")
    if late.settled:
        return f"{over}: the organiser has read it, and Table {table.number}'s result stands as recorded."
    if made:
        live.drive_changed(drive.pk)  # the organiser's dashboard shows it
    return (f"{over}, so Table {table.number}'s result counts as entered for now: the organiser has your dispute, "
            "and can still correct it.")


def _result_to_judge(drive: Drive, player: Player, seen_revision: int, shown: Shown,
                     judged: str) -> tuple[TableHand, Result, bool]:
    """The table's entry that ``player`` confirms or disputes (``judged``: the status that
    leaves it in), and whether this is that player's own judgement of it again (a double tap,
    or sent again after its answer was lost): answered as the first was, nothing changed."""
    table = my_table(drive, player, shown=shown)
    result = one_or_none(Result.objects.select_for_update().filter(table=table))
    if result is None:
        raise DriveError("Nothing has been entered for your table yet.")
    if result.status != Result.Status.ENTERED:
        # Settled by the organiser (a correction, or saved as it stood: ``confirmed_by`` may still
        # name who disputed it), or accepted at a close: no player's judgement stands then.
        organiser = result.confirmed_by_id is None or result.corrections.exists()
        if (not organiser and result.status == judged and result.confirmed_by_id == player.pk
                and result.revision == seen_revision):
            return table, result, True
        if organiser:
            raise DriveError(f"The organiser has settled Table {table.number}'s result since: it counts as it "
                             "stands now. Nothing was changed.")
        done = "confirmed" if result.status == Result.Status.CONFIRMED else "disputed"
        raise DriveError(f"{isolate(result.confirmed_by.name)} has {done} Table {table.number}'s result already. "
                         "Nothing was changed.")
    if result.revision != seen_revision:
        raise DriveError("The entry changed while you were looking at it: check the new one.")
    if result.entered_by_id == player.pk:
        raise DriveError("Another player at your table must confirm your entry.")
    return table, result, False


@transaction.atomic
def confirm(drive: Drive, player: Player, *, seen_revision: int, shown: Shown,
            made_here: tuple[tuple[int, int], ...] = ()) -> Result:
    """``player`` confirms their table's entry. ``made_here``: the entries the confirming phone
    made (``access.entries_made``, result id and revision): the phone that entered this one, as
    another player, may not confirm it, or one person could enter, leave the phone, take a name
    nobody holds and confirm."""
    drive = lock(drive)
    table, result, again = _result_to_judge(drive, player, seen_revision, shown, Result.Status.CONFIRMED)
    if again:
        return result
    if (result.pk, result.revision) in made_here:
        entered_by = result.entered_by.name if result.entered_by_id else "another player"
        raise DriveError(f"This phone entered that result as {isolate(entered_by)}: another player must confirm "
                         "it on their own phone.")
    scoring.set_status(result, Result.Status.CONFIRMED, confirmed_by=player)
    table.status = TableHand.Status.CONFIRMED
    table.save(update_fields=["status", "updated_at"])
    live.table_changed(table, current=True)
    return result


@transaction.atomic
def dispute(drive: Drive, player: Player, *, seen_revision: int, shown: Shown, reason: str) -> Result:
    """``player`` disputes their table's entry, saying what is wrong (``reason``, cleaned as a
    name is: nothing invisible). One with no reason is refused: the organiser needs it to
    settle the dispute, and a stray tap on *Dispute* filed one that could not be taken back."""
    drive = lock(drive)
    table, result, again = _result_to_judge(drive, player, seen_revision, shown, Result.Status.DISPUTED)
    if again:
        return result
    reason = clean_name(reason or "")[:200]
    if not reason:
        raise DriveError("Say what is wrong (in the box above Dispute): the organiser reads it to settle the "
                         "dispute. Nothing was disputed.")
    scoring.set_status(result, Result.Status.DISPUTED, confirmed_by=player, reason=reason)
    table.status = TableHand.Status.DISPUTED
    table.save(update_fields=["status", "updated_at"])
    live.table_changed(table, current=True, places=False)  # an entry disputed was counted for no one
    return result
