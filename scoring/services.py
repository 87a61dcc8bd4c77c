"""Writes of results and points. Called by the drive's services inside their transactions.

A result is one table's outcome in one hand; its ``Score`` rows hold each seated player's
points. ``counted`` on a score mirrors "the result is confirmed": standings sum counted scores
only, so an entered-but-unconfirmed result shows as pending and never changes the totals.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.db import transaction

from games.base import Outcome
from scoring.models import Correction, Result, Score


def _score_rows(result: Result, players: Sequence[Any], outcome: Outcome, hand_number: int, counted: bool) -> list[Score]:
    return [
        Score(
            result=result,
            player=player,
            drive_id=result.drive_id,
            hand_number=hand_number,
            points=points,
            details=outcome.facts_of(seat),
            counted=counted,
        )
        for seat, (player, points) in enumerate(zip(players, outcome.points, strict=True))
    ]


def _winner(players: Sequence[Any], outcome: Outcome):
    return players[outcome.winner] if outcome.winner is not None else None


def result_rows(
    *,
    table,
    players: Sequence[Any],
    hand_number: int,
    outcome: Outcome,
    summary: dict,
    source: str,
    confirmed: bool,
    entered_by=None,
    client_key: str | None = None,
) -> tuple[Result, list[Score]]:
    """The result of ``table`` and its players' scores, not yet saved (``record_result`` saves
    them)."""
    result = Result(
        table=table,
        drive_id=table.hand.drive_id,
        summary=summary,
        source=source,
        status=Result.Status.CONFIRMED if confirmed else Result.Status.ENTERED,
        winner=_winner(players, outcome),
        mover=players[outcome.mover],
        entered_by=entered_by,
        client_key=client_key,
    )
    return result, _score_rows(result, players, outcome, hand_number, confirmed)


@transaction.atomic(savepoint=False)  # inside a caller's transaction, no savepoint: two round trips fewer
def record_result(**facts: Any) -> Result:
    """Create the result of a table (one per table: the database refuses a second), with its
    scores: ``facts`` are ``result_rows``'s keyword arguments, which build them."""
    result, scores = result_rows(**facts)
    result.save(force_insert=True)
    Score.objects.bulk_create(scores)
    return result


def result_snapshot(result: Result) -> dict:
    """What a correction records as old/new: the summary, the status, the winner (a player id,
    or None), everyone's points, and a dispute's reason (a correction settles the dispute and
    the result forgets it: the log keeps what the player said)."""
    return {
        "summary": result.summary,
        "status": result.status,
        "winner": result.winner_id,
        "points": {str(s.player_id): s.points for s in result.scores.all()},
        "dispute_reason": result.dispute_reason,
    }


@transaction.atomic
def replace_result(
    result: Result,
    *,
    players: Sequence[Any],
    hand_number: int,
    outcome: Outcome,
    summary: dict,
    by_user,
    reason: str,
    changed: bool,
) -> Result:
    """Organiser's correction: new outcome, confirmed, with an audit record of old and new. The
    result keeps its ``source`` and ``entered_by``: how it was entered and by whom (the result
    page says so, and that the organiser corrected it, or confirmed it unchanged: ``changed``,
    whether the answers differ, as the entry form reads them)."""
    result = Result.objects.select_for_update().get(pk=result.pk)
    old = result_snapshot(result)
    result.status = Result.Status.CONFIRMED
    result.dispute_reason = ""
    _rewrite(result, players, hand_number, outcome, summary, counted=True, also=["status", "dispute_reason"])
    Correction.objects.create(
        result=result, drive_id=result.drive_id, by=by_user, old=old, new=result_snapshot(result), reason=reason,
        changed=changed,
    )
    return result


@transaction.atomic(savepoint=False)  # as record_result
def set_status(result: Result, status: str, *, confirmed_by=None, reason: str = "") -> Result:
    result.status = status
    result.confirmed_by = confirmed_by
    result.dispute_reason = reason
    result.save(update_fields=["status", "confirmed_by", "dispute_reason", "updated_at"])
    result.scores.update(counted=status == Result.Status.CONFIRMED)
    return result


@transaction.atomic(savepoint=False)  # as record_result
def replace_phone_entry(
    result: Result, *, players: Sequence[Any], hand_number: int, outcome: Outcome, summary: dict,
    entered_by, client_key: str | None,
) -> Result:
    """A player replaces an unconfirmed entry (not a correction: nothing was confirmed yet)."""
    result.entered_by = entered_by
    result.client_key = client_key
    _rewrite(result, players, hand_number, outcome, summary, counted=False, also=["entered_by", "client_key"])
    return result


def _rewrite(result: Result, players: Sequence[Any], hand_number: int, outcome: Outcome, summary: dict, *,
             counted: bool, also: list[str]) -> None:
    """``result`` rewritten with new answers: its summary, winner and mover, the next revision,
    and its scores replaced (``counted``: they count for the totals); ``also``, the fields the
    caller set too."""
    result.summary = summary
    result.winner = _winner(players, outcome)
    result.mover = players[outcome.mover]
    result.revision += 1
    result.save(update_fields=["summary", "winner", "mover", "revision", *also, "updated_at"])
    result.scores.all().delete()
    Score.objects.bulk_create(_score_rows(result, players, outcome, hand_number, counted))
