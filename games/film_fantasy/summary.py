"""Points for a physically played hand entered on a phone (docs/rules.md, "Entering a played hand").

The summary says who declared and, per seat, what scoring groups they showed. It is checked for
impossibilities, turned into a representative card holding per seat, and scored by ``score_hand``
(one source of truth for points).

    {"declarer": 2 | None, "nine_card": bool, "dealer": 0 (optional),
     "holdings": [{"sets": 1, "ice": "none", "ice2": "none" (two packs only, optional)}, ...]}
"""

from __future__ import annotations

from typing import Any

from ..base import GameError, Outcome, and_list
from .cards import FILM_CARDS, ICE_CARDS, JOKER, check_players, end_hand_size, packs_for, regular_sets_in_play
from .scoring import declaration, score_hand, standing_facts

# Ice Follies groups a seat can show: (Ice Follies cards by number 1-4, Jokers)
ICE_GROUPS: dict[str, tuple[tuple[int, int, int, int], int]] = {
    "none": ((0, 0, 0, 0), 0),
    "four": ((1, 1, 1, 1), 0),
    "five": ((1, 1, 1, 1), 1),
    "joker_three": ((1, 1, 1, 0), 1),  # which three does not change any score; 1-2-3 is the representative
    "joker": ((0, 0, 0, 0), 1),
}
# The entry form's answer for the set of five (entry.ICE_CHOICES), named in the refusal below.
FIVE_ANSWER = "The four with the Joker (+10)"
_SUMMARY_KEYS = {"declarer", "nine_card", "holdings", "dealer"}
_HOLDING_KEYS = {"sets", "ice", "ice2"}


def _is_int(x: Any) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def _seat(value: Any, players: int, what: str) -> int | None:
    if value is None:
        return None
    if not _is_int(value) or not 0 <= value < players:
        raise GameError(f"{what} must be a seat from 0 to {players - 1} or empty, not {value!r}.")
    return value


def representative_hands(players: int, summary: dict[str, Any]) -> tuple[list[list[str]], int | None, bool, int | None]:
    """Validate ``summary`` and build one card holding per seat that shows exactly those groups.

    Returns (hands, declarer, nine_card, dealer). Raises GameError saying what is impossible.
    """
    n = check_players(players)
    packs = packs_for(n)
    if not isinstance(summary, dict):
        raise GameError("The hand summary must be an object with 'declarer' and 'holdings'.")
    extra = sorted(str(k) for k in summary if k not in _SUMMARY_KEYS)
    if extra:
        raise GameError(f"Unknown summary field(s) {extra}.")
    if "holdings" not in summary:
        raise GameError("The hand summary needs 'holdings', one entry per seat.")
    declarer = _seat(summary.get("declarer"), n, "The declarer")
    dealer = _seat(summary.get("dealer"), n, "The dealer")
    nine = summary.get("nine_card", False)
    if not isinstance(nine, bool):
        raise GameError(f"'nine_card' must be true or false, not {nine!r}.")
    if nine and declarer is None:
        raise GameError("A nine-card declaration needs a declarer.")
    holdings = summary["holdings"]
    if not isinstance(holdings, list) or len(holdings) != n:
        raise GameError(f"'holdings' must list one entry per seat: {n} at this table.")

    sets: list[int] = []
    groups: list[list[str]] = []
    for seat, h in enumerate(holdings):
        if not isinstance(h, dict):
            raise GameError(f"Seat {seat}: the holding must be an object with 'sets' and 'ice'.")
        bad = sorted(str(k) for k in h if k not in _HOLDING_KEYS)
        if bad:
            raise GameError(f"Seat {seat}: unknown field(s) {bad}.")
        k = h.get("sets", 0)
        if not _is_int(k) or k < 0:
            raise GameError(f"Seat {seat}: 'sets' must be a whole number of at least 0, not {k!r}.")
        seat_groups = [h.get("ice", "none")]
        if "ice2" in h:
            if packs == 1:
                raise GameError(f"Seat {seat}: 'ice2' (a second Ice Follies group) needs two packs (6+ players).")
            seat_groups.append(h["ice2"])
        for g in seat_groups:
            if not isinstance(g, str) or g not in ICE_GROUPS:
                raise GameError(f"Seat {seat}: Ice Follies group must be one of {sorted(ICE_GROUPS)}, not {g!r}.")
        if sorted(seat_groups) == ["four", "joker"]:
            raise GameError(f"Seat {seat}: a Joker beside an Ice Follies four is a set of five: choose "
                            f"\"{FIVE_ANSWER}\" in place of the two groups.")
        sets.append(k)
        groups.append([g for g in seat_groups if g != "none"])

    # Regular sets: the films left in play at this table size (rules: "Cards in play").
    declared_sets = 0 if declarer is None else (1 if nine else 2)
    regular_available = regular_sets_in_play(n)
    # A declaration takes regular sets first, then Ice Follies fours, whichever are left.
    regular_for_declaration = min(declared_sets, max(0, regular_available - sum(sets)))
    ice_fours_in_declaration = declared_sets - regular_for_declaration
    if sum(sets) + regular_for_declaration > regular_available:
        raise GameError(
            f"{sum(sets)} regular sets entered, but only {regular_available} regular sets are in play "
            f"at {n} players."
        )
    slots = [f for _copy in range(packs) for f in range(1, 11)][:regular_available]
    hands: list[list[str]] = []
    limit = end_hand_size(n)
    for seat in range(n):
        cards: list[str] = []
        take = sets[seat] + (regular_for_declaration if seat == declarer else 0)
        for f in slots[:take]:
            cards.extend(FILM_CARDS[f])
        del slots[:take]
        if seat == declarer:
            cards.extend(ICE_CARDS * (ice_fours_in_declaration + (1 if nine else 0)))
            if nine:
                cards.append(JOKER)
        for g in groups[seat]:
            numbers, j = ICE_GROUPS[g]
            cards.extend(c for c, x in zip(ICE_CARDS, numbers) if x)
            cards.extend([JOKER] * j)
        if len(cards) > limit and seat == declarer:
            declared = 9 if nine else 8  # (the seat's rows are the cards outside the declaration)
            raise GameError(
                f"Seat {seat} declared: the declaration is {declared} of the {limit} cards a hand ends with at "
                f"{n} players, which leaves {limit - declared} beside it, and what was entered for them needs "
                f"{len(cards) - declared}."
            )
        if len(cards) > limit:
            raise GameError(
                f"Seat {seat}: what was entered needs {len(cards)} cards, but at {n} players a hand ends "
                f"with {limit}."
            )
        hands.append(cards)
    # The pack's limits after each seat's own: a seat's impossible hand is the clearer message.
    jokers = sum(ICE_GROUPS[g][1] for gs in groups for g in gs) + (1 if nine else 0)
    if jokers > packs:
        where = [s for s, gs in enumerate(groups) if any(ICE_GROUPS[g][1] for g in gs)]
        also = " plus the nine-card declaration" if nine else ""
        raise GameError(
            f"{jokers} Jokers entered ({and_list([f'Seat {s}' for s in where])}{also}); "
            f"{'one pack has' if packs == 1 else 'two packs have'} "
            f"only {packs}."
        )
    ice_used = [0, 0, 0, 0]
    for gs in groups:
        for g in gs:
            for i, x in enumerate(ICE_GROUPS[g][0]):
                ice_used[i] += x
    for i in range(4):
        ice_used[i] += ice_fours_in_declaration + (1 if nine else 0)
    if max(ice_used) > packs:
        # Said with what the declaration itself lays (its Ice Follies four, or the nine-card
        # declaration's), which the groups entered count on top of.
        also = " and the declaration's" if ice_fours_in_declaration or nine else ""
        raise GameError(
            f"The Ice Follies groups entered{also} need {sum(ice_used)} Ice Follies cards "
            f"({max(ice_used)} of one card); {'one pack has' if packs == 1 else 'two packs have'} "
            f"{4 * packs}, {packs} of each card."
        )
    return hands, declarer, nine, dealer


def outcome_from_summary(players: int, summary: dict[str, Any], *, declarer_joker_penalty: bool = True) -> Outcome:
    """The Outcome of a physically played hand (see the module docstring for the summary)."""
    hands, declarer, nine, dealer = representative_hands(players, summary)
    if declarer is not None and len(declaration(hands[declarer]) or ()) == 9 and not nine:
        raise GameError(
            f"Seat {declarer} declared eight cards but also shows an Ice Follies four with a Joker: "
            "that is a nine-card declaration."
        )
    points = score_hand(hands, declarer, declarer_joker_penalty=declarer_joker_penalty)
    if declarer is not None:
        mover = declarer
    else:
        # Top scorer moves; ties to the first clockwise from the dealer's left (seat 0 without a dealer).
        first = 0 if dealer is None else (dealer + 1) % players
        best = max(points)
        mover = next(s for s in ((first + k) % players for k in range(players)) if points[s] == best)
    return Outcome(points=points, mover=mover, winner=declarer, facts=standing_facts(players, declarer, nine),
                   details={"nine_card": nine})
