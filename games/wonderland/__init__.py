"""The Game of Alice in Wonderland (Selchow & Righter, 1882): a trick-taking game of pairs.
Rules: docs/rules.md, "The Game of Alice in Wonderland".

Public API: ``deck``, ``deals``, ``legal_plays``, ``trick_winner``, ``count``, ``WonderlandHand``,
``bot_action``, ``simulate`` and the game object ``WONDERLAND``, registered as "wonderland". Nothing here imports Django.
"""

from __future__ import annotations

import random
import re
from typing import Any

from .. import register
from ..base import Fact, Game, GameError, HouseRule, Outcome, Prize, check_rng, check_table_size
from .bots import bot_action
from .cards import (DEFAULT_POOL_OF_TEARS, PACK, PICTURES, cards_in_play, check_pool_of_tears, count, deals, deck,
                    legal_plays, picture_name, trick_winner)
from .entry import entry_spec, outcome_from_summary, summary_of_hand
from .hand import WonderlandHand
from .simulate import parse_bots, report_lines, simulate


class Wonderland(Game):
    """The ``games.base.Game`` for The Game of Alice in Wonderland. ``pool_of_tears`` (a picture
    code, default ``"P16"``) is the one house rule."""

    slug = "wonderland"
    name = "The Game of Alice in Wonderland"
    own_words = r"wonderland|pool[\s_-]*of[\s_-]*tears|\btricks?\b|star[\s_-]*pictures?|plain[\s_-]*pictures?"
    min_players = 2
    max_players = 6
    house_rules = (
        HouseRule(
            key="pool_of_tears", label="The Pool of Tears card (20 points)", default=DEFAULT_POOL_OF_TEARS,
            help="The picture whose taker scores 20: by default the plain picture 16, Alice.",
            choices=tuple((code, picture_name(code))
                          for code in sorted(PICTURES, key=lambda c: (c[0] != "P", int(c[1:]), c))),
        ),
    )
    facts = (Fact(key="pairs", label="Pairs"), Fact(key="cards_taken", label="Cards taken"))
    prizes = (Prize(key="most_pairs", title="Most pairs", fact="pairs", units=("pair", "pairs")),)
    tie_break_words = "Level on points? More pairs first, then more cards taken."
    winner_note = "won the hand"  # the top scorer, its mover (WONDERLAND.md); level, by the tie-breaks
    movement_words = ("After each hand the top scorer moves UP a table and the player on their left "
                      "moves DOWN.")
    target_total = 180  # an average player scores about 24 points a hand (manage.py simulate, four players)
    # View keys that change with other seats' moves but not with what a seat decides on
    # (tables.digital.seat_basis). Play is in turn, so only the version and the log.
    chatter_keys = ("version", "log", "log_from")

    @property
    def how_to_play(self) -> str:  # type: ignore[override]  (names the drive's Pool of Tears card)
        return (
            "Play one card to each trick; the highest card takes it (star pictures beat plain pictures, which beat "
            "numbers; in a set the higher number wins). If a picture lies in the trick and you hold "
            "its mate, you must play the mate; otherwise follow the led set if you can. At the end: 10 points a "
            f"pair taken, 20 for the Pool of Tears card ({self.pool_of_tears_name}), 10 for the most cards."
        )

    @property
    def pool_of_tears_name(self) -> str:
        """The drive's Pool of Tears card as the drive's forms name it ("Plain picture 16")."""
        return picture_name(self.pool_of_tears)

    def __init__(self, *, pool_of_tears: str = DEFAULT_POOL_OF_TEARS) -> None:
        self.pool_of_tears = check_pool_of_tears(pool_of_tears)

    def entry_spec(self, players: int) -> dict[str, Any]:
        return entry_spec(check_table_size(self, players), self.pool_of_tears)

    def hand_summary(self, state: WonderlandHand) -> dict[str, Any]:
        """A finished digital hand as an entry summary (for the organiser's correction form)."""
        return summary_of_hand(state)

    def outcome_from_summary(self, players: int, summary: dict[str, Any]) -> Outcome:
        return outcome_from_summary(check_table_size(self, players), summary, self.pool_of_tears)

    def new_hand(self, players: int, rng: random.Random, dealer: int | None = None) -> WonderlandHand:
        """A shuffled hand; the dealer given, or drawn (seeded, logged, public)."""
        n = check_table_size(self, players)
        if dealer is None:
            dealer = check_rng(rng).randrange(n)
        return WonderlandHand.new(n, rng, dealer, self.pool_of_tears)

    def load_hand(self, data: dict[str, Any]) -> WonderlandHand:
        return WonderlandHand.load(data)

    def bot_action(self, state: WonderlandHand, seat: int, rng: random.Random) -> dict[str, Any] | None:
        return bot_action(state, seat, rng, "smart")

    public_card_keys = ("pool_of_tears",)  # the house rule's card: a rule, not a card dealt

    def hidden_cards(self, state: WonderlandHand, seat: int) -> set[str]:
        """The other seats' cards and the deals to come (the stock)."""
        return (super().hidden_cards(state, seat) | set(state.stock)) - set(state.hands[seat])

    def refusal_words(self, message: str) -> str:
        """Each card's code as the phones name it: "P7" is "plain 7", "S7" "star 7", "N3"
        "number 3" (static/games/wonderland/play.js)."""
        said = _CODE.sub(lambda m: f"{_WORDS[m[1]]} {m[2]}" if m[0] in _CODES else m[0], message)
        return said[:1].upper() + said[1:]


_CODE = re.compile(r"\b([SPN])(\d{1,2})\b")
_CODES = frozenset(PACK)
_WORDS = {"S": "star", "P": "plain", "N": "number"}


WONDERLAND = register(Wonderland())

__all__ = [
    "PACK", "WONDERLAND", "Wonderland", "WonderlandHand", "GameError", "bot_action", "cards_in_play", "count",
    "deals", "deck", "legal_plays", "outcome_from_summary", "parse_bots", "report_lines", "simulate",
    "trick_winner",
]
