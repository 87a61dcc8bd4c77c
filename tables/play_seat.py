"""Where a player's game screen is now (``tables.consumers.PlayConsumer``): the player's seat at a
table on the phones in the drive's current hand (``Seated``); where they go instead when they have
none (``Elsewhere``); or why this phone may not play here. A read, made as a socket connects and
each time it looks again.

It reads the drive (its code, the phone's player, where the player goes), so it sits in the
layer of the drive's services (``.importlinter``), above the tables' own.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.http import Http404
from django.urls import reverse

from drive import selectors
from drive.access import TooManyCodes, drive_by_code, player_for_scope
from tables import screen_facts


class NoPlayer(str):
    """``find``'s refusal of a phone that holds no player of the drive (its page is sent to joining)."""


@dataclass(frozen=True)
class Seated:
    """A player's seat at a table on the phones in the drive's current hand (``find``)."""

    table_id: int
    seat: int
    hand: int
    table: int
    player_id: int
    token: str
    drive_id: int
    dealt: bool  # the table's hand is dealt (else the phone waits for the organiser to start it)
    move: str = ""  # not dealt: where the player goes, "move UP to Table 2" (``selectors.move_words``)


@dataclass(frozen=True)
class Elsewhere:
    """The frame for a player with no such seat now: an error (an older page shows its message) with
    where to go, ``{"hand", "href", "button"}``, the button to the player's phone page for that hand."""

    frame: dict[str, Any]
    player_id: int
    last_played: int | None  # the hand whose end the screen shows above it (``selectors.Elsewhere``)
    token: str
    drive_id: int
    over: bool  # the drive has finished: nothing more comes to this screen

    @classmethod
    def of(cls, drive, player) -> "Elsewhere":
        where = selectors.elsewhere(drive, player)
        return cls({"type": "error", "message": where.text, "elsewhere": {
            "hand": where.hand, "button": where.button, "href": reverse("phone:me", args=[drive.join_code])}},
            player.pk, where.last_played, player.token, drive.pk, drive.is_finished)


def find(scope: dict[str, Any]) -> Seated | Elsewhere | str:
    """This player's digital seat in the current hand; where they go instead when they have
    none (a table with cards, no table, the drive over: ``selectors.elsewhere``, the frame
    with a link to their phone's page); or why this phone may not play here."""
    try:
        drive = drive_by_code(scope["url_route"]["kwargs"]["code"], scope)
    except Http404:
        return "No drive has that code."
    except TooManyCodes as exc:
        return str(exc)
    player = player_for_scope(scope, drive)
    if player is None:
        if player_for_scope(scope, drive, active_only=False) is not None:
            return NoPlayer("The organiser has taken you out of this drive: ask them to bring you back to play.")
        return NoPlayer("Join the drive on this phone first.")
    seat = None if drive.is_finished else screen_facts.digital_seat_of(drive, player)
    if seat is None:  # (a finished drive: its last hand's seat is no longer played)
        return Elsewhere.of(drive, player)
    dealt = seat.table.state is not None
    return Seated(seat.table_id, seat.position, seat.table.hand.number, seat.table.number, player.pk, player.token,
                  drive.pk, dealt, "" if dealt else selectors.move_words(seat.table.hand, player.pk, seat.table.number))
