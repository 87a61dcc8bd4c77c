"""Bots for digital Alice and simulation (docs/rules.md, "Alice", "Bots").

``bot_action(state, seat, rng, kind)`` returns one legal action for ``seat`` or None when the seat
has nothing to decide now. It answers the questions put to the seat too (give or Rabbit, Cat or
pass). Bots read the state directly (they are part of the engine) but only what the seat may
know: its own cards, the row, how many cards each seat and the stock hold, and the public log.

- ``random``: on its turn takes a random row card or asks a random legal question (even odds when
  both are possible); answers give/Rabbit and Cat/pass at even odds.
- ``smart``: remembers what the public log shows (``_Memory``): where a card is known to be (it was
  handed over, taken from the row, or refused with a Rabbit), which seats are known not to hold a
  card (they were asked for it and did not hold it, or asked for it themselves), which sets a seat
  collects (it asked for a card of them), and how many cards of a set a seat holds at least (one
  when it asks for a card of the set, one more per card of it received, one fewer per card handed
  over). On its turn, for the sets it holds most of first: it asks where a card is known to be;
  else asks a seat that must hold more cards of a set than the table can name for one of the cards
  nobody has placed, when that is at least even odds; else, when a guess is at least even odds,
  asks the seat most likely to hold a missing card of its fullest set (each seat weighed by the
  cards whose place it does not know, double for a seat that collects that set, against the
  stock); else takes a row card (of the set it holds most of, else a special card); with an empty
  row it asks its best guess. It always refuses with a Rabbit and always plays a Cat when it may.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from ..base import GameError
from .cards import CARD_SET, CAT, RABBIT, SET_CARDS, SETS
from .hand import CAT_CHOICE, AliceHand

_GIVE = {"type": "give"}
_RABBIT = {"type": "rabbit"}
_CAT = {"type": "cat"}
_PASS = {"type": "pass"}
# The smart bot asks on a guess rather than take a row card of a set it collects when the guess
# is at least this likely to be right.
SURE_ENOUGH = 0.5
_SET_OF = {c: CARD_SET.get(c, "") for c in (*CARD_SET, RABBIT, CAT)}.__getitem__  # "" for WR and CC


def _answer(state: AliceHand, seat: int, rng: random.Random | None) -> dict[str, Any] | None:
    """The answer of a seat that must answer (None when it need not); random without ``rng``-less."""
    if state.answering != seat:
        return None
    cat = state.pending["decision"] == CAT_CHOICE  # type: ignore[index]
    if rng is None:  # smart: a special card is worth nothing once the hand is over
        return _CAT if cat else _RABBIT
    if cat:
        return _CAT if rng.random() < 0.5 else _PASS
    return _RABBIT if rng.random() < 0.5 else _GIVE


def random_action(state: AliceHand, seat: int, rng: random.Random) -> dict[str, Any] | None:
    if state.pending is not None:
        return _answer(state, seat, rng)
    if state.turn != seat:
        return None
    hand = state.hands[seat]
    held_sets = {CARD_SET[c] for c in hand if c in CARD_SET}
    if state.row and (not held_sets or rng.random() < 0.5):
        return {"type": "take", "card": rng.choice(state.row)}
    s = rng.choice(sorted(held_sets))
    card = rng.choice([c for c in SET_CARDS[s] if c not in hand])
    to = rng.randrange(state.players - 1)
    return {"type": "ask", "to": to + (to >= seat), "card": card}


class _Memory:
    """What the public log tells about where cards are, read incrementally.

    A pure function of the log (rebuilt from scratch after ``AliceHand.load``). ``where[card]``:
    the seat known to hold it (cards move between hands only by public events, so this stays true
    until the log says otherwise); ``lacks[card]``: a bit mask of the seats known not to hold it
    (true while ``where`` has no entry: a card reaches a hand only by a public event);
    ``collects[seat]``: the sets it asked for a card of (so held a card of, then);
    ``least[seat][set]``: how many cards of the set the seat holds at least (one when it asks for a
    card of the set, one more for each card of it it receives, one fewer for each it hands over)."""

    __slots__ = ("collects", "known", "lacks", "least", "log", "placed", "read", "where")

    def __init__(self, state: AliceHand) -> None:
        self.log = state.log
        self.read = 0
        self.where: dict[str, int] = {}
        self.lacks: dict[str, int] = {}
        self.collects: list[set[str]] = [set() for _ in range(state.players)]
        self.known: dict[str, dict[str, int]] = {s: {} for s in SETS}  # ``where`` by set
        self.placed = [0] * state.players  # per seat, how many of its cards ``where`` places there
        self.least: list[dict[str, int]] = [{} for _ in range(state.players)]

    def update(self) -> _Memory:
        log, where, lacks, known, least = self.log, self.where, self.lacks, self.known, self.least
        for i in range(self.read, len(log)):
            e = log[i]
            kind = e["type"]
            if kind == "asked":
                card, a = e["card"], e["seat"]
                s = CARD_SET[card]
                self.collects[a].add(s)
                lacks[card] = lacks.get(card, 0) | 1 << a
                if not least[a].get(s):
                    least[a][s] = 1
            elif kind == "not_held":
                card = e["card"]
                lacks[card] = lacks.get(card, 0) | 1 << e["seat"]
            elif kind == "handed":
                card, b, a = e["card"], e["seat"], e["to"]
                self._place(card, a)
                s = CARD_SET[card]
                least[a][s] = least[a].get(s, 0) + 1
                if least[b].get(s):
                    least[b][s] -= 1
            elif kind == "took":
                card = e["card"]
                if card in CARD_SET:
                    self._place(card, e["seat"])
                    s = CARD_SET[card]
                    least[e["seat"]][s] = least[e["seat"]].get(s, 0) + 1
            elif kind == "rabbit":
                card, b = e["card"], e["seat"]
                self._place(card, b)
                s = CARD_SET[card]
                if not least[b].get(s):
                    least[b][s] = 1
            elif kind == "laid":
                s = e["set"]
                for c in SET_CARDS[s]:
                    w = where.pop(c, None)
                    if w is not None:
                        self.placed[w] -= 1
                known[s] = {}
                for x in self.collects:
                    x.discard(s)
                least[e["seat"]][s] = 0
        self.read = len(log)
        return self

    def _place(self, card: str, seat: int) -> None:
        old = self.where.get(card)
        if old is not None:
            self.placed[old] -= 1
        self.placed[seat] += 1
        self.where[card] = self.known[CARD_SET[card]][card] = seat


def _memory(state: AliceHand) -> _Memory:
    mem = state.__dict__.get("_alice_memory")
    if mem is None or mem.log is not state.log or mem.read > len(state.log):
        mem = state.__dict__["_alice_memory"] = _Memory(state)
    return mem.update() if mem.read != len(state.log) else mem


def smart_action(state: AliceHand, seat: int, rng: random.Random) -> dict[str, Any] | None:
    if state.pending is not None:
        return _answer(state, seat, None)
    if state.turn != seat:
        return None
    hand = state.hands[seat]
    held: dict[str, int] = {}  # in the order first held: decisions are reproducible
    for c in hand:
        s = _SET_OF(c)
        if s:
            held[s] = held.get(s, 0) + 1
    row = state.row
    if not held:
        return {"type": "take", "card": _best_row_card(row, held)}
    mem = state.__dict__.get("_alice_memory")
    if mem is None or mem.log is not state.log or mem.read > len(state.log):
        mem = _memory(state)
    elif mem.read != len(state.log):
        mem.update()
    known = mem.known
    # A card whose place is known, of the set held most of (ties: the first in the alphabet).
    ask_for, ask_to, most = "", 0, 0
    for s, k in held.items():
        if k > most or (k == most and s < ask_for[:1]):
            for c, w in known[s].items():
                if w != seat:  # where it is known to be (never the bot's own hand then)
                    ask_for, ask_to, most = c, w, k
                    break
    if ask_for:
        return {"type": "ask", "to": ask_to, "card": ask_for}
    # No card's place known. A seat known to hold more cards of a set than the bot can name holds
    # one of the cards of that set nobody has placed: ask it when that is at least even odds.
    lacks, where, least = mem.lacks, mem.where, mem.least
    n = state.players
    sure: tuple[int, str, int, str] | None = None  # (-held, set, seat, card): the nearest set first
    for b in range(n):
        if b == seat:
            continue
        for s, k in least[b].items():
            if k and s in held and (sure is None or (-held[s], s) < sure[:2]):
                extra = k - list(known[s].values()).count(b)  # cards of s at b nobody can name
                if extra > 0:
                    options = [c for c in SET_CARDS[s] if c not in where and c not in hand and c not in row
                               and not lacks.get(c, 0) >> b & 1]
                    if options and extra * 2 >= len(options):
                        sure = (-held[s], s, b, options[0])
    if sure is not None:
        return {"type": "ask", "to": sure[2], "card": sure[3]}
    order = sorted(held, key=lambda s: (-held[s], s))  # the sets nearest to complete first
    # Else the likeliest guess, weighed against a sure row card.
    placed, collects = mem.placed, mem.collects
    # Per other seat, the cards whose place the bot does not know: where a missing card may be.
    seats = [(b, u) for b, h in enumerate(state.hands) if b != seat and (u := len(h) - placed[b]) > 0]
    stock = len(state.stock)
    best: tuple[float, int, str] | None = None
    for s in order:
        weights = [(b, 2 * u if s in collects[b] else u) for b, u in seats]
        for c in SET_CARDS[s]:
            if c in hand or c in row:
                continue
            mask = lacks.get(c, 0)
            total, top, top_seat = stock, 0, -1
            for b, w in weights:
                if not mask >> b & 1:
                    total += w
                    if w > top:
                        top, top_seat = w, b
            if top_seat >= 0:
                p = top / total
                if best is None or p > best[0]:
                    best = (p, top_seat, c)
        if best is not None:
            break  # guess within the set nearest to complete
    if best is not None and (best[0] >= SURE_ENOUGH or not row):
        return {"type": "ask", "to": best[1], "card": best[2]}
    if row:
        return {"type": "take", "card": _best_row_card(row, held)}
    # Nowhere likely and nothing in the row: ask the first other seat for a missing card.
    s = order[0]
    c = next(c for c in SET_CARDS[s] if c not in hand)
    return {"type": "ask", "to": (seat + 1) % n, "card": c}


def _best_row_card(row: list[str], held: dict[str, int]) -> str:
    """A row card of the set held most of; else a Cat, a Rabbit, else the first."""
    best, score = row[0], -1
    for c in row:
        s = CARD_SET.get(c)
        k = held.get(s, 0) * 2 if s is not None else (1 if c == CAT or c == RABBIT else 0)
        if k > score:
            best, score = c, k
    return best


BOTS: dict[str, Callable[[AliceHand, int, random.Random], dict[str, Any] | None]] = {
    "smart": smart_action,
    "random": random_action,
}


def bot_action(state: AliceHand, seat: int, rng: random.Random, kind: str = "smart") -> dict[str, Any] | None:
    """One legal action for ``seat`` from the ``kind`` bot ("smart" or "random"), or None."""
    try:
        bot = BOTS[kind]
    except (KeyError, TypeError):
        raise GameError(f"Unknown bot {kind!r}; choose from {sorted(BOTS)}.") from None
    if state.ended_by is not None:
        return None
    return bot(state, seat, rng)
