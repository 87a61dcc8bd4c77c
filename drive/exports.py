"""CSV exports: every hand's scores, and the standings."""

from __future__ import annotations

import csv
import re

from django.contrib.auth.decorators import login_required
from django.http import HttpResponse
from django.utils.text import slugify

from common.gates import beside_the_pages
from drive import selectors
from drive.access import drive_for_organiser
from games.base import HANDS_CSV_AFTER, HANDS_CSV_BEFORE, STANDINGS_CSV_AFTER, STANDINGS_CSV_BEFORE
from scoring.forms import answer_words


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


@beside_the_pages
@login_required
def hands_csv(request, drive_id: int):
    drive = drive_for_organiser(request, drive_id)
    response, writer = _csv_response(drive, "hands")
    facts = drive.game_rules.facts  # a column for each of the game's standings facts
    # A table's players in seat order; ``mover``: 1 for the player who moved up from the table
    # (at the top table: stayed there) as its close recorded it, a correction made after the
    # close leaving the moves as made; until the close (and for the drive's last hand, which
    # moves nobody), whom the result names to move up, and nobody at a table not played.
    # ``corrected``: the organiser changed the result after it was entered (the log says how).
    # ``ended_by``: how a hand played on the phones ended, in its game's code ("stopped": the
    # organiser's bell); blank for a hand played with cards, and once the organiser corrected
    # it (their answers replace the engine's record). ``entered_by``: the player whose phone
    # entered the result (kept when the organiser corrected it: ``corrected`` says so),
    # "organiser" for the organiser's own entry, blank for a hand played on the phones or not
    # played. ``confirmed_by``: see ``_confirmed_by``. ``bot_stood_in``: 1 when a bot played
    # this player's seat for them for some of a hand on the phones (the organiser's stand-in,
    # kept once the seat was given back: ``TableHand.bot_played_for``).
    # ``answers``: what the result answered, in its form's words (the table's questions, then
    # this player's), so that each row's points can be explained from the game's own questions.
    writer.writerow([*HANDS_CSV_BEFORE, *(f.hand_key for f in facts), *HANDS_CSV_AFTER])
    game = drive.game_rules
    for result_scores in _by_result(selectors.hand_scores(drive)):
        result = result_scores[0].result
        answers = _answers(game, result, [s.player.name for s in result_scores])
        moved_up = result.table.moved_up_id or (None if "not_played" in result.summary else result.mover_id)
        played_for = set(result.table.bot_played_for or [])
        for seat, (s, said) in enumerate(zip(result_scores, answers)):
            writer.writerow([
                s.hand_number, result.table.number, _cell(s.player.name), s.points,
                *(int(s.details.get(f.key, 0)) for f in facts), int(s.player_id == moved_up),
                result.status, result.source, int(s.corrected), result.ended_by, _entered_by(result),
                _confirmed_by(result, s.corrected, s.reviewed), int(seat in played_for),
                _cell(said),
            ])
    return response


def _by_result(scores):
    """The scores, in their order, a list for each result (a table's scores come together)."""
    group: list = []
    for score in scores:
        if group and score.result_id != group[0].result_id:
            yield group
            group = []
        group.append(score)
    if group:
        yield group


def _answers(game, result, names: list[str]) -> list[str]:
    """Each seat's ``answers`` cell: the table's answers, then the seat's own."""
    try:
        spec = game.entry_spec(len(names))
    except ValueError:  # (a GameError: a table size the game does not play)
        return [""] * len(names)
    table, seats = answer_words(spec, names, result.summary, quiet=True)

    def said(pairs) -> list[str]:
        return [f"{question} {answer}" if question.endswith("?") else f"{question}: {answer}" for question, answer in pairs]

    return ["; ".join([*said(table), *said(seat)]) for seat in seats]


def _entered_by(result) -> str:
    if result.entered_by_id is not None:
        return _cell(result.entered_by.name)
    return "organiser" if result.source == result.Source.ORGANISER else ""


def _confirmed_by(result, corrected: bool, reviewed: bool) -> str:
    """A phone's entry as it stands, confirmed: by whom, "organiser" when the organiser saved it
    as it stood (``reviewed`` and not ``corrected``: confirmed, or upheld against a dispute), or
    "close" when nobody did (as the result page says,
    templates/scoring/partials/result_origin.html). Blank otherwise: not confirmed, or the
    organiser's answers (a correction), or no phone's entry ("confirmed_by" also holds who
    disputed an entry)."""
    if corrected or result.status != result.Status.CONFIRMED or result.entered_by_id is None:
        return ""
    if reviewed:
        return "organiser"
    return _cell(result.confirmed_by.name) if result.confirmed_by is not None else "close"


@beside_the_pages
@login_required
def standings_csv(request, drive_id: int):
    drive = drive_for_organiser(request, drive_id)
    response, writer = _csv_response(drive, "standings")
    # The rank as a number and a tie as its own column: "=3", as the board writes it, would be
    # a formula to a spreadsheet.
    writer.writerow([*STANDINGS_CSV_BEFORE, *(f.key for f in drive.game_rules.facts), *STANDINGS_CSV_AFTER])
    for r in selectors.standings(drive):
        placed = bool(r.row.hands_played)  # no hand played: no place, as every page shows ("–")
        writer.writerow([r.rank if placed else "", int(r.tied) if placed else "", _cell(r.name), r.total, *r.facts,
                         r.row.hands_played, int(r.row.left), int(r.row.bot)])
    return response
