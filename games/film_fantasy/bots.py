"""Bots for digital play and simulation (docs/rules.md, "Bots").

``bot_action(state, seat, rng, kind)`` returns one legal action dict for ``seat`` or None when the
bot has nothing to do now. Bots read the state directly (they are part of the engine) but only
what that seat may know: its own cards, its own pending offers and the offers made to it.

- ``random``: a random legal action; declares only sometimes when it can.
- ``greedy``: declares at once when it can; collects the two films it holds most different cards
  of, and calls everything else (and spare copies) a stray; passes its weakest stray; in the
  auction offers up to three strays (keeping one back while it has few) to the seats in turn
  round the table, never repeating an offer a seat declined until that seat has changed (read
  from the public log), and accepts a blind offer only when it can give back strays alone.
"""

from __future__ import annotations

import random
from typing import Any, Callable

from ..base import GameError
from .cards import CARD_FILM, FILM_CARDS, ICE, JOKER, PACK
from .hand import AUCTION, MAX_OFFER, PASSING, FilmFantasyHand
from .scoring import can_declare

RANDOM_DECLARE_CHANCE = 0.3
_DECLARE = {"type": "declare"}

# Assessment of one hand (a pure function of its cards as a multiset): (can declare, the strays
# weakest first then the kept cards weakest first, how many strays).
Assessment = tuple[bool, list[str], int]
_FILM_NO = {c: (0 if c == JOKER else f) for c, f in CARD_FILM.items()}  # the Joker counts for no film
_RANK = {c: i for i, c in enumerate(PACK)}  # tie-break between equal values: lower code first
_SCALE = 64  # sort key = value * 64 + rank (rank < 64), so one int orders and carries the value
_FILM_RANK = {c: (_FILM_NO[c], _RANK[c]) for c in _FILM_NO}

# The fast path (a hand without spare copies, so always with one pack). The hand is a 45-bit mask:
# film f's cards 1-4 are bits 4(f-1)..4f-1, the Joker bit 44. Each film held gets one int key
# ((different cards * 64 + film) * 16 + its 4-bit nibble): sorted, the keys give the plan (the
# last two: most different cards, ties the higher film, so Ice Follies, film 11, wins its ties
# with or without the Joker) and the order of _assess_counts's sort keys (value 10 per different
# card, ties the lower film, cards by number). The Joker's key puts it after the films of 0, 1 or
# 4 different cards (its value 0, 15 or 45 beside 0-1, 2 or 3-4 different Ice Follies cards).
# tests/games/test_film_fantasy_bots.py checks both paths (one pack, two) against the rule worked out plainly.
_BIT = {c: 1 << (4 * (f - 1) + i) for f in range(1, 12) for i, c in enumerate(FILM_CARDS[f])}
_BIT[JOKER] = 1 << 44
_FKEY = [[((m.bit_count() * 64 + f) << 4) | m for m in range(16)] for f in range(12)]
_ICE_KEY = _FKEY[ICE]
_JKEY = [((d * 64 + 63) << 4) | 15 for d in (0, 0, 1, 4, 4)]  # by different Ice Follies cards
_DECLARABLE = (4 * 64) << 4  # a film key at or above: all four different cards
_HELD: dict[int, tuple[str, ...]] = {k: (JOKER,) for k in _JKEY}  # key -> the cards, in number order
for _f in range(1, 12):
    for _m in range(1, 16):
        _HELD[_FKEY[_f][_m]] = tuple(c for i, c in enumerate(FILM_CARDS[_f]) if _m >> i & 1)


def _film_keys(first: int, films: int, joker_bit: bool = False) -> tuple[tuple[int, ...], ...]:
    """Per value of the mask bits of ``films`` films from ``first`` (and the Joker bit after
    them, ignored): the keys of the films held."""
    table = []
    for v in range(1 << (4 * films + joker_bit)):
        table.append(tuple(_FKEY[first + i][v >> (4 * i) & 15] for i in range(films) if v >> (4 * i) & 15))
    return tuple(table)


_KEYS_1_3, _KEYS_4_6, _KEYS_7_9, _KEYS_10_J = _film_keys(1, 3), _film_keys(4, 3), _film_keys(7, 3), _film_keys(10, 2, True)


def _assess(hand: list[str]) -> Assessment:
    """The hand's assessment: who declares, what is a stray, in which order the bot gives cards."""
    mask = sum(map(_BIT.__getitem__, hand))
    if mask.bit_count() != len(hand):  # spare copies (two packs): the general path
        a = _assess_counts(hand)
        return a[0], a[2], a[3]
    keys = [*_KEYS_1_3[mask & 4095], *_KEYS_4_6[mask >> 12 & 4095], *_KEYS_7_9[mask >> 24 & 4095],
            *_KEYS_10_J[mask >> 36]]
    keys.sort()
    kept = keys[-2:]
    del keys[-2:]
    declarable = len(kept) == 2 and kept[0] >= _DECLARABLE
    if mask >> 44:  # the Joker: kept beside Ice Follies when that is collected, else a stray
        ice = mask >> 40 & 15
        if ice and _ICE_KEY[ice] >= kept[0]:
            kept.append(_JKEY[ice.bit_count()])
            kept.sort()
        else:
            keys.append(_JKEY[ice.bit_count()])
            keys.sort()
    held = _HELD
    order: list[str] = []
    for k in keys:
        order += held[k]
    n = len(order)
    for k in kept:
        order += held[k]
    return declarable, order, n


def _assess_counts(hand: list[str]) -> tuple[bool, dict[str, int], list[str], int]:
    """The assessment from card counts, any hand (spare copies too), with the sort key per code
    (value * 64 + rank): (can declare, keys, strays weakest first then kept weakest first, strays)."""
    counts: dict[str, int] = {}
    distinct: dict[int, int] = {}  # film -> different cards held (the Joker as film 0)
    fr = _FILM_RANK
    for c in hand:
        if c in counts:
            counts[c] += 1
        else:
            counts[c] = 1
            f = fr[c][0]
            distinct[f] = distinct.get(f, 0) + 1
    has_joker = distinct.pop(0, 0) > 0
    ice = distinct.get(ICE, 0)
    # The plan: the two films with the most different cards (ties: Ice Follies when the Joker is
    # held, for the nine-card declaration; then the higher film). Everything else is a stray.
    full = 0
    score = []
    for f, d in distinct.items():
        if d == 4:
            full += 1
        score.append(d * 64 + (32 if f == ICE and has_joker else 0) + f)
    # one full film declares alone only as a double set, which needs spare copies (two packs)
    declarable = full >= 2 or (full == 1 and len(counts) + 4 <= len(hand) and can_declare(counts))
    score.sort()
    first = score[-1] & 31 if score else -1
    second = score[-2] & 31 if len(score) > 1 else -1
    # sort key = value * 64 + rank; value: 10 per different card of the film, 15 less for a spare copy
    base = {f: 640 * d for f, d in distinct.items()}
    base[0] = 45 * 64 if ice >= 3 else (15 * 64 if ice == 2 else 0)
    keys: dict[str, int] = {}
    kept: list[str] = []
    strays: list[str] = []
    for c, k in counts.items():
        f, rank = fr[c]
        if k == 1:
            keys[c] = base[f] + rank
            if f == first or f == second or (not f and ICE in (first, second)):
                kept.append(c)
            else:
                strays.append(c)
        else:
            keys[c] = base[f] + rank - (960 if f else 0)
            strays.append(c)  # a spare copy is a stray
            if f == first or f == second or (not f and ICE in (first, second)):
                kept.append(c)
            else:
                strays.append(c)
    strays.sort(key=keys.__getitem__)
    kept.sort(key=keys.__getitem__)
    n = len(strays)
    strays += kept
    return declarable, keys, strays, n


def card_values(hand: list[str]) -> dict[str, int]:
    """How much the seat wants to keep each code: 10 per different card held of its film, a spare
    copy 15 less; the Joker is kept only beside two or more different Ice Follies cards."""
    return {c: k // _SCALE for c, k in _assess_counts(hand)[1].items()}


def strays(hand: list[str]) -> list[str]:
    """The cards the seat does not collect, weakest first: all but the cards of the two films it
    holds most different cards of (and the Joker beside Ice Follies, when that is one of them);
    a spare copy is always a stray."""
    a = _assess(hand)
    return a[1][: a[2]]


def _free_cards(state: FilmFantasyHand, seat: int, cards: list[str] | None = None) -> list[str]:
    """The seat's cards (in the order of ``cards``, default as held) not locked in its pending offers."""
    free = list(state.hands[seat] if cards is None else cards)
    for o in state.offers.values():
        if o["from"] == seat:
            for c in o["cards"]:
                free.remove(c)
    return free


class _AuctionMemory:
    """What the public log tells a greedy bot about the auction so far, read incrementally.

    It is a pure function of the log (rebuilt from scratch after ``FilmFantasyHand.load``), so a
    bot decides the same way on a live hand and on a stored copy of it. Per seat: ``changed``
    counts the events that may have changed what it can give (an exchange it took part in, an
    offer of its own ending); ``blocked[a][t] = (k, changed[t])``: ``t`` declined ``k`` cards
    from ``a`` and has not changed since, so ``a`` offers ``t`` fewer than ``k`` cards or none;
    ``last_to[a]``: the seat ``a`` offered to last (greedy offers round the table)."""

    __slots__ = ("log", "read", "changed", "blocked", "last_to", "counts")

    def __init__(self, state: FilmFantasyHand) -> None:
        n = state.players
        self.log = state.log
        self.read = 0
        self.changed = [0] * n
        self.blocked: list[dict[int, tuple[int, int]]] = [{} for _ in range(n)]
        self.last_to = list(range(n))
        self.counts: dict[int, int] = {}

    def update(self) -> "_AuctionMemory":
        log = self.log
        changed, counts = self.changed, self.counts
        for i in range(self.read, len(log)):
            e = log[i]
            kind = e["type"]
            if kind == "offer":
                counts[e["offer"]] = e["count"]
                self.last_to[e["from"]] = e["to"]
            elif kind == "exchange":
                changed[e["from"]] += 1
                changed[e["to"]] += 1
                counts.pop(e["offer"], None)
            elif kind == "declined":
                a, t = e["from"], e["to"]
                changed[a] += 1
                k = counts.pop(e["offer"], 1)
                old = self.blocked[a].get(t)
                if old is not None and old[1] == changed[t]:
                    k = min(k, old[0])
                self.blocked[a][t] = (k, changed[t])
            elif kind == "withdrawn":
                changed[e["from"]] += 1
                counts.pop(e["offer"], None)
        self.read = len(log)
        return self


def _memory(state: FilmFantasyHand) -> _AuctionMemory:
    mem = state.__dict__.get("_greedy_memory")
    if mem is None or mem.log is not state.log or mem.read > len(state.log):
        mem = state.__dict__["_greedy_memory"] = _AuctionMemory(state)
    return mem.update() if mem.read != len(state.log) else mem


def greedy_action(state: FilmFantasyHand, seat: int, rng: random.Random) -> dict[str, Any] | None:
    hand = state.hands[seat]
    phase = state.phase
    if phase != PASSING and phase != AUCTION:
        return None
    declarable, weakest_first, n_strays = _assess(hand)
    if declarable:
        return _DECLARE
    if phase == PASSING:
        if state.passes[seat] is not None:
            return None
        return {"type": "pass", "card": weakest_first[0]}
    offers = state.offers
    if offers:
        mine = False
        for o in offers.values():
            if o["to"] == seat:
                # Offers are blind: accept when what must be given back is all strays.
                k = len(o["cards"])
                if mine or any(p["from"] == seat for p in offers.values()):
                    locked = [c for p in offers.values() if p["from"] == seat for c in p["cards"]]
                    give = []
                    for c in weakest_first[:n_strays]:
                        if c in locked:
                            locked.remove(c)
                        else:
                            give.append(c)
                    give = give[:k]
                else:
                    give = weakest_first[:k] if k <= n_strays else []
                if len(give) == k:
                    return {"type": "accept", "offer": o["id"], "cards": give}
                return {"type": "decline", "offer": o["id"]}
            if o["from"] == seat:
                mine = True
        if mine:
            return None
    # Offer up to three strays round the table from the seat after the last one offered to,
    # never again what a seat declined unless that seat has changed since.
    if state.offers_left(seat) <= 0:
        return None
    mem = _memory(state)
    want = max(1, min(MAX_OFFER, n_strays - 1))
    blocked, changed = mem.blocked[seat], mem.changed
    n = state.players
    to = mem.last_to[seat]
    for _ in range(n - 1):
        to = (to + 1) % n
        if to == seat:
            to = (to + 1) % n
        b = blocked.get(to)
        if b is None or b[1] != changed[to]:
            return {"type": "offer", "to": to, "cards": weakest_first[:want]}
        if b[0] > 1:
            return {"type": "offer", "to": to, "cards": weakest_first[: min(want, b[0] - 1)]}
    return None


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
    if state.offers_left(seat) <= 0:
        return None
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
