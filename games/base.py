"""The small interface through which the drive talks to a game.

The drive (models, movement, standings, pages) knows nothing about cards. Everything
game-specific comes from a module in ``games/`` that provides one ``Game`` object:

- how many players a table may have;
- how a physically played hand is entered (a JSON-able *summary* of what happened) and turned
  into points, refusing impossible entries with a ``ValueError`` that says what is wrong;
- who counts as the declarer for movement;
- for digital play, a state machine (``new_hand`` / ``load_hand``) with per-seat views.

Film Fantasy is the first game; Alice (turn-based asking) and Alice in Wonderland
(trick-taking) fit the same shape: each ends a hand with points per seat and one seat that
moves up.

This package imports nothing from Django.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any, Protocol, Sequence


class GameError(ValueError):
    """A refused input or action; the message says what is wrong, in players' words."""


@dataclass(frozen=True)
class Outcome:
    """The result of one finished hand at one table.

    ``points[i]`` is seat i's score for the hand. ``mover`` is the seat that moves up a table
    (the declarer, or whoever the game's rules say counts as declarer when nobody declared).
    ``declarer`` is the seat that declared, or None. ``details`` holds game-specific facts used
    by tie-breaks (for Film Fantasy: ``{"nine_card": bool}``).
    """

    points: list[int]
    mover: int
    declarer: int | None = None
    details: dict[str, Any] = field(default_factory=dict)


class HandState(Protocol):
    """A digital hand. Every accepted action bumps ``version``; refused ones change nothing."""

    version: int
    finished: bool

    def apply(self, seat: int, action: dict[str, Any]) -> None: ...
    def view(self, seat: int | None) -> dict[str, Any]: ...
    def to_json(self) -> dict[str, Any]: ...
    def outcome(self) -> Outcome: ...
    def stop(self) -> None: ...


class Game(Protocol):
    slug: str
    name: str
    min_players: int
    max_players: int

    def with_rules(self, rules: dict[str, Any]) -> "Game": ...
    def entry_spec(self, players: int) -> dict[str, Any]: ...
    def hand_summary(self, state: HandState) -> dict[str, Any]: ...
    def outcome_from_summary(self, players: int, summary: dict[str, Any]) -> Outcome: ...
    def new_hand(self, players: int, rng: random.Random) -> HandState: ...
    def load_hand(self, data: dict[str, Any]) -> HandState: ...
    def bot_action(self, state: HandState, seat: int, rng: random.Random) -> dict[str, Any] | None: ...


def check_table_size(game: Game, players: Sequence[Any] | int) -> int:
    n = players if isinstance(players, int) else len(players)
    if not isinstance(n, int) or isinstance(n, bool) or not game.min_players <= n <= game.max_players:
        raise GameError(
            f"{game.name} is played by {game.min_players} to {game.max_players} players "
            f"at a table, not {n}."
        )
    return n
