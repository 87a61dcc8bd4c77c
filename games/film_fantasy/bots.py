"""Bots for digital play and simulation (docs/rules.md, "Bots").

``bot_action(state, seat, rng, kind)`` returns one legal action dict for ``seat`` or None when the
bot has nothing to do now. Bots read the state directly (they are part of the engine) but only
what that seat may know: its own cards, its own pending offers and the offers made to it.

- ``random``: a random legal action; declares only sometimes when it can.
- ``greedy``: declares at once when it can; passes the card of the film it is least near
  completing; in the auction offers its strays and accepts only when what it gives away is stray.
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Any, Callable

from ..base import GameError
from .cards import CARD_FILM, ICE, JOKER
from .hand import AUCTION, PASSING, FilmFantasyHand
from .scoring import can_declare

RANDOM_DECLARE_CHANCE = 0.3
STRAY = 10  # a card of a film of which the seat holds only that one card (or a spare copy)
_DECLARE = {"type": "declare"}


_MEMO: dict[tuple[str, ...], tuple[bool, dict[str, int]]] = {}
_FILM_NO = {c: (0 if c == JOKER else f) for c, f in CARD_FILM.items()}  # the Joker counts for no film


def _assess(hand: list[str]) -> tuple[bool, dict[str, int]]:
    """(can declare, card values) for a hand, memoised on the hand's cards in order: a pure function,
    and in the auction most hands are asked about again and again unchanged."""
    key = tuple(hand)
    found = _MEMO.get(key)
    if found is None:
        if len(_MEMO) > 100_000:
            _MEMO.clear()
        found = _MEMO[key] = _assess_uncached(hand)
    return found


def _assess_uncached(hand: list[str]) -> tuple[bool, dict[str, int]]:
    counts: dict[str, int] = {}
    distinct = [0] * 12
    for c in hand:
        if c in counts:
            counts[c] += 1
        else:
            counts[c] = 1
            distinct[_FILM_NO[c]] += 1
    full = [f for f in range(1, 12) if distinct[f] == 4]
    declarable = len(full) >= 2 or (len(full) == 1 and can_declare(counts))
    ice = distinct[ICE]
    joker = 45 if ice >= 3 else (15 if ice == 2 else 0)
    values = {c: joker if c == JOKER else 10 * distinct[_FILM_NO[c]] - (15 if k > 1 else 0)
              for c, k in counts.items()}
    return declarable, values


def card_values(hand: list[str]) -> dict[str, int]:
    """How much the seat wants to keep each code: 10 per different card held of its film, a spare
    copy 15 less; the Joker is kept only beside two or more different Ice Follies cards."""
    return _assess(hand)[1]


def _free_cards(state: FilmFantasyHand, seat: int) -> list[str]:
    """The seat's cards not locked in its own pending offers."""
    free = list(state.hands[seat])
    for o in state.offers.values():
        if o["from"] == seat:
            for c in o["cards"]:
                free.remove(c)
    return free


def _weakest(cards: list[str], values: dict[str, int], k: int) -> list[str]:
    return sorted(cards, key=lambda c: (values[c], c))[:k]


def greedy_action(state: FilmFantasyHand, seat: int, rng: random.Random) -> dict[str, Any] | None:
    hand = state.hands[seat]
    phase = state.phase
    if phase != PASSING and phase != AUCTION:
        return None
    declarable, values = _assess(hand)
    if declarable:
        return _DECLARE
    if phase == PASSING:
        if state.passes[seat] is not None:
            return None
        return {"type": "pass", "card": min(values, key=lambda c: (values[c], c))}
    mine = False
    for o in state.offers.values():
        if o["to"] == seat:
            give = _weakest(_free_cards(state, seat), values, len(o["cards"]))
            if len(give) == len(o["cards"]) and all(values[c] <= STRAY for c in give):
                return {"type": "accept", "offer": o["id"], "cards": give}
            return {"type": "decline", "offer": o["id"]}
        if o["from"] == seat:
            mine = True
    if mine:
        return None
    strays = [c for c in _weakest(_free_cards(state, seat), values, 3) if values[c] <= STRAY]
    cards = strays or _weakest(hand, values, 1)
    to = rng.randrange(state.players - 1)
    return {"type": "offer", "to": to + (to >= seat), "cards": cards}


def random_action(state: FilmFantasyHand, seat: int, rng: random.Random) -> dict[str, Any] | None:
    hand = state.hands[seat]
    phase = state.phase
    if phase not in (PASSING, AUCTION):
        return None
    if len(hand) >= 8 and rng.random() < RANDOM_DECLARE_CHANCE and _assess(hand)[0]:
        return _DECLARE
    if phase == PASSING:
        return None if state.passes[seat] is not None else {"type": "pass", "card": rng.choice(hand)}
    incoming = [o for o in state.offers.values() if o["to"] == seat]
    outgoing = [o for o in state.offers.values() if o["from"] == seat]
    if incoming:
        o = incoming[0]
        free = _free_cards(state, seat)
        if len(free) >= len(o["cards"]) and rng.random() < 0.5:
            return {"type": "accept", "offer": o["id"], "cards": rng.sample(free, len(o["cards"]))}
        return {"type": "decline", "offer": o["id"]}
    if outgoing:
        return {"type": "withdraw", "offer": outgoing[0]["id"]} if rng.random() < 0.1 else None
    free = _free_cards(state, seat)
    to = rng.randrange(state.players - 1)
    return {"type": "offer", "to": to + (to >= seat), "cards": rng.sample(free, rng.randint(1, min(3, len(free))))}


BOTS: dict[str, Callable[[FilmFantasyHand, int, random.Random], dict[str, Any] | None]] = {
    "greedy": greedy_action,
    "random": random_action,
}


def bot_action(state: FilmFantasyHand, seat: int, rng: random.Random, kind: str = "greedy") -> dict[str, Any] | None:
    """One legal action for ``seat`` from the ``kind`` bot ("greedy" or "random"), or None."""
    try:
        bot = BOTS[kind]
    except (KeyError, TypeError):
        raise GameError(f"Unknown bot {kind!r}; choose from {sorted(BOTS)}.") from None
    if state.finished:
        return None
    return bot(state, seat, rng)
