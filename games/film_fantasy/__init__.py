"""Film Fantasy (MGM, 1939): collect two complete film sets and declare. Rules: docs/rules.md.

Public API: ``deck``, ``declaration``, ``score_hand``, ``FilmFantasyHand``, ``bot_action``,
``simulate``, ``film_names``, ``group_by_film`` and the registered game object ``FILM_FANTASY``.
Nothing here imports Django.
"""

from __future__ import annotations

import random
from typing import Any

from .. import register
from ..base import Fact, Game, GameError, HouseRule, Outcome, Prize
from .bots import bot_action
from .cards import FILM_NAMES, JOKER, cards_in_play, deck, end_hand_size, group_by_film, packs_for
from .entry import entry_spec, summary_of_hand
from .hand import MAX_OFFER, MAX_OFFERS_PER_SEAT, FilmFantasyHand
from .scoring import declaration, score_hand
from .simulate import simulate
from .summary import outcome_from_summary

film_names: list[str] = list(FILM_NAMES)


class FilmFantasy(Game):
    """The ``games.base.Game`` for Film Fantasy. ``declarer_joker_penalty`` is the one house rule."""

    slug = "film-fantasy"
    name = "Film Fantasy"
    own_words = r"film|joker|ice[\s_-]*follies|auction|nine[\s_-]*card|declar"
    min_players = 2
    max_players = 10
    house_rules = (
        HouseRule(
            key="declarer_joker_penalty", label="Declarer's stray Joker costs 5", default=True,
            help="House rule (default on): a Joker the declarer holds outside the declaration costs 5.",
        ),
    )
    facts = (
        Fact(key="declarations", label="Declared", note="declared"),
        Fact(key="nine_card_declarations", label="Nine-card", note="nine cards"),
    )
    prizes = (Prize(key="most_declarations", title="Most declarations", fact="declarations",
                    units=("declaration", "declarations")),)
    tie_break_words = "Level on points? More declarations first, then more nine-card ones."
    level_at_the_total_plays_on = True  # "a tie at the top plays another hand" (home game)
    movement_words = "After each hand the declarer moves UP a table, the player on the declarer's left moves DOWN."
    how_to_play = (
        "Four cards each. Pass one card to your left, then draw one, until the stack runs out; then offer "
        "cards to other players in the auction. Declare as soon as you hold two complete films (the four "
        "cards of a film, twice): 15 points, 25 with the Joker and the four Ice Follies cards. The others "
        "score 5 for each complete film they hold (the Joker may stand in with three Ice Follies cards), 10 "
        "for the four Ice Follies cards with the Joker; a stray Joker costs 5."
    )
    # View keys that change with other seats' moves but not with what a seat decides on
    # (tables.digital.seat_basis): who has still to pass, the log (and where the view's part of
    # it starts), the version.
    chatter_keys = ("version", "log", "log_from", "pass_pending")

    def __init__(self, *, declarer_joker_penalty: bool = True) -> None:
        self.declarer_joker_penalty = declarer_joker_penalty

    public_card_keys = ("dealer_draw",)  # dealt face up from a separate shuffle before the deal

    def entry_spec(self, players: int) -> dict[str, Any]:
        return entry_spec(players)

    def hand_summary(self, state: FilmFantasyHand) -> dict[str, Any]:
        """A finished digital hand as an entry summary (for the organiser's correction form)."""
        return summary_of_hand(state)

    def outcome_from_summary(self, players: int, summary: dict[str, Any]) -> Outcome:
        return outcome_from_summary(players, summary, declarer_joker_penalty=self.declarer_joker_penalty)

    def new_hand(self, players: int, rng: random.Random, dealer: int | None = None) -> FilmFantasyHand:
        return FilmFantasyHand.new(players, rng, dealer=dealer, declarer_joker_penalty=self.declarer_joker_penalty)

    def load_hand(self, data: dict[str, Any]) -> FilmFantasyHand:
        return FilmFantasyHand.load(data)

    def bot_action(self, state: FilmFantasyHand, seat: int, rng: random.Random) -> dict[str, Any] | None:
        return bot_action(state, seat, rng, "greedy")

    def screen_data(self) -> dict[str, Any]:
        # The house rule, for the result's words (the declarer's stray Joker costs 5, or not); the
        # most cards an offer holds, for the screen's "An offer is at most 3 cards."; a seat's
        # offers in a hand, for its "You have made your 50 offers this hand".
        return {"film_names": film_names, "declarer_joker_penalty": self.declarer_joker_penalty,
                "max_offer": MAX_OFFER, "max_offers": MAX_OFFERS_PER_SEAT}

    film_names = film_names

    @staticmethod
    def group_by_film(hand: list[str]) -> list[dict[str, Any]]:
        return group_by_film(hand)


FILM_FANTASY = register(FilmFantasy())

__all__ = [
    "FILM_FANTASY", "FilmFantasy", "FilmFantasyHand", "GameError", "JOKER", "bot_action", "cards_in_play",
    "declaration", "deck", "end_hand_size", "film_names", "group_by_film", "outcome_from_summary",
    "packs_for", "score_hand", "simulate",
]
