"""Every game's refusal of a frame quotes what the frame named short: a frame may be 4,000
characters long, and the refusal goes back to the phone whole (Film Fantasy's echoed an unknown
action type of 4,000 characters in full: found by a fuzz from outside)."""

from __future__ import annotations

import importlib
import random

import pytest

from games import GameError, all_games

LONG = "x" * 4000


def long_actions() -> list:
    """Frames naming something 4,000 characters long where each game reads a value."""
    return [{"type": LONG}, {"type": "pass", LONG: 1}, {"type": "play", "card": LONG}, {"type": "take", "card": LONG},
            {"type": "ask", "to": LONG, "card": LONG}, {"type": "offer", "to": LONG, "give": [LONG], "want": [LONG]},
            {"type": "accept", "offer": LONG}, {"type": "pass", "card": LONG}]


@pytest.mark.parametrize("game", all_games(), ids=lambda g: g.slug)
def test_a_refusal_of_a_long_frame_quotes_it_short(game):
    hand = game.new_hand(game.max_players, random.Random(3))
    for seat in range(game.max_players):
        for action in long_actions():
            version = hand.version
            try:
                hand.apply(seat, action)
            except GameError as exc:
                assert len(str(exc)) < 300, (action.get("type", "")[:20], str(exc)[:100])
            assert hand.version == version  # nothing applied
    with pytest.raises(GameError) as err:
        hand.apply(LONG, {"type": "pass"})
    assert len(str(err.value)) < 300


@pytest.mark.parametrize("game", all_games(), ids=lambda g: g.slug)
@pytest.mark.parametrize("rng", [None, 7, "seed"])
def test_a_deal_without_a_random_generator_is_refused(game, rng):
    with pytest.raises(GameError, match="random.Random"):
        game.new_hand(game.min_players, rng)
    deck = getattr(importlib.import_module(type(game).__module__), "deck", None)
    if deck is not None:  # a game's public deck(players, rng), where it has one (the three games do)
        with pytest.raises(GameError, match="random.Random"):
            deck(game.min_players, rng)
