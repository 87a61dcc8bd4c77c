"""What a digital table's screens show beside a seat's view: the table's facts (its number, the
hand's, whether anyone moves after it, who sits where, the drive's words), read for every socket
of the table (``tables.consumers``) and told again when the seats change
(``tables.digital.tell_seats``).

A read, not a write: the writes of a hand played on the phones are ``tables.digital``'s.
"""

from __future__ import annotations

from typing import Any, Callable

from tables.models import Hand, Seat, TableHand

# Registered at start-up (``drive.apps``), so that the tables need not import the drive: with the
# table (its hand and drive read) and its facts, what the drive adds (``table_facts``).
facts_readers: list[Callable[[TableHand, dict[str, Any]], dict[str, Any]]] = []


def waits_for_phone(seat: Seat, bots: set[int]) -> bool:
    """Whether the hand waits at ``seat`` for a phone: a person (not a bot, and no bot playing
    the seat for them, ``bots``) whose phone has not joined the drive, or was signed out. Said on
    the table's phones (``seat_names``) and on the dashboard's table card."""
    return seat.position not in bots and not seat.player.is_bot and seat.player.phone_joined_at is None


def seat_names(table: TableHand) -> list[dict[str, Any]]:
    """Who sits where, for the phones: position, name, whether the server plays the seat (``bot``),
    and ``away``: a person whose phone has not joined the drive (or was signed out), whom no bot
    plays for: the hand waits for them, and the phones say so (the organiser can have a bot stand
    in). Told again when such a phone joins or is signed out (``tables.digital.seats_message``)."""
    bots = set(table.bots or [])
    seats = table.seats.select_related("player", "player__bot").order_by("position")
    return [{"position": s.position, "name": s.player.name, "bot": s.position in bots, "away": waits_for_phone(s, bots)}
            for s in seats]


def table_facts(table_id: int) -> dict[str, Any]:
    """What a table's sockets show beside a view: its number, the hand's, whether its result is in
    (``over``), whether anyone moves after it (not after the drive's last, nor at a lone table), who
    sits where; and the drive's words (``facts_readers``): who moves how (``movement``), or the end."""
    table = TableHand.objects.select_related("hand__drive").defer("state", "client_keys").get(pk=table_id)
    hand = table.hand
    moves = not hand.drive.is_last_hand(hand.number) and (table.number > 1 or hand.tables.filter(number=2).exists())
    facts = {"id": table.pk, "table": table.number, "hand": hand.number, "over": table.status != TableHand.Status.PLAYING,
             "moves": moves, "ending": "", "movement": [], "seats": seat_names(table)}
    for reader in facts_readers:
        facts.update(reader(table, facts))
    return facts


def digital_seat_of(drive, player) -> Seat | None:
    """The player's seat at a digital table in the drive's current hand, or None."""
    return (
        Seat.objects.select_related("table", "table__hand")
        .filter(hand=Hand.objects.current_id(drive), player=player, table__play_mode=TableHand.PlayMode.DIGITAL)
        .first()
    )
