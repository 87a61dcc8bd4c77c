"""Alice (the Disney card game, 2-6 players): ask for cards, collect sets of five. Rules:
docs/rules.md, "Alice", from the leaflet "Introduction to the Card Game Alice" (Walt Disney Productions).

Public API: ``deck``, ``hand_size``, ``AliceHand`` (digital play; its module docstring describes
the actions, the pending ask and the timeouts), ``bot_action``, ``simulate``, ``card_name`` and the
game object ``ALICE``, registered as "alice". Nothing here imports Django.
"""

from __future__ import annotations

import random
from typing import Any

from .. import register
from ..base import Awaited, Fact, Game, GameError, HouseRule, check_rng, Outcome, Prize
from .bots import bot_action
from .cards import CAT, CARD_SET, PACK, RABBIT, SET_CARDS, SETS, TITLES, card_name, check_players, deck, hand_size
from .entry import entry_spec, outcome_from_summary, summary_of_hand
from .hand import DEFAULT_ANSWER_SECONDS, AliceHand
from .simulate import parse_bots, report_lines, simulate


ANSWER_SECONDS_CHOICES = ("10", "20", "30", "60")


class Alice(Game):
    """The ``games.base.Game`` for Alice. One house rule: how long a phone has to answer an ask
    (give or refuse) or to choose whether to play a Cheshire Cat, before the server answers."""

    slug = "alice"
    name = "Alice"
    own_words = r"white[\s_-]*rabbit|cheshire|\bcats?\b|sets?[\s_-]*laid|\blaid[\s_-]*sets?"
    min_players = 2
    max_players = 6
    house_rules = (
        HouseRule(
            key="answer_seconds", label="Time to answer on the phones",
            default=str(int(DEFAULT_ANSWER_SECONDS)),
            help="A player asked for a card (give it or play a White Rabbit), or whose ask failed (play a "
                 "Cheshire Cat or not), has this long; then the card is handed over, or the turn passes.",
            choices=tuple((s, f"{s} seconds") for s in ANSWER_SECONDS_CHOICES),
        ),
    )
    # Standings: points, then hands won (docs/rules.md: hands in which the player was the mover, a hand
    # nobody laid a set in too), then the most sets laid in one hand. A hand's note says "mover",
    # not "won the hand" (nobody won a hand with no set) nor "moves up" (not at the top table).
    facts = (
        Fact(key="hands_won", label="Hands won", note="mover", hand_key="won", hand_label="Won"),
        Fact(key="best_hand_sets", label="Best hand (sets)", best=True, hand_key="sets", hand_label="Sets"),
    )
    prizes = (Prize(key="most_hands_won", title="Most hands won", fact="hands_won",
                    units=("hand won", "hands won")),)
    tie_break_words = "Level on points? More hands won first, then the most sets laid in one hand."
    movement_words = ("After each hand the player who laid the most sets moves UP a table and the player "
                      "on their left moves DOWN.")
    how_to_play = (
        "On your turn take a card from the face-up row, or ask another player for a card of a set you hold. "
        "They must give it (and you go on), unless they play a White Rabbit to refuse; when they do not hold "
        "it, a Cheshire Cat lets you go on all the same. A set of five cards of one letter is laid at "
        "once: 5 points each."
    )
    target_total = 50  # the leaflet: "the first to the agreed total (default 50)"
    # View keys that change without changing what a seat decides on (tables.digital.seat_basis):
    # the log (and where the view's part of it starts), the version, the server's deadline.
    chatter_keys = ("version", "log", "log_from", "deadline")

    def __init__(self, *, answer_seconds: str = str(int(DEFAULT_ANSWER_SECONDS))) -> None:
        if str(answer_seconds) not in ANSWER_SECONDS_CHOICES:
            raise GameError(f"Alice: the time to answer is one of {', '.join(ANSWER_SECONDS_CHOICES)} seconds, "
                            f"not {answer_seconds!r}.")
        self.answer_seconds = str(answer_seconds)

    def entry_spec(self, players: int) -> dict[str, Any]:
        return entry_spec(players)

    def hand_summary(self, state: AliceHand) -> dict[str, Any]:
        """A digital hand as an entry summary (for the organiser's correction form)."""
        return summary_of_hand(state)

    def outcome_from_summary(self, players: int, summary: dict[str, Any]) -> Outcome:
        return outcome_from_summary(players, summary)

    def new_hand(self, players: int, rng: random.Random, dealer: int | None = None) -> AliceHand:
        """A dealt hand; the dealer given, or drawn with ``rng`` (seeded by the drive, in the hand's log)."""
        n = check_players(players)
        if dealer is None:
            dealer = check_rng(rng).randrange(n)
        hand = AliceHand.new(n, rng, dealer)
        hand.answer_seconds = float(self.answer_seconds)
        return hand

    def load_hand(self, data: dict[str, Any]) -> AliceHand:
        return AliceHand.load(data)

    def bot_action(self, state: AliceHand, seat: int, rng: random.Random) -> dict[str, Any] | None:
        return bot_action(state, seat, rng, "smart")

    def awaited(self, state: AliceHand) -> Awaited | None:
        """The seat asked (give or White Rabbit) or the asker whose ask failed (Cat or pass):
        after the hand's ``answer_seconds`` the server sends ``timeout`` for it (the card is
        handed over; the turn passes)."""
        seat = state.waiting_for()
        if seat is None:
            return None
        return Awaited(seat=seat, seconds=state.answer_seconds, action={"type": "timeout"})

    def hidden_cards(self, state: AliceHand, seat: int) -> set[str]:
        """Every set card (the White Rabbits and the Cheshire Cats come in twos: their codes name
        no one card) but the seat's own and those the table has seen: the row, every card the
        public log names (taken, turned up, asked for, handed over, refused), every card of a laid
        set. A card asked for and handed over is known to the whole table, wherever it is now."""
        seen = set(state.row)
        for entry in state.log:
            seen.update(entry[k] for k in ("card", "filled") if entry.get(k))
            if entry["type"] == "laid":
                seen.update(SET_CARDS[entry["set"]])
        return set(CARD_SET) - set(state.hands[seat]) - seen

    def screen_data(self) -> dict[str, Any]:
        """For static/games/alice/play.js: every set card's title, the sets' letters."""
        return {"titles": TITLES, "sets": SETS}


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
