"""The questions a phone (or the organiser) answers about a physically played hand.

The drive renders this spec as a form and sends the answers back as the summary that
``outcome_from_summary`` scores (docs/rules.md, "Entering a played hand").
"""

from __future__ import annotations

from typing import Any

from .cards import check_players, end_hand_size, packs_for

ICE_CHOICES = [
    ["none", "No Ice Follies group"],
    ["four", "The Ice Follies four (+5)"],
    ["five", "The four with the Joker (+10)"],
    ["joker_three", "Joker with three Ice Follies (+5)"],
    ["joker", "The Joker alone (−5)"],
]


def entry_spec(players: int) -> dict[str, Any]:
    n = check_players(players)
    most_sets = end_hand_size(n) // 4
    seat_fields: list[dict[str, Any]] = [
        {
            "name": "sets", "label": "Complete sets of other films (+5 each)", "type": "choice",
            "choices": [[k, str(k)] for k in range(most_sets + 1)], "default": 0,
        },
        {"name": "ice", "label": "Ice Follies and the Joker", "type": "choice", "choices": ICE_CHOICES, "default": "none"},
    ]
    if packs_for(n) == 2:
        seat_fields.append({
            "name": "ice2", "label": "A second Ice Follies group (two packs)", "type": "choice",
            "choices": ICE_CHOICES, "default": "none",
        })
    return {
        "table": [
            {"name": "declarer", "label": "Who declared?", "type": "seat", "optional": True,
             "none_label": "Nobody (the hand was stopped)"},
            {"name": "nine_card", "label": "The declaration", "type": "choice",
             "choices": [[False, "Eight cards (15)"], [True, "Nine, with the Joker (25)"]], "default": False},
            {"name": "dealer", "label": "Who dealt?", "type": "seat", "default": 0,
             "help": "Only matters when nobody declared: a tie for top score goes to the first on the dealer's left."},
        ],
        "seat": seat_fields,
        "seat_help": "For the declarer: only the cards outside the declaration.",
    }
