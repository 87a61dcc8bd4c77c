"""What every write of the drive shares: its refusals, the stale-page check, the drive's lock."""

from __future__ import annotations

from drive.models import Drive
from tables.models import Hand

class DriveError(Exception):
    """A refused request; the message says what is wrong and what to do."""


class ImpossibleAnswers(DriveError):
    """A result's answers the game refuses (more cards than its pack holds): a form's
    page may drop the refusal once the answers have been mended (``static/js/preview.js``)."""


class StaleForm(DriveError):
    """A form shown for another hand (or table) than the one it would now act on: refused, and
    nothing written. A page's script recognises it (``"stale": true`` in JSON answers)."""


class NotThisPlayersForm(StaleForm):
    """A phone's form shown to another player than the one its cookie names now (an entry left
    queued on the phone, then "Leave this phone" and someone else joined), or naming no player:
    refused like any stale form, and nothing written. Its own kind, so that a page's script does
    not say the hand had moved on (``"player": true`` beside ``"stale": true`` in JSON answers)."""


def hand_now(hand: Hand | None) -> str:
    if hand is None:
        return "no seating has been drawn"
    if hand.status == Hand.Status.SEATING:
        return f"the seating for hand {hand.number} is shown"
    if hand.status == Hand.Status.PLAYING:
        return f"hand {hand.number} has started"
    return f"hand {hand.number} is over"


def check_shown_hand(drive: Drive, hand: Hand | None, shown: int | None) -> None:
    """The organiser's form acts on the hand it showed (``shown``; 0 before any seating), or on
    nothing: a stale page (a second tab, the back button) is refused. ``None``: no form (the
    demo, the tests' set-ups), nothing to check. A finished drive is refused first, saying so
    (a page left open as it ended was told which hand it had shown)."""
    if drive.is_finished:
        raise DriveError("This drive has finished.")
    current = hand.number if hand is not None else 0
    if shown is not None and shown != current:
        raise StaleForm(f"{hand_now(hand).capitalize()}; this page showed hand {shown}. Look again.")


def lock(drive: Drive) -> Drive:
    """The drive's row, locked against the other services' writes until the commit. (PostgreSQL:
    FOR NO KEY UPDATE, which a result's or a score's foreign key check, FOR KEY SHARE, does not
    wait for: a digital table's last move holds its table's lock and then inserts its result,
    while a service holding the drive may then lock that table; FOR UPDATE would make a cycle.)"""
    return Drive.objects.select_for_update(no_key=True).get(pk=drive.pk)
