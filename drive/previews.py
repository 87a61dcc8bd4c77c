"""The points a result form's answers give, before anything is saved: one preview for the
phone's entry page and the organiser's result page (``static/js/preview.js`` asks for it as the
answers change). The game computes the points exactly as the save does
(``services.outcome_for``); nothing is written.
"""

from __future__ import annotations

from django.http import JsonResponse

from drive import movement
from drive.models import Drive, Player
from drive.services import DriveError, outcome_for, players_at
from scoring.forms import ResultForm
from scoring.models import Result
from tables.models import TableHand


def entry_questions(drive: Drive, table: TableHand, players: list[Player] | None = None) -> tuple[list[Player], dict]:
    """The players seated at ``table`` in seat order (``players``, when the caller has read
    them), and the game's questions about their hand (the spec ``ResultForm`` is built from)."""
    if players is None:
        players = players_at(table)
    return players, drive.game_rules.entry_spec(len(players))


def refused(message: str, **more) -> JsonResponse:
    """An answer the application refuses, in JSON for the pages' scripts: ``ok`` false and why.
    Answered 200, as a form shown again with its errors is: the request was heard and answered
    (the script reads every such answer alike); a 4xx would be logged by the browser as a
    failed load at every refused entry or preview."""
    return JsonResponse({"ok": False, "message": message, **more})


def preview(drive: Drive, table: TableHand, data, *, beside_recorded: bool = False) -> JsonResponse:
    """The points ``data`` (a result form's answers) give each player at ``table``, as JSON:
    ``{"ok": true, "points": [{"name": …, "points": …, "won": …}, …]}`` in seat order (``won``:
    that player wins the hand with these answers; when nobody does, the one who moves has
    ``moves``, the words of it, at a table that is not alone). With ``beside_recorded`` (the organiser
    correcting a result), each row also has ``recorded`` and ``was_won``: that player's points
    in the table's result as it stands and whether they won it (absent when there is none yet).

    Not yet: ``{"ok": false, "incomplete": true, "message": …}`` when a question is unanswered
    or its answer is not one of the choices (the form shows a hint, not an error). Impossible:
    ``{"ok": false, "message": …}``, the game's reason why (the form shows it as an error).
    Both are answers to the question asked, so a 200: a 4xx put an error in the browser's
    console at every tap of a form being filled in."""
    players, spec = entry_questions(drive, table)
    form = ResultForm(spec, [p.name for p in players], data)
    if not form.is_valid():
        return refused("Answer every question.", incomplete=True)
    try:
        outcome = outcome_for(drive, len(players), form.summary(), [p.name for p in players])
    except DriveError as exc:
        return refused(str(exc))
    rows = [{"name": p.name, "points": points, "won": seat == outcome.winner}
            for seat, (p, points) in enumerate(zip(players, outcome.points, strict=True))]
    if outcome.winner is None:  # nobody won outright: who moves up is the game's choice, said (a game may
        # count that player as the hand's winner in its standings fact: "nobody won" would contradict it)
        tables = table.hand.tables.count()
        # No move after the last hand, nor by a correction once the close has moved everybody.
        if tables > 1 and not drive.is_last_hand(table.hand.number) and table.hand.status != table.hand.Status.CLOSED:
            rows[outcome.mover]["moves"] = movement.table_moves(table.number, tables)[0] + " (no outright winner)"
    if beside_recorded:
        result = Result.objects.filter(table=table).prefetch_related("scores").first()
        recorded = {s.player_id: s.points for s in result.scores.all()} if result else {}
        for row, player in zip(rows, players, strict=True):
            if player.pk in recorded:
                row["recorded"] = recorded[player.pk]
                row["was_won"] = result.winner_id == player.pk
        if table.hand.status == table.hand.Status.CLOSED and any(
                "was_won" in row and row["won"] != row["was_won"] for row in rows) and table.moved_up_id is not None:
            # Said before saving, as after it ("now wins the hand" alone would read as a move).
            return JsonResponse({"ok": True, "points": rows, "note": (
                f"The moves made when hand {table.hand.number} closed stand: a correction changes the points, "
                "not who moved.")})
    return JsonResponse({"ok": True, "points": rows})
