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
from .cards import CARD_FILM, ICE, JOKER, PACK
from .hand import AUCTION, PASSING, FilmFantasyHand
from .scoring import can_declare

RANDOM_DECLARE_CHANCE = 0.3
STRAY = 10  # a card of a film of which the seat holds only that one card (or a spare copy)
_DECLARE = {"type": "declare"}
_STRAY_KEY = (STRAY + 1) * 64


Assessment = tuple[bool, dict[str, int], list[str]]  # can declare, sort keys (value*64+rank), weakest first
_MEMO: dict[tuple[str, ...], Assessment] = {}
_FILM_NO = {c: (0 if c == JOKER else f) for c, f in CARD_FILM.items()}  # the Joker counts for no film


def _assess(hand: list[str]) -> Assessment:
    """(can declare, card values, cards weakest first) for a hand, memoised on the hand's cards in order: a pure function,
    and in the auction most hands are asked about again and again unchanged."""
    key = tuple(hand)
    found = _MEMO.get(key)
    if found is None:
        if len(_MEMO) > 100_000:
            _MEMO.clear()
        found = _MEMO[key] = _assess_uncached(hand)
    return found


_RANK = {c: i for i, c in enumerate(PACK)}  # tie-break between equal values: lower code first
_SCALE = 64  # sort key = value * 64 + rank (rank < 64), so one int orders and carries the value


def _assess_uncached(hand: list[str]) -> Assessment:
    counts: dict[str, int] = {}
    distinct = [0] * 12
    for c in hand:
        if c in counts:
            counts[c] += 1
        else:
            counts[c] = 1
            distinct[_FILM_NO[c]] += 1
    full = distinct.count(4)
    # one full film declares alone only as a double set, which needs spare copies (two packs)
    declarable = full >= 2 or (full == 1 and len(counts) + 4 <= len(hand) and can_declare(counts))
    ice = distinct[ICE]
    joker = 45 if ice >= 3 else (15 if ice == 2 else 0)
    keys = {c: (joker if c == JOKER else 10 * distinct[_FILM_NO[c]] - (15 if k > 1 else 0)) * _SCALE + _RANK[c]
            for c, k in counts.items()}
    return declarable, keys, sorted(hand, key=keys.__getitem__)


def card_values(hand: list[str]) -> dict[str, int]:
    """How much the seat wants to keep each code: 10 per different card held of its film, a spare
    copy 15 less; the Joker is kept only beside two or more different Ice Follies cards."""
    return {c: k // _SCALE for c, k in _assess(hand)[1].items()}


def _free_cards(state: FilmFantasyHand, seat: int, cards: list[str] | None = None) -> list[str]:
    """The seat's cards (in the order of ``cards``, default as held) not locked in its pending offers."""
    free = list(state.hands[seat] if cards is None else cards)
    for o in state.offers.values():
        if o["from"] == seat:
            for c in o["cards"]:
                free.remove(c)
    return free


def greedy_action(state: FilmFantasyHand, seat: int, rng: random.Random) -> dict[str, Any] | None:
    hand = state.hands[seat]
    phase = state.phase
    if phase != PASSING and phase != AUCTION:
        return None
    declarable, values, weakest_first = _assess(hand)
    if declarable:
        return _DECLARE
    if phase == PASSING:
        if state.passes[seat] is not None:
            return None
        return {"type": "pass", "card": weakest_first[0]}
    mine = False
    for o in state.offers.values():
        if o["to"] == seat:
            give = _free_cards(state, seat, weakest_first)[: len(o["cards"])]
            if len(give) == len(o["cards"]) and all(values[c] < _STRAY_KEY for c in give):
                return {"type": "accept", "offer": o["id"], "cards": give}
            return {"type": "decline", "offer": o["id"]}
        if o["from"] == seat:
            mine = True
    if mine:
        return None
    strays = [c for c in _free_cards(state, seat, weakest_first)[:3] if values[c] < _STRAY_KEY]
    cards = strays or weakest_first[:1]
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
