"""Storing a digital Alice hand: ``to_json`` and ``load`` round-trip exactly (docs/rules.md,
"Alice", "Digital play"). ``load`` refuses with a ``GameError`` anything that is not a stored
Alice hand holding the 44 cards."""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING, Any

from ..base import GameError
from .cards import PACK, SET_CARDS, check_players

MAX_ANSWER_SECONDS = 3600.0

if TYPE_CHECKING:
    from .hand import AliceHand

_PACK_COUNT = Counter(PACK)


def to_json(h: AliceHand) -> dict[str, Any]:
    """The hand as JSON-able data, every field of the state (``AliceHand.to_json``)."""
    return {
        "game": "alice",
        "players": h.players,
        "dealer": h.dealer,
        "hands": [list(x) for x in h.hands],
        "row": list(h.row),
        "stock": list(h.stock),
        "laid": [list(x) for x in h.laid],
        "lay_order": list(h.lay_order),
        "played": list(h.played),
        "turn": h.turn,
        "pending": None if h.pending is None else dict(h.pending),
        "answering": h.answering,
        "rabbit_this_turn": h.rabbit_this_turn,
        "cat_this_turn": h.cat_this_turn,
        "log": list(h.log),  # its entries are never changed once appended: shared, not copied
        "version": h.version,
        "ended_by": h.ended_by,
        "deadline": h.deadline,
        "answer_seconds": h.answer_seconds,
    }


def load(cls: type[AliceHand], data: dict[str, Any]) -> AliceHand:
    """Rebuild a hand from ``to_json`` output; GameError if it is not one."""
    try:
        if not isinstance(data, dict) or data.get("game") != "alice":
            raise GameError("Not a stored Alice hand.")
        h = cls()
        h.players = check_players(data["players"])
        h.dealer = int(data["dealer"])
        h.hands = [[str(c) for c in hand] for hand in data["hands"]]
        h.row = [str(c) for c in data["row"]]
        h.stock = [str(c) for c in data["stock"]]
        h.laid = [[str(s) for s in x] for x in data["laid"]]
        h.lay_order = [int(s) for s in data["lay_order"]]
        h.played = [str(c) for c in data["played"]]
        h.turn = None if data["turn"] is None else int(data["turn"])
        p = data["pending"]
        h.pending = None if p is None else {"decision": str(p["decision"]), "asker": int(p["asker"]),
                                             "to": int(p["to"]), "card": str(p["card"])}
        h.answering = None if data["answering"] is None else int(data["answering"])
        h.rabbit_this_turn = bool(data["rabbit_this_turn"])
        h.cat_this_turn = bool(data["cat_this_turn"])
        h.log = list(data["log"])  # (a long hand's log is hundreds of entries, read on every move)
        if not all(type(e) is dict for e in h.log):
            raise GameError("Not a stored Alice hand: a log entry is not an object.")
        h.version = int(data["version"])
        h.ended_by = None if data["ended_by"] is None else str(data["ended_by"])
        d = data["deadline"]
        h.deadline = None if d is None else float(d)
        h.answer_seconds = float(data.get("answer_seconds", h.answer_seconds))
        if not 0 < h.answer_seconds <= MAX_ANSWER_SECONDS:
            raise GameError(f"Not a stored Alice hand: an answer time of {h.answer_seconds} s.")
    except GameError:
        raise
    except (KeyError, TypeError, ValueError, AttributeError, OverflowError) as exc:
        raise GameError(f"Not a stored Alice hand: {exc!r}.") from None
    seats = range(h.players)
    finished = h.ended_by is not None
    laid_cards = [c for x in h.laid for s in x for c in SET_CARDS.get(s, ("?",))]
    every = Counter([*laid_cards, *h.row, *h.stock, *h.played, *(c for x in h.hands for c in x)])
    if (len(h.hands) != h.players or len(h.laid) != h.players or every != _PACK_COUNT
            or not 0 <= h.dealer < h.players or h.version < 0
            or (h.turn is None) != finished or (h.turn is not None and h.turn not in seats)
            or (h.answering is not None and h.answering not in seats)
            or (h.pending is not None and (h.pending["asker"] not in seats or h.pending["to"] not in seats))):
        raise GameError("Not a stored Alice hand: inconsistent cards or seats.")
    return h
