"""The digital Alice hand: a deterministic, clock-free state machine (docs/rules.md, "Alice").

Build it with ``AliceHand.from_deck(players, cards, dealer)`` (a chosen 44-card order: the deal
goes one card at a time from the front of ``cards``, starting on the dealer's left; the next 7
cards are the row, the rest the stock, top first) or ``AliceHand.new(players, rng, dealer)``.
After that the state depends only on the actions. Every accepted action bumps ``version``; a
refused one raises ``GameError`` (a ``ValueError``) saying why in players' words and changes
nothing, because every check runs before the first change.

Actions are JSON dicts::

    {"type": "take", "card": "C2"}            the seat to play takes a row card; its turn ends
    {"type": "ask", "to": 2, "card": "B3"}    the seat to play asks seat 2 for B3
    {"type": "give"} / {"type": "rabbit"}     the seat asked, holding the card and a White Rabbit it
                                              may play: hand it over, or refuse with the Rabbit
    {"type": "cat"} / {"type": "pass"}        the asker whose ask failed (not held), holding a
                                              Cheshire Cat it may play: play it and go on, or let
                                              the turn pass
    {"type": "timeout"}                       the server, for ``waiting_for()``: the default answer

When the seat asked holds the card but may not refuse, the card passes at once; when the asker
has no Cat it may play, the turn passes at once: nobody is asked a question with one answer.

A pending decision: ``turn`` stays the asker's; ``pending`` is the ask waiting for an answer,
``{"decision": "give" | "cat", "asker": a, "to": b, "card": "B3"}`` ("give": seat b chooses give
or rabbit; "cat": the asker a chooses cat or pass), and ``answering`` is the seat that must
answer (b, or a), None when nothing is pending. ``waiting_for()`` returns ``answering``.

Timeouts (digital play; docs/rules.md: 20 s by default). The engine keeps no clock.
The server reads ``waiting_for()``, may store its own deadline (any float, e.g. a Unix time) in
``deadline`` (kept by ``to_json``/``load``, shown in views, never read by the engine), and when
that time has passed applies ``{"type": "timeout"}`` for that seat: the asked seat hands the card
over, the asker lets the turn pass. ``deadline`` is cleared (None) whenever the pending decision
is resolved, by an answer, a timeout or ``stop()``. ``answer_seconds`` is how long the server
gives (``DEFAULT_ANSWER_SECONDS`` unless the drive's house rule says otherwise), kept in the state
so that a restarted server gives the same time; ``Alice.awaited`` tells the server all this.
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

from ..base import STOPPED, GameError, Outcome, action_type, check_seat
from . import storage
from .cards import (
    CARD_SET,
    CAT,
    PACK,
    RABBIT,
    ROW_SIZE,
    SET_CARDS,
    SETS,
    card_name,
    check_players,
    deck,
    hand_size,
)
from .scoring import POINTS_PER_SET, mover_of, standing_facts

DEFAULT_ANSWER_SECONDS = 20.0
ALL_LAID = "all_laid"
GIVE, CAT_CHOICE = "give", "cat"  # the two kinds of pending decision
VIEW_LOG = 100  # entries of the public log a view carries: the newest
_PACK_COUNT = Counter(PACK)
_SET_OF = {c: CARD_SET.get(c, "") for c in PACK}.__getitem__  # a card's set letter, "" for WR and CC

_CARD_SET_OR_SPECIAL = frozenset(PACK)  # (a code that is none: "There is no card 'ZZ' in the row.")

_ACTION_KEYS = {
    "take": {"type", "card"},
    "ask": {"type", "to", "card"},
    "give": {"type"},
    "rabbit": {"type"},
    "cat": {"type"},
    "pass": {"type"},
    "timeout": {"type"},
}


def _is_int(x: Any) -> bool:
    return type(x) is int


def _seat_words(seat: int) -> str:
    """A seat in a refusal, numbered as players count their seats, from 1 ("seat 1" is the
    engine's seat 0): the engine knows no names, and refusals reach the phones as they are."""
    return f"seat {seat + 1}"


class AliceHand:
    """One hand at one table. Build with ``from_deck``, ``new`` or ``load`` (from ``to_json``)."""

    def __init__(self) -> None:
        self.players = 0
        self.dealer = 0
        self.hands: list[list[str]] = []
        self.row: list[str] = []
        self.stock: list[str] = []  # top first
        self.laid: list[list[str]] = []  # per seat, the letters of the sets it laid, in order
        self.lay_order: list[int] = []  # the seat of every set laid, in the order they were laid
        self.played: list[str] = []  # special cards played: out of play until the next hand
        self.turn: int | None = None
        self.pending: dict[str, Any] | None = None
        self.answering: int | None = None
        self.rabbit_this_turn = False
        self.cat_this_turn = False
        self.log: list[dict[str, Any]] = []
        self.version = 0
        self.ended_by: str | None = None
        self.deadline: float | None = None
        self.answer_seconds = DEFAULT_ANSWER_SECONDS  # how long the server gives an answer (a house rule)

    # ---------------------------------------------------------------- creation
    @classmethod
    def new(cls, players: int, rng: random.Random, dealer: int = 0) -> AliceHand:
        """A hand dealt from a pack shuffled with ``rng``."""
        return cls.from_deck(players, deck(players, rng), dealer)

    @classmethod
    def from_deck(cls, players: int, cards: list[str], dealer: int = 0) -> AliceHand:
        """Deal ``cards`` (exactly the 44-card pack, in any order): ``hand_size`` each, one at a
        time from the dealer's left; the next 7 face up in the row; the rest is the stock, its top
        the first. Sets complete in the deal are laid at once, in seat order from the dealer's left."""
        n = check_players(players)
        if not _is_int(dealer) or not 0 <= dealer < n:
            raise GameError(f"The dealer must be one of the {n} seats at this table.")
        if (not isinstance(cards, (list, tuple)) or len(cards) != len(PACK)
                or not all(isinstance(c, str) for c in cards) or Counter(cards) != _PACK_COUNT):
            raise GameError("Alice is dealt from exactly the 44-card pack: A1-H5, two White Rabbits (WR) "
                            "and two Cheshire Cats (CC).")
        h = cls()
        h.players, h.dealer = n, dealer
        h.hands = [[] for _ in range(n)]
        h.laid = [[] for _ in range(n)]
        size = hand_size(n)
        order = h._from_dealers_left()
        i = 0
        for _ in range(size):
            for seat in order:
                h.hands[seat].append(cards[i])
                i += 1
        h.row = list(cards[i:i + ROW_SIZE])
        h.stock = list(cards[i + ROW_SIZE:])
        h.log.append({"type": "deal", "dealer": dealer, "cards_each": size, "stock": len(h.stock)})
        for seat in order:
            letters = list(map(_SET_OF, h.hands[seat]))
            for s in SETS:
                if letters.count(s) == 5:
                    h._lay_if_complete(seat, s)
        h._start_turn(order[0])
        return h

    def _from_dealers_left(self) -> list[int]:
        n = self.players
        return [(self.dealer + k) % n for k in range(1, n + 1)]

    # ---------------------------------------------------------------- reading the state
    @property
    def finished(self) -> bool:
        return self.ended_by is not None

    def waiting_for(self) -> int | None:
        """The seat whose decision is pending (give/rabbit, or cat/pass), or None."""
        return self.answering

    def can_act(self, seat: int) -> bool:
        """Whether ``seat`` could do anything on a turn: take from the row, or ask (it holds a set card)."""
        if self.row:
            return True
        hand = self.hands[seat]
        return len(hand) > hand.count(RABBIT) + hand.count(CAT)

    def may(self, seat: int) -> list[str]:
        """The action types ``seat`` may send now (``timeout`` aside: that is the server's)."""
        if self.ended_by is not None:
            return []
        if self.pending is not None:
            if seat != self.answering:
                return []
            return ["give", "rabbit"] if self.pending["decision"] == GIVE else ["cat", "pass"]
        if seat != self.turn:
            return []
        hand = self.hands[seat]
        out = ["take"] if self.row else []
        if len(hand) > hand.count(RABBIT) + hand.count(CAT):
            out.append("ask")
        return out

    # ---------------------------------------------------------------- actions
    def apply(self, seat: int, action: dict[str, Any]) -> None:
        """Apply one seat's action, or raise GameError (state untouched) saying why not."""
        if self.ended_by is not None:
            raise GameError("The hand is over.")
        check_seat(seat, self.players)
        _HANDLERS[action_type(action, _ACTION_KEYS)](self, seat, action)
        self.version += 1

    def _check_turn(self, seat: int) -> None:
        """Refuse a take or an ask: an answer is awaited, or it is another seat's turn."""
        p = self.pending
        if p is not None:
            who = "you" if self.answering == seat else _seat_words(self.answering)
            to = "you" if p["asker"] == seat else _seat_words(p["asker"])
            what = (f"whether to hand {card_name(p['card'])} to {to}" if p["decision"] == GIVE
                    else "whether to play a Cheshire Cat")
            raise GameError(f"Wait: {who} must first answer {what}.")
        if seat != self.turn:
            raise GameError(f"It is not your turn: {_seat_words(self.turn)} is to play.")

    def _do_take(self, seat: int, action: dict[str, Any]) -> None:
        if self.pending is not None or seat != self.turn:
            self._check_turn(seat)
        card = action["card"]
        if not self.row:  # (the seat to play then holds a set card: one that holds none is skipped)
            raise GameError("The row is empty: ask another player for a card.")
        if not isinstance(card, str) or card not in self.row:
            if not isinstance(card, str):
                raise GameError("Name a card of the row to take.")
            if card in _CARD_SET_OR_SPECIAL:
                raise GameError(f"{card_name(card)[0].upper()}{card_name(card)[1:]} is not in the row.")
            raise GameError(f"There is no card {card_name(card)} in the row." if len(card) <= 12
                            else "There is no such card in the row.")
        row = self.row
        i = row.index(card)
        if self.stock:
            row[i] = filled = self.stock.pop(0)
        else:
            del row[i]
            filled = None
        self.log.append({"type": "took", "seat": seat, "card": card, "filled": filled})
        self._receive(seat, card)
        if self.ended_by is None:
            self._pass_turn(seat)

    def _do_ask(self, seat: int, action: dict[str, Any]) -> None:
        if self.pending is not None or seat != self.turn:
            self._check_turn(seat)
        to, card = action["to"], action["card"]
        n = self.players
        if to == seat and type(to) is int:
            raise GameError("You cannot ask yourself: ask another player.")
        if type(to) is not int or not 0 <= to < n:
            raise GameError(f"Ask another player at this table: there is no such seat among its {n}.")
        if card == RABBIT or card == CAT:
            raise GameError("White Rabbits and Cheshire Cats cannot be asked for: ask for a set card.")
        s = CARD_SET.get(card) if isinstance(card, str) else None
        if s is None:
            named = card_name(card)
            raise GameError(f"There is no card {named} in the pack: ask for one of A1 to H5." if named != "that card"
                            else "That is not a card of the pack: ask for one of A1 to H5.")
        hand = self.hands[seat]
        if card in hand:
            raise GameError(f"You hold {card_name(card)} yourself.")
        if s not in map(_SET_OF, hand):
            raise GameError(f"You may ask for a card of set {s} only while you hold a card of set {s}.")
        self.log.append({"type": "asked", "seat": seat, "to": to, "card": card})
        other = self.hands[to]
        if card in other:
            if RABBIT in other and not self.cat_this_turn:
                self.pending = {"decision": GIVE, "asker": seat, "to": to, "card": card}
                self.answering = to
            else:
                self._hand_over(to, seat, card)
        else:
            self.log.append({"type": "not_held", "seat": to, "card": card})
            if CAT in hand and not self.rabbit_this_turn:
                self.pending = {"decision": CAT_CHOICE, "asker": seat, "to": to, "card": card}
                self.answering = seat
            else:
                self._pass_turn(seat)

    def _answer(self, seat: int, decision: str, kind: str) -> dict[str, Any]:
        p = self.pending
        if p is None or p["decision"] != decision:
            if decision == GIVE:
                raise GameError("Nobody is waiting for you to hand over a card.")
            what = "pass" if kind == "pass" else "play a Cheshire Cat"
            raise GameError(f"You can {what} only just after an ask of yours has failed, while you hold a Cheshire Cat.")
        if seat != self.answering:
            raise GameError(f"Only {_seat_words(self.answering)} can answer this ({kind} is not yours to choose).")
        return p

    def _resolved(self) -> dict[str, Any]:
        p = self.pending
        self.pending = self.answering = self.deadline = None
        return p  # type: ignore[return-value]

    def _do_give(self, seat: int, action: dict[str, Any]) -> None:
        self._answer(seat, GIVE, "give")
        p = self._resolved()
        self._hand_over(p["to"], p["asker"], p["card"])

    def _do_rabbit(self, seat: int, action: dict[str, Any]) -> None:
        self._answer(seat, GIVE, "rabbit")
        p = self._resolved()
        self.hands[seat].remove(RABBIT)
        self.played.append(RABBIT)
        self.rabbit_this_turn = True
        self.log.append({"type": "rabbit", "seat": seat, "asker": p["asker"], "card": p["card"]})
        self._pass_turn(p["asker"])

    def _do_cat(self, seat: int, action: dict[str, Any]) -> None:
        self._answer(seat, CAT_CHOICE, "cat")
        self._resolved()
        self.hands[seat].remove(CAT)
        self.played.append(CAT)
        self.cat_this_turn = True
        self.log.append({"type": "cat", "seat": seat})
        self._go_on(seat)

    def _do_pass(self, seat: int, action: dict[str, Any]) -> None:
        self._answer(seat, CAT_CHOICE, "pass")
        self._resolved()
        self._pass_turn(seat)

    def _do_timeout(self, seat: int, action: dict[str, Any]) -> None:
        if self.pending is None:
            raise GameError("Nobody's answer is awaited.")
        if seat != self.answering:
            raise GameError(f"Only {_seat_words(self.answering)}'s time can run out now.")
        self.log.append({"type": "timeout", "seat": seat})
        if self.pending["decision"] == GIVE:
            self._do_give(seat, action)
        else:
            self._do_pass(seat, action)

    def stop(self) -> None:
        """End the hand early (the organiser's bell): the sets laid so far count."""
        if self.ended_by is not None:
            raise GameError("The hand is over.")
        self.log.append({"type": "stopped"})
        self._finish(STOPPED)
        self.version += 1

    # ---------------------------------------------------------------- moving cards and turns
    def _hand_over(self, giver: int, asker: int, card: str) -> None:
        self.hands[giver].remove(card)
        self.log.append({"type": "handed", "seat": giver, "to": asker, "card": card})
        self._receive(asker, card)
        if self.ended_by is None:
            self._go_on(asker)

    def _receive(self, seat: int, card: str) -> None:
        self.hands[seat].append(card)
        s = CARD_SET.get(card)
        if s is not None:
            self._lay_if_complete(seat, s)

    def _lay_if_complete(self, seat: int, s: str) -> None:
        hand = self.hands[seat]
        if len(hand) < 5 or list(map(_SET_OF, hand)).count(s) < 5:
            return
        members = SET_CARDS[s]
        hand[:] = [c for c in hand if c not in members]
        self.laid[seat].append(s)
        self.lay_order.append(seat)
        self.log.append({"type": "laid", "seat": seat, "set": s})
        if len(self.lay_order) == len(SETS):
            self._finish(ALL_LAID)

    def _go_on(self, seat: int) -> None:
        """After a card handed over or a Cat: the asker goes on, unless it can do nothing more."""
        if not self.can_act(seat):
            self._pass_turn(seat)

    def _pass_turn(self, seat: int) -> None:
        self._start_turn((seat + 1) % self.players)

    def _start_turn(self, seat: int) -> None:
        """The turn goes to ``seat``, or on to the left past every seat that can do nothing."""
        self.rabbit_this_turn = self.cat_this_turn = False
        self.pending = self.answering = self.deadline = None
        n = self.players
        for k in range(n):
            s = (seat + k) % n
            if self.can_act(s):
                self.turn = s
                self.log.append({"type": "turn", "seat": s})
                return
            self.log.append({"type": "skipped", "seat": s})
        self._finish(STOPPED)  # unreachable: an unlaid set is always in someone's hand or the row

    def _finish(self, ended_by: str) -> None:
        self.ended_by = ended_by
        self.turn = self.pending = self.answering = self.deadline = None
        self.log.append({"type": "ended", "by": ended_by})

    # ---------------------------------------------------------------- result
    @property
    def points(self) -> list[int] | None:
        if self.ended_by is None:
            return None
        return [POINTS_PER_SET * len(x) for x in self.laid]

    def mover(self) -> int:
        """Most sets laid; ties: the tied seat that laid a set most recently; none laid: the
        dealer's left."""
        if self.ended_by is None:
            raise GameError("The hand is not over yet.")
        return mover_of([len(x) for x in self.laid], self.lay_order, self.dealer)

    def outcome(self) -> Outcome:
        mover = self.mover()
        sets = [len(x) for x in self.laid]
        return Outcome(points=list(self.points or []), mover=mover, winner=mover if max(sets) else None,
                       facts=standing_facts(sets, mover),
                       details={"sets": [len(x) for x in self.laid], "laid": [list(x) for x in self.laid],
                                "ended_by": self.ended_by})

    # ---------------------------------------------------------------- views
    def view(self, seat: int | None) -> dict[str, Any]:
        """What ``seat`` may see (None: a spectator): its own cards only, the others' as counts,
        the stock as a count, everything on the table, the pending ask and the public log; once the
        hand is over, ``result`` (points, mover, ended_by, sets per seat)."""
        check_seat(seat, self.players, spectator=True)
        p = self.pending
        finished = self.ended_by is not None
        log = self.log
        v: dict[str, Any] = {
            "game": "alice",
            "players": self.players,
            "seat": seat,
            "version": self.version,
            "dealer": self.dealer,
            "turn": self.turn,
            "answering": self.answering,
            "pending": None if p is None else dict(p),
            "deadline": self.deadline,
            "answer_seconds": self.answer_seconds,
            "row": list(self.row),
            "stock": len(self.stock),
            "counts": [len(h) for h in self.hands],
            "laid": [list(x) for x in self.laid],
            "played": list(self.played),
            "log": log[-VIEW_LOG:],
            "log_from": max(0, len(log) - VIEW_LOG),
            "finished": finished,
            "points": self.points,
            "mover": self.mover() if finished else None,
            "ended_by": self.ended_by,
        }
        if finished:  # the shared screen client's sign of a finished hand (static/js/play_client.js)
            v["result"] = {"points": list(self.points or []), "mover": v["mover"], "ended_by": self.ended_by,
                           "sets": [len(x) for x in self.laid]}
        if seat is not None:
            v["hand"] = sorted(self.hands[seat])
            v["may"] = self.may(seat)
        return v

    # ---------------------------------------------------------------- storage
    def to_json(self) -> dict[str, Any]:
        return storage.to_json(self)

    @classmethod
    def load(cls, data: dict[str, Any]) -> AliceHand:
        """Rebuild a hand from ``to_json`` output; GameError if it is not one."""
        return storage.load(cls, data)

    def __eq__(self, other: object) -> bool:  # equal stored state, version included
        return isinstance(other, AliceHand) and self.to_json() == other.to_json()

    __hash__ = None  # type: ignore[assignment]


_HANDLERS = {
    "take": AliceHand._do_take,
    "ask": AliceHand._do_ask,
    "give": AliceHand._do_give,
    "rabbit": AliceHand._do_rabbit,
    "cat": AliceHand._do_cat,
    "pass": AliceHand._do_pass,
    "timeout": AliceHand._do_timeout,
}
