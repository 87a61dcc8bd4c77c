"""The hand cycle: start, the organiser's results, close with movement, the end and the prizes.

Each function is atomic and locks the drive's row first, so two organiser clicks (or a phone
and the organiser) can never interleave a close with an entry; refusals raise ``DriveError``.
"""

from __future__ import annotations


import re
from collections.abc import Sequence
from dataclasses import asdict

from django.db import transaction
from django.db.models import Count
from django.utils import timezone

from common.bidi import isolate
from drive import live, movement, seating
from drive.models import Drive, LateEntry, Player
from drive.ending import target_reached
from drive.selectors import standings_rows
from games import GameError
from games.base import Outcome, and_list
from scoring import services as scoring
from scoring.models import Result, Score
from tables import digital
from tables.models import Hand, TableHand
from drive.services.base import DriveError, ImpossibleAnswers, StaleForm, check_shown_hand, lock
from drive.services.players import clean_name
from drive.services.seats import create_hand, current_hand, rebalance, seating_of

# --- the hand cycle ---------------------------------------------------------------------------


@transaction.atomic
def start_hand(drive: Drive, *, shown_hand: int | None = None) -> Hand:
    drive = lock(drive)
    hand = current_hand(drive)
    check_shown_hand(drive, hand, shown_hand)  # (a finished drive first: "This drive has finished.")
    if hand is None:
        raise DriveError("Draw the seating first.")
    if hand.status != Hand.Status.SEATING:
        raise DriveError(f"Hand {hand.number} is already under way.")
    _check_table_sizes(drive, hand)
    if target_reached(drive, hand.number - 1):
        # Reached since the last close: the target was lowered on the drive's page, or a
        # correction took someone to the total. The drive ends at its target, not a hand later.
        raise DriveError("The drive has reached its target: end the drive now, or raise its target on "
                         "the drive's page to play on.")
    hand.status = Hand.Status.PLAYING
    hand.started_at = timezone.now()
    hand.save(update_fields=["status", "started_at"])

    digital.deal_hand(drive, hand)
    live.drive_changed(drive.pk)
    live.hand_started(hand)
    return hand


def _check_table_sizes(drive: Drive, hand: Hand) -> None:
    """Every table of ``hand`` has as many players as the drive's game is played by: a table
    over it (bots added before the game was changed, say) would be neither dealt nor entered."""
    game = drive.game_rules
    sizes = hand.tables.order_by("number").annotate(n=Count("seats")).values_list("number", "n")
    wrong = [(number, n) for number, n in sizes if not game.min_players <= n <= game.max_players]
    if wrong:
        number, n = wrong[0]
        fix = ("Take a player (or a bot) out of the drive, and the seating is re-formed." if n > game.max_players
               else "Add a player, or change the players per table on the drive's page, and the seating is re-formed.")
        raise DriveError(f"Table {number} has {n} player{'s' if n != 1 else ''}, and {game.name} is played by "
                         f"{game.min_players} to {game.max_players} at a table. {fix}")


def players_at(table: TableHand) -> list[Player]:
    return [seat.player for seat in table.seats.select_related("player").order_by("position")]


_SEAT = re.compile(r"\bSeat (\d+)\b")


def outcome_for(drive: Drive, players: int, summary: dict, names: Sequence[str] | None = None) -> Outcome:
    """The game's outcome for an entered summary; a refused entry becomes a DriveError. The game
    names a seat by its number from 0 ("Seat 2: …"); with the seated players' ``names`` the
    message names the player instead, as the form does."""
    game = drive.game_rules
    try:
        return game.outcome_from_summary(players, summary)
    except GameError as exc:
        message = str(exc)
        if names:
            message = _SEAT.sub(lambda m: isolate(names[int(m[1])]) if int(m[1]) < len(names) else m[0], message)
        raise ImpossibleAnswers(message) from None


def _table_for_update(drive: Drive, table_id: int) -> TableHand:
    try:
        return TableHand.objects.select_for_update().select_related("hand").get(pk=table_id, hand__drive=drive)
    except TableHand.DoesNotExist:
        raise DriveError("That table is not part of this drive.") from None


def refuse_paper_result_on_the_phones(table: TableHand) -> None:
    """A table still played on the phones takes no paper result: its phones would go on showing
    the hand; the engine (or the bell) records its result itself."""
    if table.on_the_phones:
        raise DriveError(f"Table {table.number} is playing on the phones: its result enters the drive by itself "
                         "when the hand ends. To end it now, close the hand (the bell scores it).")


@transaction.atomic
def organiser_result(drive: Drive, table: TableHand, summary: dict, user, reason: str = "",
                     seen_revision: int | None = None, seen_status: str | None = None) -> Result:
    """The organiser enters a table's result (from paper), or corrects one (a reason is required).

    ``seen_revision``: the revision of the result the organiser's form showed (0: it showed no
    result); a result changed since (a phone's new entry, the same correction sent twice, a
    result recorded while an empty form was open) is refused, not overwritten. ``seen_status``:
    the status it showed; one confirmed or disputed by a phone since is refused too, saying so
    (the organiser would settle a dispute they had not read). A
    correction that changes nothing is refused too, unless it settles an entry not yet
    confirmed (disputed, say) by keeping it as it is: it is confirmed, with the reason logged."""
    drive = lock(drive)
    if drive.is_finished:
        raise DriveError("The drive has finished: its final standings are frozen.")
    table = _table_for_update(drive, table.pk)
    if table.hand.status == Hand.Status.SEATING:
        raise DriveError(f"Hand {table.hand.number} has not started yet.")
    players = players_at(table)
    outcome = outcome_for(drive, len(players), summary, [p.name for p in players])
    existing = Result.objects.filter(table=table).first()
    if existing is None:
        if table.hand.status == Hand.Status.CLOSED:
            raise DriveError("That hand is closed.")
        refuse_paper_result_on_the_phones(table)
        result = scoring.record_result(
            table=table, players=players, hand_number=table.hand.number, outcome=outcome,
            summary=summary, source=Result.Source.ORGANISER, confirmed=True,
        )
    else:
        unchanged = same_answers(drive, len(players), existing.summary, summary)
        as_it_stands = unchanged and existing.status == Result.Status.CONFIRMED
        if seen_revision == 0:  # typed into an empty form: a result came meanwhile
            if as_it_stands and existing.source == Result.Source.ORGANISER:
                return existing  # this very result sent twice (a double click): saved once, nothing more
            raise StaleForm(f"Table {table.number} has a result now that it did not have when you opened this "
                             "page (entered on a phone, or recorded as not played at a close): open it again to "
                             "see it, then correct it if it is wrong.")
        if seen_revision is not None and seen_revision != existing.revision:
            raise StaleForm("This result was changed while you were looking at it (a new entry, a correction "
                             "saved from another page, or this correction sent twice): open it again to see it "
                             "as it stands, then correct it if it is still wrong.")
        if seen_status is not None and seen_status != existing.status:
            raise StaleForm(_judged_since(existing))
        if as_it_stands:
            raise DriveError("That is the result as it stands: nothing to correct.")
        reason = clean_name(reason or "")  # as a name: nothing invisible
        if not reason:
            raise DriveError("Give a reason for the correction: it is kept in the log.")
        result = scoring.replace_result(
            existing, players=players, hand_number=table.hand.number, outcome=outcome,
            summary=summary, by_user=user, reason=reason[:300], changed=not unchanged,
        )
    table.status = TableHand.Status.CONFIRMED
    table.save(update_fields=["status", "updated_at"])
    if table.hand.status == Hand.Status.CLOSED:  # a result a phone sent late for it was shown: dealt with now
        LateEntry.objects.filter(drive=drive, table=table, settled=False).update(settled=True)
    live.table_changed(table)
    return result


def _judged_since(result: Result) -> str:
    """Why a result page is out of date: a phone confirmed or disputed the entry since."""
    who = isolate(result.confirmed_by.name) if result.confirmed_by_id else "A player"
    if result.status == Result.Status.DISPUTED:
        said = f": “{result.dispute_reason}”" if result.dispute_reason else ""
        return (f"Since you opened this page, {who} disputed this result{said}. Open it again to read the "
                "dispute, then settle it.")
    if result.status == Result.Status.CONFIRMED:
        return (f"Since you opened this page, {who} confirmed this result. Open it again to see it as it "
                "stands, then correct it if it is still wrong.")
    return "This result was changed while you were looking at it: open it again to see it as it stands."


def same_answers(drive: Drive, players: int, one: dict, other: dict) -> bool:
    """Whether two summaries of a table of ``players`` answer the entry form alike (a question
    one leaves out read as the form's default)."""
    spec = drive.game_rules.entry_spec(players)
    strip = lambda summary: {k: v for k, v in summary.items() if k != "digital"}  # noqa: E731 (the engine's record)
    return _answers(strip(one), spec) == _answers(strip(other), spec)


@transaction.atomic
def set_aside_late_entries(drive: Drive, table: TableHand) -> int:
    """The organiser leaves the results sent late for ``table`` as they are (its result stands):
    they go from the dashboard. How many there were."""
    drive = lock(drive)
    count = LateEntry.objects.filter(drive=drive, table=table, settled=False).update(settled=True)
    if count:
        live.drive_changed(drive.pk)
    return count


def _answers(summary: dict, spec: dict) -> dict:
    """A result's summary as the entry form answers it: every question answered, those left out
    (a digital hand's record may leave out a question that does not arise; a record made before
    the game asked a question has none of it) with the form's default, as the form shows them."""
    table = {f["name"]: f["default"] for f in spec.get("table", []) if "default" in f}
    summary = {**table, **summary}
    defaults = {f["name"]: f["default"] for f in spec.get("seat", []) if "default" in f}
    holdings = summary.get("holdings")
    if not isinstance(holdings, list):
        return summary
    return {**summary, "holdings": [{**defaults, **h} if isinstance(h, dict) else h for h in holdings]}


def _not_played(drive: Drive, table: TableHand) -> None:
    """Forced close of a table with no result: 0 each; the game names who moves up, as when
    nobody won (``games.base.Game.mover_without_winner``)."""
    players = players_at(table)
    points = [0] * len(players)
    outcome = Outcome(points=points, mover=drive.game_rules.mover_without_winner(points, dealer=0))
    scoring.record_result(
        table=table, players=players, hand_number=table.hand.number, outcome=outcome,
        summary={"not_played": True}, source=Result.Source.NOT_PLAYED, confirmed=True,
    )
    table.status = TableHand.Status.NOT_PLAYED
    table.save(update_fields=["status", "updated_at"])


def _waiting_words(waiting: list[TableHand], results: dict[int, Result], ringing: list[TableHand]) -> str:
    """Why a close waits, and what closing anyway does to each table waited for and to each hand
    still played on the phones (``ringing``: the bell ends it)."""
    entered = [t.number for t in waiting if t.pk in results]
    empty = [t.number for t in waiting if t.pk not in results]
    anyway = []
    if entered:
        anyway.append(f"accept the result{'s' if len(entered) > 1 else ''} entered at {seating.table_words(entered)} "
                      f"as {'they stand' if len(entered) > 1 else 'it stands'}")
    if empty:
        anyway.append(f"record {seating.table_words(empty)} as not played")
    if ringing:
        several = len(ringing) > 1
        anyway.append(f"ring the bell at {seating.table_words([t.number for t in ringing])}, still playing on the "
                      f"phones: {'their hands end' if several else 'its hand ends'}, scored as "
                      f"{'they stand' if several else 'it stands'}")
    return f"Waiting for {seating.table_words([t.number for t in waiting])}. Close anyway to {and_list(anyway)}."


@transaction.atomic
def close_hand(drive: Drive, *, force: bool = False, shown_hand: int | None = None) -> Hand | None:
    """Close the hand in play: apply the movement and show the next hand's seating.

    Without ``force`` every table must be confirmed. With ``force`` entered results are accepted
    as they stand and tables with no result are recorded as not played (0 points each, and the
    game names who moves, as when nobody won: by default, with everyone on 0, the player on
    seat 1's left).
    A disputed table must be settled first either way. Returns the next hand, or None when the
    drive has reached its target and finished. ``shown_hand``: the hand the organiser's page
    showed (``check_shown_hand``).
    """
    drive = lock(drive)
    hand = current_hand(drive)
    check_shown_hand(drive, hand, shown_hand)
    if hand is None or hand.status != Hand.Status.PLAYING:
        raise DriveError("There is no hand in play to close.")

    ringing = digital.stop_playing_tables(drive, hand)
    tables = list(hand.tables.select_for_update().order_by("number"))
    results = {r.table_id: r for r in Result.objects.filter(table__hand=hand)}
    disputed = [t.number for t in tables if t.status == TableHand.Status.DISPUTED]
    if disputed:
        raise DriveError(f"Settle the dispute{'s' if len(disputed) > 1 else ''} at {seating.table_words(disputed)} first.")
    waiting = [t for t in tables if not t.is_done]
    if waiting and not force:
        raise DriveError(_waiting_words(waiting, results, ringing))
    for table in waiting:
        result = results.get(table.pk)
        if result is None:
            _not_played(drive, table)
        else:  # entered but not yet confirmed: the organiser's close accepts it
            scoring.set_status(result, Result.Status.CONFIRMED)
            table.status = TableHand.Status.CONFIRMED
            table.save(update_fields=["status", "updated_at"])
    hand.status = Hand.Status.CLOSED
    hand.closed_at = timezone.now()
    hand.save(update_fields=["status", "closed_at"])
    live.drive_changed(drive.pk)

    if target_reached(drive, hand.number):
        _finish(drive)  # nobody moves: the drive's last hand leaves ``moved_up`` empty
        return None
    movers = dict(Result.objects.filter(table__hand=hand).values_list("table__number", "mover_id"))
    for table in tables:
        table.moved_up_id = movers[table.number]
    TableHand.objects.bulk_update(tables, ["moved_up"])
    seating_, modes = seating_of(hand)
    moving = [str(movers[n]) for n in range(1, len(seating_) + 1)]
    next_seating = movement.move(seating_, moving)
    next_seating = rebalance(drive, next_seating, before=seating_, movers=moving)
    next_hand = create_hand(drive, hand.number + 1, next_seating, modes)
    live.hand_moved(next_hand)  # each phone's instruction at the commit, ahead of the full update
    return next_hand


def _finish(drive: Drive) -> None:
    hand = current_hand(drive)
    if hand is not None and hand.status == Hand.Status.SEATING:
        hand.delete()  # the next hand's seating was shown but never played
    drive.status = Drive.Status.FINISHED
    drive.finished_at = timezone.now()
    # Those who played a hand only: a late arrival added during the last hand (never seated,
    # as the next hand never came) would otherwise be ranked on 0 from 0 hands, and take the
    # booby prize, as a player withdrawn before playing is in no standings.
    drive.final_standings = [asdict(row) for row in standings_rows(drive, live=True) if row.hands_played]
    drive.save(update_fields=["status", "finished_at", "final_standings"])
    live.drive_changed(drive.pk)
    live.drive_ended(drive.pk)


@transaction.atomic
def end_drive(drive: Drive) -> None:
    """The organiser ends the drive now. A hand in play must be closed first."""
    drive = lock(drive)
    if drive.is_finished:
        raise DriveError("This drive has already finished.")
    hand = current_hand(drive)
    if hand is not None and hand.status == Hand.Status.PLAYING:
        raise DriveError(f"Close hand {hand.number} first.")
    _finish(drive)


@transaction.atomic
def show_prizes(drive: Drive, show: bool) -> None:
    drive = lock(drive)
    if show and not drive.is_finished:
        raise DriveError("The prizes are revealed once the drive has finished.")
    if show and not drive.final_standings:  # ended before any hand was played
        raise DriveError("No hand was played in this drive: there are no prizes to reveal.")
    drive.show_prizes = show
    drive.prizes_revealed = drive.prizes_revealed or show
    drive.save(update_fields=["show_prizes", "prizes_revealed"])
    live.drive_changed(drive.pk)
