"""Who deals a hand on the phones when the game's own draw is not made: a home game (a drive of
one table) passes the deal to the left after each hand (docs/rules.md); a drive's tables draw
before every hand, as their people change."""

from __future__ import annotations

from games import GameError, get_game
from tables.models import Hand, TableHand


def home_dealer(hand: Hand, table: TableHand) -> int | None:
    """The seat on the left of the last hand's dealer, when ``hand`` is a home game's (the
    drive's one table) and its last hand was played on the phones by the same people in the
    same seats. Otherwise None, and the game draws the dealer (``Game.new_hand``)."""
    if hand.number == 1 or hand.tables.count() != 1:
        return None
    before = list(TableHand.objects.filter(hand__drive_id=hand.drive_id, hand__number=hand.number - 1)[:2])
    if len(before) != 1 or before[0].state is None:
        return None
    people = [list(t.seats.order_by("position").values_list("player_id", flat=True)) for t in (before[0], table)]
    if people[0] != people[1]:
        return None
    try:
        state = get_game(before[0].state["game"]).load_hand(before[0].state)
        return (state.dealer + 1) % len(people[1])
    except (GameError, KeyError, TypeError, AttributeError):  # a stored hand that cannot be read: draw
        return None
