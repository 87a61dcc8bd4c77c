"""Points and the mover of an Alice hand (docs/rules.md, "Alice": "Laying sets, the end and
scoring", "The mover"), shared by the digital hand and the entry of a hand played with cards."""

from __future__ import annotations

POINTS_PER_SET = 5


def mover_of(sets: list[int], lay_order: list[int], dealer: int) -> int:
    """The seat that moves up: most sets; ties to the tied seat that laid a set most recently
    (``lay_order``: the seat of every set laid, in order); nobody laid one: the dealer's left."""
    best = max(sets)
    if best == 0:
        return (dealer + 1) % len(sets)
    tied = [s for s, k in enumerate(sets) if k == best]
    if len(tied) == 1:
        return tied[0]
    return next(s for s in reversed(lay_order) if s in tied)


def standing_facts(sets: list[int], mover: int) -> list[dict[str, int]]:
    """Each seat's standings facts for a hand (``games.base.Fact``): the sets it laid (the
    standings keep the best hand's), and a hand won for the mover."""
    facts: list[dict[str, int]] = [{"best_hand_sets": k} for k in sets]
    facts[mover]["hands_won"] = 1
    return facts
