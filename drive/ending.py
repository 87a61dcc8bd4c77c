"""When a drive ends: after its agreed number of hands, or once a player's counted total reaches
its agreed total (docs/drive-rules.md, "The hand cycle"). Asked by the close (does this close end
the drive?), by a hand's start (has the target been reached since?) and by the dashboard (say
that the close ends it)."""

from __future__ import annotations

from typing import Any

from drive import movement
from drive.models import Drive
from drive.selectors import standings_rows, suspense_from
from scoring import standings as ranking
from scoring.models import Result
from tables.models import Hand, Seat, TableHand

# What a digital table's screens say under its finished hand when its close ends the drive, and
# once it has (``after_hand``), as the phone's page says it (``pages.closing_ends``).
LAST_HAND = "This is the drive's last hand: nobody moves after it, and the final standings come next."
LAST_HAND_PLAYED = "This was the drive's last hand: nobody moved after it."


def target_reached(drive: Drive, hands_played: int, rows: list[ranking.Row] | None = None,
                   tables: int | None = None) -> bool:
    """Whether the drive ends after hand ``hands_played``: its agreed hands played, or its
    agreed total reached by one who can win (a person still in the drive), by the results
    counted so far (asked before a close: whether the close
    ends it). A home game (one table) whose game plays on when players are level at the top
    (``Game.level_at_the_total_plays_on``) plays another hand then, unless its agreed hands end
    it. ``rows`` (each player's counted totals) and ``tables`` (that hand's): when the caller
    has read them (the dashboard), else read here."""
    by_hands = hands_played >= drive.target_hands
    if drive.target == Drive.Target.HANDS:
        return by_hands
    rows = standings_rows(drive, live=True) if rows is None else rows
    # Reached by one who can win: a player who left, or a bot, cannot (else a bot's total
    # could end a drive no person is near the end of).
    totals = sorted((r.total for r in rows if not r.left and not r.bot), reverse=True)
    by_total = bool(totals) and totals[0] >= drive.target_total
    if by_total and drive.game_rules.level_at_the_total_plays_on:
        if tables is None:
            tables = TableHand.objects.filter(hand__drive=drive, hand__number=hands_played).count()
        top = totals[:2]  # level at the top
        by_total = not (tables == 1 and len(top) == 2 and top[0] == top[1] >= drive.target_total)
    return by_total or (by_hands and drive.target == Drive.Target.EITHER)


def after_hand(table: TableHand, facts: dict[str, Any]) -> dict[str, Any]:
    """What follows a digital table's hand, for its screens (``tables.screen_facts.facts_readers``):
    ``moves``, whether anyone moves after it; ``ending``, the words saying the drive ends with
    it; and once its result is in, ``movement`` (``moves_after``). Before the close: by its
    number of hands, or, once the table's result is in, by the total the results counted so far
    reach (``target_reached``; a result elsewhere may still reach it: a finished table's facts
    are read anew at each look), except under suspense, which keeps that secret, as the phone's
    page does (``pages.closing_ends``). After the close: the moves it made (none when it ended
    the drive)."""
    hand, drive = table.hand, table.hand.drive
    if hand.status == Hand.Status.CLOSED:
        made = table.moved_up_id is not None
        return {"moves": facts["moves"] and made, "ending": LAST_HAND_PLAYED if drive.is_finished and not made else "",
                "movement": moves_after(table, table.moved_up_id, done=True) if facts["moves"] and made else []}
    ends = drive.is_last_hand(hand.number)
    if not ends and facts["over"] and drive.target != Drive.Target.HANDS:
        frozen = suspense_from(drive)
        ends = (frozen is None or hand.number <= frozen) and target_reached(drive, hand.number)
    moves = facts["moves"] and not ends
    mover = Result.objects.filter(table=table).values_list("mover_id", flat=True).first() if moves and facts["over"] else None
    return {"moves": moves, "ending": LAST_HAND if ends else "",
            "movement": moves_after(table, mover) if mover is not None else []}


def moves_after(table: TableHand, mover: int, *, done: bool = False) -> list[list[Any]]:
    """Who moves after the table's hand, by seat: ``[[the mover's seat, words], [the seat on
    their left, words]]``, the words as the movement rule says them at this table ("moves up a
    table", "stays at the top table", ``movement.table_moves``; ``done``: as made, "moved up a
    table"); [] when the mover no longer sits there. A player who has left the drive moves
    nowhere (the seating leaves them out): "has left the drive" ("left the drive", once made),
    unless they left after this close, seated at a later hand (as the dashboard's cards say,
    ``drive_tags.result_moves``)."""
    rows = list(table.seats.values_list("player_id", "position", "player__active"))  # one query, read twice
    seats = {player: position for player, position, _active in rows}
    if mover not in seats:
        return []
    at = seats[mover]
    words = movement.table_moves(table.number, table.hand.tables.count(), done=done)
    up, down = (w + " a table" if w.endswith(("up", "down")) else w for w in words)
    moving = [[at, up], [(at + 1) % len(seats), down]]
    by_seat = {position: player for player, position in seats.items()}
    left = {player for player, _position, active in rows if not active}
    gone = left & {by_seat[s] for s, _ in moving}
    if done and gone:
        gone -= set(Seat.objects.filter(player_id__in=gone, hand__drive_id=table.hand.drive_id,
                                        hand__number__gt=table.hand.number).values_list("player_id", flat=True))
    return [[s, ("left the drive" if done else "has left the drive") if by_seat[s] in gone else w] for s, w in moving]
