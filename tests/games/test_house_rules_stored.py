"""A stored hand carries the house rules it plays by: digital play loads, moves and bots a table's
hand with the registered game (``games.get_game(state["game"])``, tables/digital.py, tables/bots.py,
tables/dealer.py), not the drive's configured one, so the hand must say each rule itself."""

from __future__ import annotations

import json
import random

import pytest

from games import all_games, get_game

RULES = [(game, rule, value) for game in all_games() for rule in game.house_rules
         for value in ([not rule.default] if rule.kind == "bool" else [v for v, _ in rule.choices if v != rule.default])]


@pytest.mark.parametrize("game, rule, value", RULES, ids=lambda x: getattr(x, "slug", getattr(x, "key", str(x))))
def test_a_hand_dealt_under_a_house_rule_keeps_it_when_the_registered_game_loads_it(game, rule, value):
    configured = get_game(game.slug, {rule.key: value})
    players = max(game.min_players, min(4, game.max_players))
    ruled = json.loads(json.dumps(configured.new_hand(players, random.Random(1)).to_json()))
    plain = json.loads(json.dumps(game.new_hand(players, random.Random(1)).to_json()))
    assert ruled != plain, f"{game.slug}'s stored hand does not say {rule.key}"
    assert get_game(ruled["game"]).load_hand(ruled).to_json() == ruled
