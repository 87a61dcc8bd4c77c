"""Pure game rules. Nothing here imports Django (see docs/architecture.md)."""

from __future__ import annotations

from .base import Fact, Game, GameError, HouseRule, Outcome, Prize

_REGISTRY: dict[str, Game] = {}


def register(game: Game) -> Game:
    _REGISTRY[game.slug] = game
    return game


def get_game(slug: str, rules: dict | None = None) -> Game:
    """The game with that slug, with the house rules given (a dict of the game's options).

    Raises GameError for an unknown game or an unknown house rule.
    """
    _load_builtin()
    try:
        game = _REGISTRY[slug]
    except KeyError:
        raise GameError(f"Unknown game {slug!r}.") from None
    return game.with_rules(rules) if rules else game


def all_games() -> list[Game]:
    _load_builtin()
    return list(_REGISTRY.values())


def default_slug() -> str:
    """The game a new drive plays unless the organiser chooses another: the first registered."""
    return all_games()[0].slug


def _load_builtin() -> None:
    if not _REGISTRY:
        from . import film_fantasy  # noqa: F401  (registers itself)


__all__ = ["Fact", "Game", "GameError", "HouseRule", "Outcome", "Prize", "all_games", "default_slug", "get_game", "register"]
