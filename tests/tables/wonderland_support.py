"""Wonderland's card codes in what a phone receives (tests of digital play)."""

from __future__ import annotations

from games.wonderland.cards import PACK

CARDS = frozenset(PACK)
PUBLIC = {"pool_of_tears"}  # the house rule's card: a rule, not a card dealt


def cards_in(frame, found: set | None = None) -> set[str]:
    """Every Wonderland card code anywhere in a frame (also inside messages), except the house
    rule's Pool of Tears card."""
    found = set() if found is None else found
    if isinstance(frame, dict):
        for k, v in frame.items():
            if k not in PUBLIC:
                cards_in(v, found)
    elif isinstance(frame, list):
        for v in frame:
            cards_in(v, found)
    elif isinstance(frame, str):
        found.update(w for w in (w.strip(".,:;()!?'\"") for w in frame.split()) if w in CARDS)
    return found
