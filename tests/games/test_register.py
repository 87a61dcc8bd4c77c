"""Registering a game: its facts become columns of the CSV exports beside the drive's own
(games.base.HANDS_CSV_BEFORE/AFTER, STANDINGS_CSV_BEFORE/AFTER), so a clash is refused then."""

from __future__ import annotations

import pytest

import games
from games.base import HANDS_CSV_AFTER, HANDS_CSV_BEFORE, STANDINGS_CSV_AFTER, STANDINGS_CSV_BEFORE, Fact, Game


def toy(*facts: Fact) -> Game:
    return type("Toy", (Game,), {"slug": "toy", "name": "Toy", "min_players": 2, "max_players": 4,
                                 "facts": facts})()


@pytest.fixture
def registry(monkeypatch):
    monkeypatch.setattr(games, "_REGISTRY", dict(games._REGISTRY))
    return games._REGISTRY


def test_a_game_whose_facts_name_columns_of_their_own_is_registered(registry):
    game = games.register(toy(Fact(key="tricks", label="Tricks"), Fact(key="hands_won", label="Hands won", hand_key="won")))
    assert registry["toy"] is game


@pytest.mark.parametrize("column", [*HANDS_CSV_BEFORE, *HANDS_CSV_AFTER])
def test_a_facts_hand_key_that_is_one_of_the_hands_csvs_own_columns_is_refused(registry, column):
    with pytest.raises(ValueError, match=f"Toy cannot be registered: the fact 'x' has the hand_key '{column}', "
                                         "one of the hands CSV's own columns"):
        games.register(toy(Fact(key="x", label="X", hand_key=column)))
    assert "toy" not in registry


@pytest.mark.parametrize("column", [*STANDINGS_CSV_BEFORE, *STANDINGS_CSV_AFTER])
def test_a_facts_key_that_is_one_of_the_standings_csvs_own_columns_is_refused(registry, column):
    with pytest.raises(ValueError, match=f"the fact '{column}' has the key '{column}', one of the standings CSV's own"):
        games.register(toy(Fact(key=column, label="X", hand_key="x")))
    assert "toy" not in registry


def test_two_facts_under_one_column_are_refused(registry):
    with pytest.raises(ValueError, match="two facts have the hand_key 'sets', one column of the hands CSV"):
        games.register(toy(Fact(key="sets", label="Sets"), Fact(key="best", label="Best", best=True, hand_key="sets")))
    with pytest.raises(ValueError, match="two facts have the key 'sets', one column of the standings CSV"):
        games.register(toy(Fact(key="sets", label="Sets"), Fact(key="sets", label="Sets again", hand_key="more")))
    assert "toy" not in registry

