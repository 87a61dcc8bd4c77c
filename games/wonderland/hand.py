"""The digital hand: a deterministic state machine (docs/rules.md, "The Game of Alice in Wonderland").

Randomness is used only when the hand is created (the shuffle; the drive draws the dealer); after
that the state depends only on the actions. Every accepted action bumps ``version``; a refused one
raises ``GameError`` and changes nothing, because every check runs before the first change.

The one action is ``{"type": "play", "card": "P7"}`` by the seat whose turn it is. A completed
trick goes to its highest card's player, who leads the next; when every hand is empty and the
pack holds another deal (``deals``), it is dealt at once. The hand ends when the last deal is
played out, or at ``stop()`` (the organiser's bell: the cards taken so far count).
"""

from __future__ import annotations

import random
from typing import Any

from ..base import STOPPED, GameError, Outcome, check_seat
from .cards import (PACK, RANK, SORT_KEY, _legal, card_name, check_players, check_pool_of_tears, choose_mover, count,
                    deals, deck, pairs_in, rule_in_force, standing_facts, why_illegal, winner_of)

PLAYING, FINISHED = "playing", "finished"
PLAYED_OUT = "played_out"
VIEW_LOG = 100  # entries of the public log a view carries: the newest
_PACK_SET = frozenset(PACK)


def _is_int(x: Any) -> bool:
    return type(x) is int


class WonderlandHand:
    """One hand at one table. Build with ``from_deck``, ``new`` (shuffled) or ``load``."""

    def __init__(self) -> None:
        self.players = 0
        self.dealer = 0
        self.pool_of_tears = "P16"
        self.plan: list[int] = []
        self.deal = 0  # the deal being played, from 1
        self.stock: list[str] = []  # undealt cards, the next deal taken from the front
        self.hands: list[list[str]] = []
        self.trick: list[dict[str, Any]] = []  # [{"seat": s, "card": c}] in the order played
        self.leader: int | None = None
        self.turn: int | None = None
        self.taken: list[list[str]] = []
        self.last_trick: dict[str, Any] | None = None  # {"winner": s, "trick": [...], "cards": [...]}
        self.log: list[dict[str, Any]] = []
        self.version = 0
        self.ended_by: str | None = None
        self.points: list[int] | None = None

    # ---------------------------------------------------------------- creation
    @classmethod
    def from_deck(cls, players: int, cards: list[str], dealer: int = 0,
                  pool_of_tears: str = "P16") -> "WonderlandHand":
        """A hand dealt from ``cards`` (the 52-card pack in any order; each deal takes its cards
        from the front of what is left, one at a time from the dealer's left)."""
        n = check_players(players)
        if not _is_int(dealer) or not 0 <= dealer < n:
            raise GameError(f"The dealer must be one of the {n} seats at this table.")
        check_pool_of_tears(pool_of_tears)
        try:
            cards = list(cards)
        except TypeError:
            raise GameError("The cards must be the 52-card pack.") from None
        if len(cards) != len(PACK) or not all(isinstance(c, str) for c in cards) or set(cards) != _PACK_SET:
            raise GameError("The cards must be the 52-card pack, each card once.")
        h = cls()
        h.players, h.dealer, h.pool_of_tears = n, dealer, pool_of_tears
        h.plan = deals(n)
        h.stock = cards
        h.hands = [[] for _ in range(n)]
        h.taken = [[] for _ in range(n)]
        h.log = [{"type": "dealer", "seat": dealer}]
        h.leader = h.turn = (dealer + 1) % n
        h._deal()
        return h

    @classmethod
    def new(cls, players: int, rng: random.Random, dealer: int = 0,
            pool_of_tears: str = "P16") -> "WonderlandHand":
        """A hand dealt from a pack shuffled by ``rng``."""
        return cls.from_deck(players, deck(players, rng), dealer, pool_of_tears)

    def _deal(self) -> None:
        n, each = self.players, self.plan[self.deal]
        stock, hands = self.stock, self.hands
        order = [(self.dealer + k) % n for k in range(1, n + 1)]
        for i in range(each * n):  # one at a time round the table from the dealer's left
            hands[order[i % n]].append(stock[i])
        del stock[: each * n]
        self.deal += 1
        self.log.append({"type": "deal", "deal": self.deal, "cards_each": each, "leader": self.turn})

    # ---------------------------------------------------------------- actions
    @property
    def finished(self) -> bool:
        return self.ended_by is not None

    @property
    def trick_cards(self) -> list[str]:
        """The cards of the trick so far, in the order played."""
        return [p["card"] for p in self.trick]

    def legal(self, seat: int) -> list[str]:
        """The cards ``seat`` may play now (sorted for display); [] when it is not its turn."""
        if self.turn != seat or self.ended_by is not None:
            return []
        return sorted(_legal(self.hands[seat], [p["card"] for p in self.trick]), key=SORT_KEY.__getitem__)

    def apply(self, seat: int, action: dict[str, Any]) -> None:
        """Play one card for ``seat``, or raise GameError (state untouched) saying why not."""
        if self.ended_by is not None:
            raise GameError("The hand is over.")
        check_seat(seat, self.players)
        if type(action) is not dict or action.get("type") != "play" or len(action) != 2 or "card" not in action:
            raise GameError('An action must be {"type": "play", "card": <card>}.')
        if seat != self.turn:
            raise GameError(f"It is not your turn: seat {self.turn + 1} plays next.")
        card = action["card"]
        hand = self.hands[seat]
        if not isinstance(card, str) or card not in hand:
            raise GameError(f"You do not hold {card_name(card)}.")
        trick = self.trick
        cards = [p["card"] for p in trick]
        if card not in _legal(hand, cards):
            raise GameError(why_illegal(hand, cards, card))
        # accepted: from here on nothing may fail
        hand.remove(card)
        trick.append({"seat": seat, "card": card})
        self.last_trick = None
        self.log.append({"type": "play", "seat": seat, "card": card})
        self.version += 1
        n = self.players
        if len(trick) < n:
            self.turn = (seat + 1) % n
            return
        cards.append(card)
        rank = RANK
        best = 0
        for i in range(1, n):
            if rank[cards[i]] > rank[cards[best]]:
                best = i
        winner = trick[best]["seat"]
        self.taken[winner].extend(cards)
        self.last_trick = {"winner": winner, "trick": trick, "cards": cards}
        self.trick = []
        self.log.append({"type": "took", "seat": winner, "cards": list(cards)})
        self.leader = self.turn = winner
        if not hand:  # every hand is empty: deal again, or the hand is played out
            if self.deal < len(self.plan):
                self._deal()
            else:
                self._finish(PLAYED_OUT)

    def stop(self) -> None:
        """End the hand early (the organiser's bell): the cards taken so far count; a trick
        still on the table goes to nobody."""
        if self.ended_by is not None:
            raise GameError("The hand is over.")
        self.log.append({"type": "stopped"})
        self._finish(STOPPED)
        self.version += 1

    def _finish(self, ended_by: str) -> None:
        self.points = count(self.taken, self.pool_of_tears)
        self.turn = None
        self.ended_by = ended_by
        self.log.append({"type": "end", "points": list(self.points)})

    # ---------------------------------------------------------------- reading
    def pool_of_tears_seat(self) -> int | None:
        return next((s for s, t in enumerate(self.taken) if self.pool_of_tears in t), None)

    def outcome(self) -> Outcome:
        """Points from ``count``; the mover is the top scorer (ties: more cards taken, then the
        first clockwise from the dealer's left), and the winner unless nobody scored."""
        if self.ended_by is None or self.points is None:
            raise GameError("The hand is not over yet.")
        cards = [len(t) for t in self.taken]
        pairs = [pairs_in(t) for t in self.taken]
        mover = choose_mover(self.points, cards, self.dealer)
        winner = winner_of(self.points, mover)
        return Outcome(
            points=list(self.points), mover=mover, winner=winner, facts=standing_facts(pairs, cards),
            details={"pairs": pairs, "cards": cards,
                     "pool_of_tears": self.pool_of_tears_seat()},
        )

    def view(self, seat: int | None) -> dict[str, Any]:
        """What ``seat`` may see (None: a spectator): its own cards only, the others' counts, the
        trick, the cards taken (public), the last trick and the public log; never undealt cards.
        A seat's view also has ``legal`` (the cards it may play now) and ``must`` (on its turn, the
        rule that forbids the others: ``cards.rule_in_force``)."""
        check_seat(seat, self.players, spectator=True)
        last = self.last_trick
        v: dict[str, Any] = {
            "game": "wonderland",
            "players": self.players,
            "seat": seat,
            "version": self.version,
            "phase": FINISHED if self.ended_by is not None else PLAYING,
            "finished": self.ended_by is not None,
            "dealer": self.dealer,
            "deal": self.deal,
            "deals": list(self.plan),
            "undealt": len(self.stock),
            "pool_of_tears": self.pool_of_tears,
            "turn": self.turn,
            "leader": self.leader,
            "counts": [len(h) for h in self.hands],
            "trick": [dict(p) for p in self.trick],
            "taken": [list(t) for t in self.taken],
            "taken_counts": [len(t) for t in self.taken],
            "last_trick": None if last is None else {"winner": last["winner"], "trick": [dict(p) for p in last["trick"]],
                                                     "cards": list(last["cards"])},
            "log": self.log[-VIEW_LOG:],  # its entries are never changed once appended: shared, not copied
            "log_from": max(0, len(self.log) - VIEW_LOG),
        }
        if seat is not None:
            v["hand"] = sorted(self.hands[seat], key=SORT_KEY.__getitem__)
            v["legal"] = self.legal(seat)
            # On its turn, why the other cards may not be played (cards of the trick only).
            v["must"] = rule_in_force(self.hands[seat], self.trick_cards) if self.turn == seat else None
        if self.ended_by is not None:
            o = self.outcome()
            v["points"] = list(o.points)
            # "mover" and "winner": the top scorer, who won the hand; None when nobody scored (a
            # hand stopped before anyone scored: no seat is the top scorer, though the drive
            # still moves Outcome.mover up). The screen marks the seat named "mover".
            v["result"] = {"points": list(o.points), "mover": o.winner, "winner": o.winner,
                           "ended_by": self.ended_by, **o.details}
        return v

    # ---------------------------------------------------------------- storage
    def to_json(self) -> dict[str, Any]:
        last = self.last_trick
        return {
            "game": "wonderland",
            "players": self.players,
            "dealer": self.dealer,
            "pool_of_tears": self.pool_of_tears,
            "deal": self.deal,
            "stock": list(self.stock),
            "hands": [list(h) for h in self.hands],
            "trick": [dict(p) for p in self.trick],
            "leader": self.leader,
            "turn": self.turn,
            "taken": [list(t) for t in self.taken],
            "last_trick": None if last is None else {"winner": last["winner"], "trick": [dict(p) for p in last["trick"]],
                                                     "cards": list(last["cards"])},
            "log": list(self.log),
            "version": self.version,
            "ended_by": self.ended_by,
            "points": None if self.points is None else list(self.points),
        }

    @classmethod
    def load(cls, data: dict[str, Any]) -> "WonderlandHand":
        """Rebuild a hand from ``to_json`` output; GameError if it is not one."""
        try:
            if not isinstance(data, dict) or data.get("game") != "wonderland":
                raise GameError("Not a stored Wonderland hand.")
            h = cls()
            h.players = check_players(data["players"])
            h.plan = deals(h.players)
            h.dealer = int(data["dealer"])
            h.pool_of_tears = check_pool_of_tears(data["pool_of_tears"])
            h.deal = int(data["deal"])
            h.stock = [str(c) for c in data["stock"]]
            h.hands = [[str(c) for c in x] for x in data["hands"]]
            h.trick = [{"seat": int(p["seat"]), "card": str(p["card"])} for p in data["trick"]]
            h.leader = None if data["leader"] is None else int(data["leader"])
            h.turn = None if data["turn"] is None else int(data["turn"])
            h.taken = [[str(c) for c in x] for x in data["taken"]]
            last = data["last_trick"]
            h.last_trick = None if last is None else {
                "winner": int(last["winner"]),
                "trick": [{"seat": int(p["seat"]), "card": str(p["card"])} for p in last["trick"]],
                "cards": [str(c) for c in last["cards"]]}
            h.log = list(data["log"])  # (read on every move: a copy of each entry cost 0.5 ms of it)
            if not all(type(e) is dict for e in h.log):
                raise GameError("Not a stored Wonderland hand: a log entry is not an object.")
            h.version = int(data["version"])
            h.ended_by = None if data["ended_by"] is None else str(data["ended_by"])
            h.points = None if data["points"] is None else [int(p) for p in data["points"]]
        except GameError:
            raise
        except (KeyError, TypeError, ValueError, AttributeError, OverflowError) as exc:
            raise GameError(f"Not a stored Wonderland hand: {exc!r}.") from None
        seats = range(h.players)
        everything = [*h.stock, *(c for x in h.hands for c in x), *(p["card"] for p in h.trick),
                      *(c for x in h.taken for c in x)]
        if (len(h.hands) != h.players or len(h.taken) != h.players or not 0 <= h.dealer < h.players
                or len(everything) != len(PACK) or set(everything) != _PACK_SET
                or h.ended_by not in (None, PLAYED_OUT, STOPPED) or not 1 <= h.deal <= len(h.plan)
                or (h.ended_by is None and (h.turn is None or not 0 <= h.turn < h.players))
                or any(p["seat"] not in seats for p in h.trick) or len({p["seat"] for p in h.trick}) != len(h.trick)
                or (h.leader is not None and h.leader not in seats)
                or (h.last_trick is not None and h.last_trick["winner"] not in seats)
                or h.version < 0 or (h.points is not None and (h.ended_by is None or len(h.points) != h.players))):
            raise GameError("Not a stored Wonderland hand: inconsistent cards, seats or deal.")
        return h

    def __eq__(self, other: object) -> bool:  # equal stored state, version included
        return isinstance(other, WonderlandHand) and self.to_json() == other.to_json()

    __hash__ = None  # type: ignore[assignment]

