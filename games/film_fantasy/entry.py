"""The questions a phone (or the organiser) answers about a physically played hand.

The drive renders this spec as a form and sends the answers back as the summary that
``outcome_from_summary`` scores (docs/rules.md, "Entering a played hand").
"""

from __future__ import annotations

from collections import Counter
from itertools import product
from typing import Any

from .cards import FILM_CARDS, ICE_CARDS, JOKER, REGULAR_FILMS, check_players, end_hand_size, packs_for
from .scoring import holding_points
from .summary import FIVE_ANSWER, ICE_GROUPS

ICE_CHOICES = [
    ["none", "No Ice Follies group"],
    ["four", "The Ice Follies four (+5)"],
    ["five", FIVE_ANSWER],
    ["joker_three", "Joker with three Ice Follies (+5)"],
    ["joker", "The Joker alone (-5)"],
]


def entry_spec(players: int) -> dict[str, Any]:
    n = check_players(players)
    most_sets = end_hand_size(n) // 4
    seat_fields: list[dict[str, Any]] = [
        {
            "name": "sets", "label": "Complete sets of other films (+5 each; none for the declarer)", "type": "choice",
            "choices": [[k, str(k)] for k in range(most_sets + 1)], "default": 0,
        },
        {"name": "ice", "label": "Ice Follies and the Joker", "type": "choice", "choices": ICE_CHOICES, "default": "none"},
    ]
    if packs_for(n) == 2:
        seat_fields.append({
            "name": "ice2", "label": "A second Ice Follies group (two packs)", "type": "choice",
            "choices": ICE_CHOICES, "default": "none", "asked_if": "ice",  # asked once a first is held
        })
    return {
        "table": [
            {"name": "declarer", "label": "Who declared?", "type": "seat", "optional": True,
             "none_label": "Nobody (the hand was stopped)"},
            # Asked once someone declared: "Eight cards" shown beside "Nobody declared" read as an answer.
            {"name": "nine_card", "label": "Which declaration?", "type": "choice", "asked_if": "declarer",
             "choices": [[False, "Eight cards (15)"], [True, "Nine, with the Joker (25)"]], "default": False},
            # No default: the dealer is drawn at the table before every hand (docs/rules.md,
            # "Choosing the dealer"), so the server cannot know it, and a seat chosen in
            # advance would be sent unread and decide who moves up when nobody declared.
            {"name": "dealer", "label": "Who dealt?", "type": "seat",
             "help": "Whoever dealt this hand (where tables change players, whoever received the Joker in "
                     "the draw for the deal). When nobody declared, a tie for top score goes to the first "
                     "on the dealer's left.",
             "missing": "Say who dealt: tap their name."},
        ],
        "seat": seat_fields,
        "seat_help": "If someone declared: for them, only the cards outside the declaration.",
    }


def summary_of_hand(state: Any) -> dict[str, Any]:
    """A finished digital hand in the entry format above, so an organiser's correction form
    starts from what was played. The declarer's holding is the cards outside the declaration.
    With two packs a second Ice Follies group goes in ``ice2``."""
    hands = [list(h) for h in state.hands]
    if state.declarer is not None and state.declaration:
        rest = Counter(hands[state.declarer])
        rest.subtract(state.declaration)
        hands[state.declarer] = list(rest.elements())
    two_packs = packs_for(state.players) == 2
    return {
        "declarer": state.declarer,
        "nine_card": state.nine_card,
        "dealer": state.dealer,
        "holdings": [_holding(h, two_packs) for h in hands],
    }


def _ice_group(ice: list[int], jokers: int) -> str:
    held = sum(1 for n in ice if n)
    if held == 4:
        return "five" if jokers else "four"
    if held == 3 and jokers:
        return "joker_three"
    return "joker" if jokers else "none"


def _group_points(group: str) -> int:
    """What an Ice Follies group scores a seat that did not declare, as the engine scores it."""
    ice, jokers = ICE_GROUPS[group]
    return holding_points(Counter({**{c: 1 for c, k in zip(ICE_CARDS, ice) if k}, JOKER: jokers}))


ICE_POINTS = {group: _group_points(group) for group in ICE_GROUPS}


def _holding(cards: list[str], two_packs: bool) -> dict[str, Any]:
    counts = Counter(cards)
    holding: dict[str, Any] = {
        "sets": sum(min(counts[c] for c in FILM_CARDS[f]) for f in REGULAR_FILMS),
    }
    ice = [counts[c] for c in ICE_CARDS]
    jokers = counts[JOKER]
    if not two_packs:
        holding["ice"] = _ice_group([min(1, n) for n in ice], min(1, jokers))
        return holding
    # Two packs: the two groups that score most, as the engine scores the hand ("choosing the
    # grouping that scores most"). The first takes a Joker if there is one (the groups are
    # alike); which of the Ice Follies cards it takes decides what the second can make: with
    # 1, 1, 2, 2, 3, 4 and two Jokers, two Jokers-with-three (+10), not the five and a Joker
    # alone (+5).
    best = None
    for taken in product(*([1, 0] if n else [0] for n in ice)):  # (all it can first: the usual groups)
        first = _ice_group(list(taken), min(1, jokers))
        second = _ice_group([min(1, n - t) for n, t in zip(ice, taken)], jokers - min(1, jokers))
        points = ICE_POINTS[first] + ICE_POINTS[second]
        if best is None or points > best[0]:
            best = (points, first, second)
    holding["ice"] = best[1]
    if best[2] != "none":
        holding["ice2"] = best[2]
    return holding
