"""CSV exports: every hand's scores, and the standings."""

from __future__ import annotations

import csv
import re

from django.contrib.auth.decorators import login_required
from django.http import HttpResponse
from django.utils.text import slugify

from drive import selectors
from drive.access import drive_for_organiser


def _csv_response(drive, what: str) -> tuple[HttpResponse, "csv._writer"]:
    response = HttpResponse(content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{slugify(drive.name) or "drive"}-{what}.csv"'
    response.write("\ufeff")  # so spreadsheet programs read UTF-8 names correctly
    return response, csv.writer(response)


_NEGATIVE = re.compile(r"-[0-9]+")  # a negative number, which a spreadsheet should read as one


def _cell(value) -> str:
    # Neutralise spreadsheet formulas in player-supplied text (CSV injection).
    text = str(value)
    if text[:1] in ("=", "+", "-", "@", "\t", "\r") and not _NEGATIVE.fullmatch(text):
        return "'" + text
    return text


@login_required
def hands_csv(request, drive_id: int):
    drive = drive_for_organiser(request, drive_id)
    response, writer = _csv_response(drive, "hands")
    facts = drive.game_rules.facts  # a column for each of the game's standings facts
    # A table's players in seat order; ``mover``: 1 for the player who moved up from the table
    # (at the top table: stayed there) as its close recorded it, a correction made after the
    # close leaving the moves as made; until the close (and for the drive's last hand, which
    # moves nobody), whom the result names to move up.
    # ``corrected``: the organiser changed the result after it was entered (the log says how).
    # ``ended_by``: how a hand played on the phones ended, in its game's code ("stopped": the
    # organiser's bell); blank for a hand played with cards, and once the organiser corrected
    # it (their answers replace the engine's record). ``confirmed_by``: see ``_confirmed_by``.
    writer.writerow(["hand", "table", "player", "points", *(f.hand_key for f in facts), "mover", "status", "source",
                     "corrected", "ended_by", "confirmed_by"])
    for s in selectors.hand_scores(drive):
        moved_up = s.result.table.moved_up_id or s.result.mover_id
        writer.writerow([
            s.hand_number, s.result.table.number, _cell(s.player.name), s.points,
            *(int(s.details.get(f.key, 0)) for f in facts), int(s.player_id == moved_up),
            s.result.status, s.result.source, int(s.corrected), _ended_by(s.result), _confirmed_by(s.result, s.corrected),
        ])
    return response


def _confirmed_by(result, corrected: bool) -> str:
    """A phone's entry as it stands, confirmed: by whom, or "close" when nobody did (as the result
    page says, templates/scoring/partials/result_origin.html). Blank otherwise: not confirmed, or
    the organiser's answers (a correction), or no phone's entry ("confirmed_by" also holds who
    disputed an entry)."""
    if corrected or result.status != result.Status.CONFIRMED or result.entered_by_id is None:
        return ""
    return _cell(result.confirmed_by.name) if result.confirmed_by is not None else "close"


def _ended_by(result) -> str:
    digital = (result.summary or {}).get("digital")
    return str(digital.get("ended_by") or "") if isinstance(digital, dict) else ""


@login_required
def standings_csv(request, drive_id: int):
    drive = drive_for_organiser(request, drive_id)
    response, writer = _csv_response(drive, "standings")
    # The rank as a number and a tie as its own column: "=3", as the board writes it, would be
    # a formula to a spreadsheet.
    writer.writerow(["rank", "tied", "player", "total", *(f.key for f in drive.game_rules.facts), "hands_played",
                     "left"])
    for r in selectors.standings(drive):
        writer.writerow([r.rank, int(r.tied), _cell(r.name), r.total, *r.facts, r.row.hands_played, int(r.row.left)])
    return response
