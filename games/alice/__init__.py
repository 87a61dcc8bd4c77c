"""Alice (the Disney card game, 2-6 players): ask for cards, collect sets of five. Rules:
docs/rules.md, "Alice" (authority shared/design/ALICE.md, from the leaflet 000_60e1d3982d3b7949).

Public API: ``deck``, ``hand_size``, ``AliceHand`` (digital play; its module docstring describes
the actions, the pending ask and the timeouts), ``bot_action``, ``simulate``, ``card_name`` and the
game object ``ALICE``, registered as "alice". Nothing here imports Django.
"""

from __future__ import annotations

import random
from typing import Any

from .. import register
from ..base import Fact, Game, GameError, Outcome, Prize
from .bots import bot_action
from .cards import CAT, PACK, RABBIT, SETS, TITLES, card_name, check_players, deck, hand_size
from .entry import entry_spec, outcome_from_summary, summary_of_hand
from .hand import DEFAULT_ANSWER_SECONDS, AliceHand
from .simulate import parse_bots, report_lines, simulate


class Alice(Game):
    """The ``games.base.Game`` for Alice. It has no house rules."""

    slug = "alice"
    name = "Alice"
    min_players = 2
    max_players = 6
    # Standings: points, then hands won (moved up), then the most sets laid in one hand.
    facts = (
        Fact(key="hands_won", label="Hands won", note="won the hand"),
        Fact(key="best_hand_sets", label="Best hand (sets)", best=True),
    )
    prizes = (Prize(key="most_hands_won", title="Most hands won", fact="hands_won"),)
    tie_break_words = "Level on points? More hands won first, then the most sets laid in one hand."
    movement_words = ("After each hand the player who laid the most sets moves UP a table and the player "
                      "on their left moves DOWN.")
    how_to_play = (
        "On your turn take a card from the face-up row, or ask another player for a card of a set you hold. "
        "They must give it, unless they play a White Rabbit to refuse; a Cheshire Cat gives the asker a second "
        "try. A set of five cards of one letter is laid at once: 5 points each. Most sets moves up."
    )
    # View keys that change without changing what a seat decides on (tables.digital.seat_basis):
    # the log (and where the view's part of it starts), the version, the server's deadline.
    chatter_keys = ("version", "log", "log_from", "deadline")

    def entry_spec(self, players: int) -> dict[str, Any]:
        return entry_spec(players)

    def hand_summary(self, state: AliceHand) -> dict[str, Any]:
        """A digital hand as an entry summary (for the organiser's correction form)."""
        return summary_of_hand(state)

    def outcome_from_summary(self, players: int, summary: dict[str, Any]) -> Outcome:
        return outcome_from_summary(players, summary)

    def new_hand(self, players: int, rng: random.Random) -> AliceHand:
        """A dealt hand; the dealer is drawn with ``rng`` (seeded by the drive, in the hand's log)."""
        n = check_players(players)
        dealer = rng.randrange(n)
        return AliceHand.new(n, rng, dealer)

    def load_hand(self, data: dict[str, Any]) -> AliceHand:
        return AliceHand.load(data)

    def bot_action(self, state: AliceHand, seat: int, rng: random.Random) -> dict[str, Any] | None:
        return bot_action(state, seat, rng, "smart")

    def screen_data(self) -> dict[str, Any]:
        """For static/games/alice/play.js: every set card's title, the sets' letters, the answer time."""
        return {"titles": TITLES, "sets": SETS, "answer_seconds": DEFAULT_ANSWER_SECONDS}


ALICE = register(Alice())

__all__ = [
    "ALICE",
    "CAT",
    "DEFAULT_ANSWER_SECONDS",
    "PACK",
    "RABBIT",
    "SETS",
    "Alice",
    "AliceHand",
    "GameError",
    "bot_action",
    "card_name",
    "deck",
    "hand_size",
    "outcome_from_summary",
    "parse_bots",
    "report_lines",
    "simulate",
]
