"""Pure game rules. Nothing here imports Django (see docs/architecture.md)."""

from __future__ import annotations

from importlib import import_module

from .base import Fact, Game, GameError, HouseRule, Outcome, Prize, csv_clashes

_REGISTRY: dict[str, Game] = {}


def register(game: Game) -> Game:
    """Register ``game`` by its slug. Refused (``ValueError``): facts whose columns would clash in
    the CSV exports (``games.base.csv_clashes``)."""
    clashes = csv_clashes(game.facts)
    if clashes:
        raise ValueError(f"{type(game).__name__} cannot be registered: {'; '.join(clashes)}.")
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
    """Every registered game: the built-in ones in ``BUILTIN``'s order, then any other."""
    _load_builtin()

    def place(game: Game) -> int:
        package = type(game).__module__.split(".")[1] if type(game).__module__.startswith("games.") else ""
        return BUILTIN.index(package) if package in BUILTIN else len(BUILTIN)

    return sorted(_REGISTRY.values(), key=place)


def game_named(slug: str | None) -> Game:
    """The game a command's ``--game`` names, the default game for None; an unknown slug is a
    ``GameError`` naming the registered games (``manage.py demo_drive``, ``manage.py simulate``)."""
    try:
        return get_game(default_slug() if slug is None else slug)
    except GameError:
        known = ", ".join(g.slug for g in all_games())
        raise GameError(f"Unknown game {slug!r}; the registered games are: {known}.") from None


def default_slug() -> str:
    """The game a new drive plays unless the organiser chooses another: the first built-in."""
    return all_games()[0].slug


# The game packages shipped here, each registering its game when imported; the first is the
# default game of a new drive. A new game adds its package's name.
BUILTIN = ("film_fantasy", "alice", "wonderland")


def _load_builtin() -> None:
    for package in BUILTIN:
        import_module(f"{__name__}.{package}")


__all__ = ["Fact", "Game", "GameError", "HouseRule", "Outcome", "Prize", "all_games", "default_slug", "game_named", "get_game", "register"]
