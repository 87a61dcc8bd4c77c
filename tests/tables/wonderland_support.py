"""Wonderland's card codes in what a phone receives (tests of digital play)."""

from __future__ import annotations

from games.wonderland.cards import PACK
from tests.view_strings import strings_in

CARDS = frozenset(PACK)
PUBLIC = {"pool_of_tears"}  # the house rule's card: a rule, not a card dealt


def cards_in(frame) -> set[str]:
    """Every Wonderland card code anywhere in a frame (also inside messages), except the house
    rule's Pool of Tears card."""
    return {w for text in strings_in(frame, PUBLIC) for w in (w.strip(".,:;()!?'\"") for w in text.split())
            if w in CARDS}
