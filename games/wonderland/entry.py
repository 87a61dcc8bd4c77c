"""A hand played with real cards: the questions asked, and the points from the answers
(docs/rules.md, "The Game of Alice in Wonderland", "Entering a played hand").

The summary::

    {"dealer": 0,                     # who dealt (required: it decides a tie for the mover)
     "pool_of_tears": 2 | None,       # who took the Pool of Tears card, or nobody
     "stopped": False,                # the bell stopped the hand before every card in play was
                                      # taken (left out: not said, as in a record made before it was asked)
     "holdings": [{"pairs": 1, "cards": 12}, ...]}   # per seat: pairs and cards taken

Impossible entries are refused with a ``GameError`` that names what is wrong.
"""

from __future__ import annotations

from typing import Any

from ..base import GameError, Outcome, and_list
from .cards import (DEFAULT_POOL_OF_TEARS, PACK, cards_in_play, check_players, check_pool_of_tears, choose_mover,
                    pairs_in, picture_name, standing_facts, winner_of)

_SUMMARY_KEYS = {"dealer", "pool_of_tears", "stopped", "holdings"}
_HOLDING_KEYS = {"pairs", "cards"}
MAX_PAIRS = 16
NUMBERS = 20
MOST_UNPAIRED = NUMBERS + MAX_PAIRS  # a player's cards less its pairs: every number, one picture of each other pair



def entry_spec(players: int, pool_of_tears: str = DEFAULT_POOL_OF_TEARS) -> dict[str, Any]:
    n = check_players(players)
    in_play = cards_in_play(n)
    return {
        "table": [
            # No default: the table chooses the dealer, and it decides ties for the mover.
            {"name": "dealer", "label": "Who dealt?", "type": "seat",
             "help": "A tie for top score goes to more cards taken, then the first on the dealer's left.",
             "missing": "Say who dealt: tap their name."},
            {"name": "pool_of_tears", "label": f"Who took the Pool of Tears card ({picture_name(pool_of_tears)})?",
             # Unused only where the deals leave cards over (3, 5 and 6 players): at 2 and 4 all 52 are dealt.
             "type": "seat", "optional": True,
             "none_label": "Nobody (unused, or the hand was stopped)" if in_play < len(PACK) else
                           "Nobody (the hand was stopped)",
             "missing": "Say who took the Pool of Tears card, or nobody."},
            # After the players' rows: the cards taken add up to every card in play unless the
            # bell stopped the hand (its last trick going to nobody), which only the table knows.
            {"name": "stopped", "label": "Were all the cards played?", "type": "choice", "after_seats": True,
             "choices": [[False, f"Yes: all {in_play} cards dealt were played"], [True, "No: the bell stopped the hand"]],
             "default": False, "missing": "Say whether all the cards were played, or the bell stopped the hand."},
        ],
        "seat": [
            {"name": "pairs", "label": "Pairs taken (+10 each)", "type": "choice",
             "choices": [[k, str(k)] for k in range(min(MAX_PAIRS, in_play // 2) + 1)], "default": 0},
            # Every trick gives one card from each player: cards taken come in multiples of n.
            {"name": "cards", "label": "Cards taken", "type": "choice",
             "choices": [[k, str(k)] for k in range(0, in_play + 1, n)], "default": 0},
        ],
        "seat_help": "Count the cards each player took in tricks; a pair is a star and a plain picture "
                     "of the same number.",
    }


def summary_of_hand(state: Any) -> dict[str, Any]:
    """A finished digital hand in the entry format above (for the organiser's correction form)."""
    return {
        "dealer": state.dealer,
        "pool_of_tears": state.pool_of_tears_seat(),
        # A hand the bell stopped after its last card counts as played out: nothing was left.
        "stopped": sum(len(t) for t in state.taken) < cards_in_play(len(state.taken)),
        "holdings": [{"pairs": pairs_in(t), "cards": len(t)} for t in state.taken],
    }


def _whole(x: Any) -> bool:
    return isinstance(x, int) and not isinstance(x, bool) and x >= 0


def _seat(value: Any, players: int, what: str) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < players:
        raise GameError(f"{what} must be one of the {players} players at this table, or nobody.")
    return value


def outcome_from_summary(players: int, summary: dict[str, Any], pool_of_tears: str = DEFAULT_POOL_OF_TEARS) -> Outcome:
    """The Outcome of a hand played with cards (see the module docstring for the summary);
    ``pool_of_tears`` is the house rule's card, named when a refusal concerns it."""
    n = check_players(players)
    pool_card = picture_name(check_pool_of_tears(pool_of_tears))
    if not isinstance(summary, dict):
        raise GameError("The hand summary must be an object with 'dealer', 'pool_of_tears' and 'holdings'.")
    extra = sorted(str(k) for k in summary if k not in _SUMMARY_KEYS)
    if extra:
        raise GameError(f"Unknown summary field(s): {and_list(extra)}.")
    dealer = _seat(summary.get("dealer"), n, "The dealer")
    pool = _seat(summary.get("pool_of_tears"), n, "Who took the Pool of Tears card")
    stopped = summary.get("stopped")
    if stopped is not None and not isinstance(stopped, bool):
        raise GameError("'stopped' must be true (the bell stopped the hand) or false (all the cards were played).")
    holdings = summary.get("holdings")
    if not isinstance(holdings, list) or len(holdings) != n:
        raise GameError(f"'holdings' must list one entry per seat: {n} at this table.")
    pairs: list[int] = []
    cards: list[int] = []
    for seat, h in enumerate(holdings):
        if not isinstance(h, dict):
            raise GameError(f"Seat {seat}: the entry must be an object with 'pairs' and 'cards'.")
        bad = sorted(str(k) for k in h if k not in _HOLDING_KEYS)
        if bad:
            raise GameError(f"Seat {seat}: unknown field(s): {and_list(bad)}.")
        p, c = h.get("pairs", 0), h.get("cards", 0)
        if not _whole(p) or not _whole(c):
            raise GameError(f"Seat {seat}: pairs and cards taken must be whole numbers of at least 0.")
        if c % n:
            raise GameError(f"Seat {seat}: {c} cards taken, but every trick holds {n} cards (one from each "
                            f"player), so cards taken come in {n}s.")
        if 2 * p > c:
            raise GameError(f"Seat {seat}: {p} pair{'s' if p != 1 else ''} need{'s' if p == 1 else ''} {2 * p} "
                            f"cards, but only {c} were taken.")
        if c > MOST_UNPAIRED + p:
            # (Found in a browser: "with no pair, but without one a player can hold" read badly.)
            if p:
                pp = f"{p} pair{'s' if p != 1 else ''}"
                raise GameError(f"Seat {seat}: {c} cards taken with {pp}, but a player with {pp} and no other can "
                                f"hold at most {MOST_UNPAIRED + p} (the 20 numbers, one picture of each other number, "
                                "and the pairs): count the pairs and the cards again.")
            raise GameError(f"Seat {seat}: {c} cards taken with no pair, but a player with no pair can hold at most "
                            f"{MOST_UNPAIRED} (the 20 numbers and one picture of each of the 16 numbers): count the "
                            "pairs and the cards again.")
        pairs.append(p)
        cards.append(c)
    in_play = cards_in_play(n)
    if sum(cards) > in_play:
        raise GameError(f"{sum(cards)} cards taken in all, but at {n} players only {in_play} are played in a hand.")
    if stopped is False and sum(cards) < in_play:
        # Every trick of a hand played out is taken: cards short of those in play were counted
        # wrong, or the bell stopped the hand (its last trick, if any, going to nobody).
        raise GameError(f"{sum(cards)} cards taken in all, but a hand played out at {n} players takes all {in_play} "
                        "dealt: count the cards again, or say the bell stopped the hand.")
    if sum(pairs) > MAX_PAIRS:
        raise GameError(f"{sum(pairs)} pairs entered in all, but the pack has only {MAX_PAIRS}.")
    # Beside its pairs, a player took numbers (20 in the pack, among everyone) and single
    # pictures: at most one of each number nobody took both pictures of. With every card taken
    # (two players) each player's count is then fixed by the pairs: 26 and 26 cards leave no room
    # for 13 pairs against none.
    unpaired = MAX_PAIRS - sum(pairs)
    loose = [c - 2 * p for c, p in zip(cards, pairs)]
    room = NUMBERS + sum(min(unpaired, x) for x in loose)
    if sum(loose) > room:
        raise GameError(
            f"These counts do not add up: {sum(loose)} cards were taken outside the pairs entered, but at most "
            f"{room} can be (the {NUMBERS} numbers, and for each player one picture of each of the {unpaired} "
            "numbers nobody took a pair of). Someone took a pair that was not entered: count the pairs and the "
            "cards again.")
    if pool is not None and cards[pool] == 0:
        raise GameError(f"Seat {pool} took no cards, so cannot have taken the Pool of Tears card ({pool_card}).")
    if pool is None and sum(cards) == len(PACK):
        # Every card of the pack was taken (2 and 4 players play them all): one of them is it.
        raise GameError(f"All {len(PACK)} cards of the pack were taken, so somebody took the Pool of Tears card "
                        f"({pool_card}): say who.")
    if sum(pairs) == MAX_PAIRS:
        # Every picture was taken in a pair: the Pool of Tears card (a picture) is in one of them.
        if pool is None:
            raise GameError(f"All {MAX_PAIRS} pairs were taken, so somebody took the Pool of Tears card "
                            f"({pool_card}) in one of them: say who.")
        if pairs[pool] == 0:
            raise GameError(f"All {MAX_PAIRS} pairs were taken, so the Pool of Tears card ({pool_card}) is in one of "
                            f"them, but Seat {pool} took no pair.")
    points = [10 * p for p in pairs]
    if pool is not None:
        points[pool] += 20
    most = max(cards)
    if cards.count(most) == 1:
        points[cards.index(most)] += 10
    if dealer is None:  # it decides a tie for the mover: asked, as Alice's and Film Fantasy's are
        raise GameError("Say who dealt: the hand summary needs 'dealer'.")
    mover = choose_mover(points, cards, dealer)
    winner = winner_of(points, mover)
    return Outcome(points=points, mover=mover, winner=winner, facts=standing_facts(pairs, cards),
                   details={"pairs": pairs, "cards": cards, "pool_of_tears": pool})
