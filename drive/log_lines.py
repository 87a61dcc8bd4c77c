"""The corrections log as the organiser reads it (``/drives/<id>/log``): each correction with
every player's points before and after, by name, who won before and after, the entry's answers
that changed in the form's own words, and the dispute it settled."""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import Prefetch, QuerySet

from drive.models import Drive
from games import Game
from scoring.forms import answer_words
from scoring.models import Correction, Result
from tables.models import Seat


def corrections(drive: Drive) -> QuerySet[Correction]:
    return Correction.objects.filter(drive=drive).select_related("by", "result__table__hand").order_by("-at")


@dataclass
class PointsChange:
    name: str
    before: int | None
    after: int | None

    @property
    def changed(self) -> bool:
        return self.before != self.after


@dataclass
class CorrectionLine:
    """One correction as the log shows it: each player's points before and after, by name in
    seat order, and who won the hand before and after (by name; None: nobody)."""

    correction: Correction
    points: list[PointsChange]
    winner_before: str | None
    winner_after: str | None
    # The entry's answers that changed, in the form's words: (question, before, after); a
    # seat's question starts with its player's name ("Gus: " and the question).
    answers: list[tuple[str, str, str]]
    # The dispute this correction settled: the disputing player's reason ("" when none).
    dispute: str = ""

    @property
    def winner_changed(self) -> bool:
        return self.winner_before != self.winner_after


def correction_lines(drive: Drive) -> list[CorrectionLine]:
    """The corrections log, newest first, readable: names, not the stored snapshots' player ids."""
    found = list(corrections(drive).prefetch_related(
        Prefetch("result__table__seats", queryset=Seat.objects.order_by("position"))))
    names = dict(drive.players.values_list("pk", "name"))
    lines = []
    for c in found:
        seated = [s.player_id for s in c.result.table.seats.all()]
        old, new = c.old or {}, c.new or {}
        before, after = old.get("points") or {}, new.get("points") or {}
        ids = seated + [int(k) for k in {*before, *after} if str(k).isdigit() and int(k) not in seated]
        points = [PointsChange(names.get(pid, "?"), before.get(str(pid)), after.get(str(pid))) for pid in ids]

        def winner(snapshot: dict) -> str | None:
            pid = snapshot.get("winner")
            return names.get(pid, "?") if pid is not None else None

        seat_names = [names.get(pid, "?") for pid in seated]
        dispute = (old.get("dispute_reason") or "") if old.get("status") == Result.Status.DISPUTED else ""
        lines.append(CorrectionLine(c, points, winner(old), winner(new),
                                    _answers_changed(drive.game_rules, seat_names, old, new), dispute))
    return lines


def _answers_changed(game: Game, seat_names: list[str], old: dict, new: dict) -> list[tuple[str, str, str]]:
    try:
        spec = game.entry_spec(len(seat_names))
    except ValueError:  # (a GameError: a table size the game does not play)
        return []
    table_before, seats_before = answer_words(spec, seat_names, old.get("summary"))
    table_after, seats_after = answer_words(spec, seat_names, new.get("summary"))
    changed = _pairs_changed(table_before, table_after, "")
    for name, before, after in zip(seat_names, seats_before, seats_after):
        changed += _pairs_changed(before, after, f"{name}: ")
    return changed


def _pairs_changed(before: list, after: list, prefix: str) -> list[tuple[str, str, str]]:
    was, now = dict(before), dict(after)
    return [(prefix + q, was.get(q, "—"), now.get(q, "—")) for q in dict.fromkeys([*was, *now])
            if was.get(q) != now.get(q)]
