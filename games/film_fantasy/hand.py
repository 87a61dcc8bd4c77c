"""The digital hand: a deterministic state machine (docs/rules.md, "The deal and the passing cycle",
"Declaring", "The auction").

Phases: ``passing`` (simultaneous passes, then an automatic draw) -> ``auction`` (opened at once
after the final draw) -> ``finished`` (a valid declaration, or ``stop()``). Randomness is used only
when the hand is created (removed sets, dealer draw, shuffle); after that the state depends only
on the actions. Every accepted action bumps ``version``; a refused one raises ``GameError`` and
changes nothing, because every check runs before the first change.

Actions are JSON dicts::

    {"type": "pass", "card": "3-2"}                 passing: choose (or change) the card to pass
    {"type": "declare"}                             passing or auction: lay down the best declaration
    {"type": "offer", "to": 2, "cards": [..1-3..]}  auction
    {"type": "accept", "offer": 7, "cards": [...]}  auction, by the seat offered to
    {"type": "decline", "offer": 7}                 auction, by the seat offered to
    {"type": "withdraw", "offer": 7}                auction, by the offerer
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

from ..base import STOPPED, GameError, Outcome, action_type, short
from .cards import (CARD_FILM, JOKER, build_deck, card_name, card_sort_key, check_players, choose_removed_films,
                    packs_for)
from .entry import summary_of_hand
from .scoring import best_declaration, score_hand, standing_facts

PASSING, AUCTION, FINISHED = "passing", "auction", "finished"
DECLARED_PASSING, DECLARED_AUCTION = "declared_passing", "declared_auction"
MAX_OFFER = 3
# A seat's offers in one hand's auction. Offer and withdraw may be repeated at will, and each
# adds to the hand's log, stored and written again with every move: found from outside, one
# phone grew a hand to 400 KB and every move of the table (and of every table, on SQLite's one
# writer) to 85 ms. A real auction makes a few (smart bots: 4 at the median, 24 at the 99th
# percentile over 300 hands).
MAX_OFFERS_PER_SEAT = 50
VIEW_LOG = 100  # entries of the public log a view carries: the newest (``FilmFantasyHand.view``)

_ACTION_KEYS = {
    "pass": {"type", "card"},
    "declare": {"type"},
    "offer": {"type", "to", "cards"},
    "accept": {"type", "offer", "cards"},
    "decline": {"type", "offer"},
    "withdraw": {"type", "offer"},
}


def _is_int(x: Any) -> bool:
    return type(x) is int or (isinstance(x, int) and not isinstance(x, bool))


class FilmFantasyHand:
    """One hand at one table. Build with ``new`` (dealt) or ``load`` (from ``to_json``)."""

    def __init__(self) -> None:
        self.players = 0
        self.packs = 1
        self.dealer = 0
        self.removed: list[int] = []
        self.dealer_draw: list[str] = []
        self.hands: list[list[str]] = []
        self.stack: list[str] = []  # drawn from the end
        self.odd: list[str] = []
        self.phase = PASSING
        self.round = 1
        self.passes: list[str | None] = []
        self.offers: dict[int, dict[str, Any]] = {}
        self.next_offer = 1
        self.auction_actions = 0
        self.offers_made: list[int] = []  # by seat, this hand (``MAX_OFFERS_PER_SEAT``)
        # By seat, the cards it received in its latest draw (the pass from its right and the card
        # drawn) or exchange: its phone marks those it still holds "new", after a reload too.
        self.received: list[list[str]] = []
        self.log: list[dict[str, Any]] = []
        self.version = 0
        self.declarer: int | None = None
        self.declaration: list[str] | None = None
        self.ended_by: str | None = None
        self.points: list[int] | None = None
        self.declarer_joker_penalty = True

    # ---------------------------------------------------------------- creation
    @classmethod
    def new(
        cls,
        players: int,
        rng: random.Random,
        *,
        dealer: int | None = None,
        declarer_joker_penalty: bool = True,
    ) -> "FilmFantasyHand":
        """Deal a hand. Without ``dealer`` the dealer is drawn: cards dealt face up round the table
        from seat 0 until the first Joker (rules: "Choosing the dealer"); with it (home game: the
        deal passes left) no draw is made."""
        n = check_players(players)
        h = cls()
        h.players, h.packs, h.declarer_joker_penalty = n, packs_for(n), bool(declarer_joker_penalty)
        h.removed = choose_removed_films(n, rng)
        cards = build_deck(n, h.removed)
        if dealer is None:
            draw = cards[:]
            rng.shuffle(draw)
            first = draw.index(JOKER)
            h.dealer, h.dealer_draw = first % n, draw[: first + 1]
        else:
            if not _is_int(dealer) or not 0 <= dealer < n:
                raise GameError(f"Dealer must be a seat from 0 to {n - 1}, not {dealer!r}.")
            h.dealer = dealer
        rng.shuffle(cards)
        h.hands = [[] for _ in range(n)]
        order = h._from_dealers_left()
        for _ in range(4):
            for seat in order:
                h.hands[seat].append(cards.pop())
        h.stack = cards
        h.passes = [None] * n
        h.offers_made = [0] * n
        h.received = [[] for _ in range(n)]
        h.log = [
            {"type": "removed_sets", "films": list(h.removed)},
            {"type": "dealer", "seat": h.dealer, "drawn": len(h.dealer_draw)},
            {"type": "deal", "cards_each": 4, "stack": len(h.stack)},
        ]
        if len(h.stack) < n:
            h._open_auction()
        return h

    def _from_dealers_left(self) -> list[int]:
        n = self.players
        return [(self.dealer + k) % n for k in range(1, n + 1)]

    # ---------------------------------------------------------------- actions
    @property
    def finished(self) -> bool:
        return self.phase == FINISHED

    def apply(self, seat: int, action: dict[str, Any]) -> None:
        """Apply one seat's action, or raise GameError (state untouched) saying why not."""
        if self.phase == FINISHED:
            raise GameError("The hand is over.")
        if type(seat) is not int or not 0 <= seat < self.players:  # bool and int subclasses refused
            raise GameError(f"Seat must be a number from 0 to {self.players - 1}, not {short(repr(seat))}.")
        _HANDLERS[action_type(action, _ACTION_KEYS)](self, seat, action)
        self.version += 1

    def _do_pass(self, seat: int, action: dict[str, Any]) -> None:
        if self.phase != PASSING:
            raise GameError("Passing is over: the auction is open." if self.phase == AUCTION else "Not passing now.")
        card = action["card"]
        if not isinstance(card, str) or card not in self.hands[seat]:
            raise GameError(f"You do not hold {card_name(card)} to pass.")
        if self.passes[seat] is None:  # a changed mind is not logged: the log is public
            self.log.append({"type": "passed", "seat": seat, "round": self.round})
        self.passes[seat] = card
        if None not in self.passes:
            self._move_passes_and_draw()

    def _move_passes_and_draw(self) -> None:
        # Rules 2-3: all passes move left at once, then the dealer gives one card each from his left.
        n, hands, passes = self.players, self.hands, self.passes
        for s in range(n):
            hands[s].remove(passes[s])  # type: ignore[arg-type]
        for s in range(n):
            hands[(s + 1) % n].append(passes[s])  # type: ignore[arg-type]
        self.received = [[passes[(s - 1) % n]] for s in range(n)]  # type: ignore[list-item]
        self.passes = [None] * n
        stack = self.stack
        for s in self._from_dealers_left():
            card = stack.pop()
            hands[s].append(card)
            self.received[s].append(card)
        self.log.append({"type": "draw", "round": self.round, "stack": len(stack)})
        self.round += 1
        if len(stack) < n:  # no full draw round left: no pass after the final draw
            self._open_auction()

    def _open_auction(self) -> None:
        self.odd, self.stack = self.stack, []
        self.passes = [None] * self.players
        self.phase = AUCTION
        self.log.append({"type": "auction_opened", "odd_cards": len(self.odd)})

    def _do_declare(self, seat: int, action: dict[str, Any]) -> None:
        if self.phase not in (PASSING, AUCTION):
            raise GameError("Nobody can declare now.")
        found = best_declaration(Counter(self.hands[seat]), self.declarer_joker_penalty)
        if found is None:
            raise GameError("You hold no declaration: two complete sets of four different cards of a film.")
        ended_by = DECLARED_PASSING if self.phase == PASSING else DECLARED_AUCTION
        self.declaration = found[0]
        self.log.append({"type": "declared", "seat": seat, "nine_card": len(found[0]) == 9})
        self._finish(seat, ended_by)

    def _available(self, seat: int, cards: Any, count: int | None, what: str) -> list[str]:
        """Validate a list of 1-3 of ``seat``'s cards that are not locked in its pending offers."""
        if not isinstance(cards, list) or not 1 <= len(cards) <= MAX_OFFER:
            raise GameError(f"{what} must be a list of 1 to {MAX_OFFER} cards.")
        if count is not None and len(cards) != count:
            raise GameError(f"{what} must be exactly {count} card{'s' if count > 1 else ''}, not {len(cards)}.")
        if not all(isinstance(c, str) for c in cards):
            raise GameError(f"{what} must be card codes.")
        hand = self.hands[seat]
        locked: list[str] = []
        for o in self.offers.values():
            if o["from"] == seat:
                locked += o["cards"]
        if not locked and len(cards) == 1:  # the common case: one card, nothing locked
            if cards[0] not in hand:
                raise GameError(f"You do not hold {card_name(cards[0])}.")
            return list(cards)
        for code in set(cards):
            k = cards.count(code)
            if hand.count(code) - locked.count(code) < k:
                held = hand.count(code)
                if held >= k:
                    name = card_name(code)
                    raise GameError(f"{name[0].upper()}{name[1:]} is in an offer of yours still open: it cannot "
                                    "be given until that offer ends.")
                raise GameError(f"You do not hold {k} of {card_name(code)}." if k > 1 else f"You do not hold {card_name(code)}.")
        return list(cards)

    def _auction_offer(self, seat: int, action: dict[str, Any]) -> dict[str, Any]:
        if self.phase != AUCTION:
            raise GameError("The auction is not open.")
        oid = action["offer"]
        offer = self.offers.get(oid) if _is_int(oid) else None
        if offer is None:
            raise GameError(f"There is no pending offer {short(repr(oid))}.")
        return offer

    def _do_offer(self, seat: int, action: dict[str, Any]) -> None:
        if self.phase != AUCTION:
            raise GameError("Offers are made only once the auction is open.")
        to = action["to"]
        if not _is_int(to) or not 0 <= to < self.players or to == seat:
            raise GameError(f"An offer goes to another seat from 0 to {self.players - 1}, not {short(repr(to))}.")
        if self.offers_left(seat) <= 0:
            raise GameError(f"You have made {MAX_OFFERS_PER_SEAT} offers this hand, the most one player may: "
                            "answer the offers made to you, or declare.")
        cards = self._available(seat, action["cards"], None, "The offered cards")
        oid = self.next_offer
        self.offers[oid] = {"id": oid, "from": seat, "to": to, "cards": cards}
        self.next_offer += 1
        self.offers_made[seat] += 1
        self.auction_actions += 1
        self.log.append({"type": "offer", "offer": oid, "from": seat, "to": to, "count": len(cards)})

    def offers_left(self, seat: int) -> int:
        """How many more offers ``seat`` may make this hand (``MAX_OFFERS_PER_SEAT``)."""
        return MAX_OFFERS_PER_SEAT - self.offers_made[seat]

    def _do_accept(self, seat: int, action: dict[str, Any]) -> None:
        offer = self._auction_offer(seat, action)
        if offer["to"] != seat:
            raise GameError("That offer was made to another player, not to you.")
        given = self._available(seat, action["cards"], len(offer["cards"]), "The cards given in exchange")
        src, dst = self.hands[offer["from"]], self.hands[seat]
        for c in offer["cards"]:
            src.remove(c)
            dst.append(c)
        for c in given:
            dst.remove(c)
            src.append(c)
        self.received[seat], self.received[offer["from"]] = list(offer["cards"]), list(given)
        del self.offers[offer["id"]]
        self.auction_actions += 1
        self.log.append({"type": "exchange", "offer": offer["id"], "from": offer["from"], "to": seat,
                         "count": len(given)})

    def _do_decline(self, seat: int, action: dict[str, Any]) -> None:
        offer = self._auction_offer(seat, action)
        if offer["to"] != seat:
            raise GameError("Only the player the offer was made to can decline it.")
        del self.offers[offer["id"]]
        self.auction_actions += 1
        self.log.append({"type": "declined", "offer": offer["id"], "from": offer["from"], "to": seat})

    def _do_withdraw(self, seat: int, action: dict[str, Any]) -> None:
        offer = self._auction_offer(seat, action)
        if offer["from"] != seat:
            raise GameError("Only the player who made the offer can withdraw it.")
        del self.offers[offer["id"]]
        self.auction_actions += 1
        self.log.append({"type": "withdrawn", "offer": offer["id"], "from": seat, "to": offer["to"]})

    def stop(self) -> None:
        """End the hand without a declaration (the organiser ends the round): all score their sets."""
        if self.phase == FINISHED:
            raise GameError("The hand is over.")
        self.log.append({"type": "stopped"})
        self._finish(None, STOPPED)
        self.version += 1

    def _finish(self, declarer: int | None, ended_by: str) -> None:
        if self.offers:
            self.log.append({"type": "offers_void", "count": len(self.offers)})
        self.offers = {}
        self.passes = [None] * self.players
        self.points = score_hand(self.hands, declarer, declarer_joker_penalty=self.declarer_joker_penalty)
        self.declarer, self.ended_by, self.phase = declarer, ended_by, FINISHED

    # ---------------------------------------------------------------- reading
    def received_held(self, seat: int) -> list[str]:
        """The cards ``seat`` received in its latest draw or exchange that it still holds (copies
        counted), in the order received."""
        left = Counter(self.hands[seat])
        held = []
        for c in self.received[seat]:
            if left[c] > 0:
                left[c] -= 1
                held.append(c)
        return held

    def can_declare(self, seat: int) -> bool:
        return self.phase in (PASSING, AUCTION) and best_declaration(Counter(self.hands[seat])) is not None

    def view(self, seat: int | None) -> dict[str, Any]:
        """What ``seat`` may see (None: a spectator, who sees no cards): own cards only, counts of the
        others', the public log; pending offers involving the seat, cards shown only to the offerer."""
        if seat is not None and (not _is_int(seat) or not 0 <= seat < self.players):
            raise GameError(f"Seat must be a number from 0 to {self.players - 1} or None, not {seat!r}.")
        v: dict[str, Any] = {
            "game": "film-fantasy",
            "players": self.players,
            "seat": seat,
            "version": self.version,
            "phase": self.phase,
            "round": self.round,
            "dealer": self.dealer,
            # How many cards were dealt face up to find the dealer (0: a home game's dealer, given):
            # the spectator's screen says it too, without the cards.
            "dealer_drawn": len(self.dealer_draw),
            "removed_films": list(self.removed),
            "counts": [len(h) for h in self.hands],
            "stack": len(self.stack),
            "odd_cards": len(self.odd),
            "pass_pending": [s for s, p in enumerate(self.passes) if p is None] if self.phase == PASSING else [],
            # The newest of the public log only: a seat that offered and withdrew thousands of
            # times would otherwise have every phone at the table sent all of it with each move.
            "log": self.log[-VIEW_LOG:],
            "log_from": max(0, len(self.log) - VIEW_LOG),
        }
        if seat is not None:
            v["dealer_draw"] = list(self.dealer_draw)  # dealt face up: public to the players
            v["hand"] = sorted(self.hands[seat], key=card_sort_key)
            v["my_pass"] = self.passes[seat]
            v["received"] = self.received_held(seat)
            v["offers_left"] = self.offers_left(seat)
            offers = []
            for o in self.offers.values():
                if o["from"] == seat:
                    offers.append({"id": o["id"], "from": seat, "to": o["to"], "count": len(o["cards"]),
                                   "my_cards": list(o["cards"])})
                elif o["to"] == seat:
                    offers.append({"id": o["id"], "from": o["from"], "to": seat, "count": len(o["cards"])})
            v["offers"] = offers
            if self.declarer == seat:
                v["declaration"] = list(self.declaration or [])
        if self.phase == FINISHED:
            v["result"] = {
                "points": list(self.points or []),
                "declarer": self.declarer,
                "mover": self.mover(),
                "nine_card": self.nine_card,
                "ended_by": self.ended_by,
                # Public once the hand is over (laid down and counted at the table), for every
                # phone's result: the films declared, as numbers (no card codes; a film twice for
                # two sets of it), and each seat's scored holding as the entry form has it (the
                # declarer's: the cards outside the declaration).
                "declared_films": self._declared_films(),
                "holdings": summary_of_hand(self)["holdings"],
            }
        return v

    def _declared_films(self) -> list[int]:
        sets = Counter(CARD_FILM[c] for c in self.declaration or [] if c != JOKER)
        return sorted(f for f, n in sets.items() for _ in range(n // 4))

    @property
    def nine_card(self) -> bool:
        return self.declaration is not None and len(self.declaration) == 9

    def mover(self) -> int:
        """The declarer, or (no declaration) the top scorer, ties to the first clockwise from the
        dealer's left (rules: "A game, and a drive")."""
        if self.phase != FINISHED or self.points is None:
            raise GameError("The hand is not over yet.")
        if self.declarer is not None:
            return self.declarer
        best = max(self.points)
        return next(s for s in self._from_dealers_left() if self.points[s] == best)

    def outcome(self) -> Outcome:
        mover = self.mover()
        return Outcome(points=list(self.points or []), mover=mover, winner=self.declarer,
                       facts=standing_facts(self.players, self.declarer, self.nine_card),
                       details={"nine_card": self.nine_card})

    # ---------------------------------------------------------------- storage
    def to_json(self) -> dict[str, Any]:
        return {
            "game": "film-fantasy",
            "players": self.players,
            "dealer": self.dealer,
            "removed": list(self.removed),
            "dealer_draw": list(self.dealer_draw),
            "hands": [list(h) for h in self.hands],
            "stack": list(self.stack),
            "odd": list(self.odd),
            "phase": self.phase,
            "round": self.round,
            "passes": list(self.passes),
            "offers": [{"id": o["id"], "from": o["from"], "to": o["to"], "cards": list(o["cards"])}
                       for o in self.offers.values()],
            "next_offer": self.next_offer,
            "auction_actions": self.auction_actions,
            "offers_made": list(self.offers_made),
            "received": [list(r) for r in self.received],
            "log": [dict(e, **{k: list(v) for k, v in e.items() if isinstance(v, list)}) for e in self.log],
            "version": self.version,
            "declarer": self.declarer,
            "declaration": None if self.declaration is None else list(self.declaration),
            "ended_by": self.ended_by,
            "points": None if self.points is None else list(self.points),
            "options": {"declarer_joker_penalty": self.declarer_joker_penalty},
        }

    @classmethod
    def load(cls, data: dict[str, Any]) -> "FilmFantasyHand":
        """Rebuild a hand from ``to_json`` output; GameError if it is not one."""
        try:
            if not isinstance(data, dict) or data.get("game") != "film-fantasy":
                raise GameError("Not a stored Film Fantasy hand.")
            h = cls()
            h.players = check_players(data["players"])
            h.packs = packs_for(h.players)
            h.dealer = int(data["dealer"])
            h.removed = [int(f) for f in data["removed"]]
            h.dealer_draw = [str(c) for c in data["dealer_draw"]]
            h.hands = [[str(c) for c in hand] for hand in data["hands"]]
            h.stack = [str(c) for c in data["stack"]]
            h.odd = [str(c) for c in data["odd"]]
            h.phase = str(data["phase"])
            h.round = int(data["round"])
            h.passes = [None if p is None else str(p) for p in data["passes"]]
            h.offers = {int(o["id"]): {"id": int(o["id"]), "from": int(o["from"]), "to": int(o["to"]),
                                       "cards": [str(c) for c in o["cards"]]} for o in data["offers"]}
            h.next_offer = int(data["next_offer"])
            h.auction_actions = int(data["auction_actions"])
            # (A hand stored before offers were counted: counted from its log.)
            h.offers_made = ([int(n) for n in data["offers_made"]] if "offers_made" in data else
                             [sum(1 for e in data["log"] if e["type"] == "offer" and e["from"] == s)
                              for s in range(h.players)])
            # (A hand stored before the cards received were kept: none marked new.)
            h.received = [[str(c) for c in r] for r in data.get("received") or [[] for _ in range(h.players)]]
            h.log = [dict(e, **{k: list(v) for k, v in e.items() if isinstance(v, list)}) for e in data["log"]]
            h.version = int(data["version"])
            h.declarer = None if data["declarer"] is None else int(data["declarer"])
            h.declaration = None if data["declaration"] is None else [str(c) for c in data["declaration"]]
            h.ended_by = data["ended_by"]
            h.points = None if data["points"] is None else [int(p) for p in data["points"]]
            h.declarer_joker_penalty = bool(data["options"]["declarer_joker_penalty"])
        except GameError:
            raise
        except (KeyError, TypeError, ValueError, AttributeError, OverflowError) as exc:
            raise GameError(f"Not a stored Film Fantasy hand: {exc!r}.") from None
        seats = range(h.players)
        if (h.phase not in (PASSING, AUCTION, FINISHED) or len(h.hands) != h.players
                or h.dealer not in seats or (h.declarer is not None and h.declarer not in seats)
                or h.version < 0 or h.round < 0 or h.auction_actions < 0
                or any(o["from"] not in seats or o["to"] not in seats or o["from"] == o["to"]
                       or Counter(o["cards"]) - Counter(h.hands[o["from"]]) for o in h.offers.values())
                or any(p is not None and p not in h.hands[s] for s, p in enumerate(h.passes))
                or len(h.passes) != h.players or len(h.offers_made) != h.players or len(h.received) != h.players
                or any(c not in CARD_FILM for c in [*h.stack, *h.odd, *(c for x in h.hands for c in x)])):
            raise GameError("Not a stored Film Fantasy hand: inconsistent cards, seats or phase.")
        return h

    def __eq__(self, other: object) -> bool:  # equal stored state, version included
        return isinstance(other, FilmFantasyHand) and self.to_json() == other.to_json()

    __hash__ = None  # type: ignore[assignment]


_HANDLERS = {
    "pass": FilmFantasyHand._do_pass,
    "declare": FilmFantasyHand._do_declare,
    "offer": FilmFantasyHand._do_offer,
    "accept": FilmFantasyHand._do_accept,
    "decline": FilmFantasyHand._do_decline,
    "withdraw": FilmFantasyHand._do_withdraw,
}
