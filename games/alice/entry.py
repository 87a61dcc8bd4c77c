"""A physically played Alice hand: the questions asked about it and its points (docs/rules.md,
"Alice", "Entering a hand played with cards").

The summary the entry form sends back::

    {"dealer": 0,                    # who dealt (a seat; no default: the table chose)
     "last_set": 2 | None,           # only when seats tie on most sets: who of them laid a set last
     "stopped": False,               # the bell stopped the hand before all eight sets were laid
                                     # (left out: not said, as in a record made before it was asked)
     "holdings": [{"sets": 3}, ...]} # per seat, how many sets it laid (at most 8 in all)
"""

from __future__ import annotations

from typing import Any

from ..base import GameError, Outcome, and_list
from .cards import SETS, check_players
from .hand import AliceHand
from .scoring import POINTS_PER_SET, mover_of, standing_facts

_SUMMARY_KEYS = {"dealer", "last_set", "stopped", "holdings"}
_HOLDING_KEYS = {"sets"}
NO_TIE = "No tie for most sets"  # the tie question's answer when nobody ties


def _who(seat: int) -> str:
    """A seat as the entry's messages name it: "Seat 2" (counted from 0), which the drive turns
    into the player's name, as the form names them (docs/games.md, "Entering a hand")."""
    return f"Seat {seat}"



def entry_spec(players: int) -> dict[str, Any]:
    check_players(players)
    return {
        "table": [
            {"name": "dealer", "label": "Who dealt?", "type": "seat",
             "help": "The player on the dealer's left began. When nobody laid a set, that player moves up.",
             "missing": "Say who dealt: tap their name."},
            # Answered "no tie" until changed: only a tie needs an answer (a tie left unanswered
            # is refused, naming the tied players).
            {"name": "last_set", "label": "Tied on most sets: who laid a set last?", "type": "seat",
             "optional": True, "none_label": NO_TIE, "default": None, "after_seats": True,
             "help": "Only when two or more players laid the most sets: the one of them who laid a set "
                     "most recently moves up. Sets complete in the deal count as laid at the deal, in "
                     "seat order from the dealer's left.",
             "missing": "Say who laid a set last, or that nobody tied."},
            # After the players' rows: a hand played out ends when the eighth set is laid, so
            # fewer sets mean a miscount or the bell, which only the table knows (found in a
            # walkthrough: a phone sent every player's 0, as the form starts, without a word).
            {"name": "stopped", "label": "Were all eight sets laid?", "type": "choice", "after_seats": True,
             "choices": [[False, f"Yes: all {len(SETS)} sets were laid"],
                         [True, "No: the bell stopped the hand"]],
             "default": False, "missing": "Say whether all eight sets were laid, or the bell stopped the hand."},
        ],
        "seat": [
            {"name": "sets", "label": "Sets laid (5 points each)", "type": "choice",
             "choices": [[k, str(k)] for k in range(len(SETS) + 1)], "default": 0},
        ],
        "seat_help": "Eight sets in the pack: all 8 are laid in a hand played out, fewer if the bell stopped it.",
    }


def _seat(value: Any, players: int, what: str, *, optional: bool) -> int | None:
    if value is None and optional:
        return None
    if type(value) is not int or not 0 <= value < players:
        nobody = " (or nobody)" if optional else ""
        raise GameError(f"{what} must be one of the {players} players at this table{nobody}.")
    return value


def read_summary(players: int, summary: Any) -> tuple[list[int], int, int | None]:
    """Validate ``summary``: (sets per seat, dealer, last_set). GameError saying what is wrong.
    ``stopped`` false (the hand played out) needs all eight sets laid; left out, as in a record
    made before the entry asked it, nothing is said either way."""
    n = check_players(players)
    if not isinstance(summary, dict):
        raise GameError("The hand summary must be an object with 'dealer' and 'holdings'.")
    extra = sorted(str(k) for k in summary if k not in _SUMMARY_KEYS)
    if extra:
        raise GameError(f"Unknown summary field(s): {and_list(extra)}.")
    if "dealer" not in summary:
        raise GameError("Say who dealt: the hand summary needs 'dealer'.")
    if "holdings" not in summary:
        raise GameError("The hand summary needs 'holdings', one entry per seat.")
    dealer = _seat(summary["dealer"], n, "The dealer", optional=False)
    last = _seat(summary.get("last_set"), n, "Who laid a set last", optional=True)
    stopped = summary.get("stopped")
    if stopped is not None and not isinstance(stopped, bool):
        raise GameError("'stopped' must be true (the bell stopped the hand) or false (all eight sets were laid).")
    holdings = summary["holdings"]
    if not isinstance(holdings, list) or len(holdings) != n:
        raise GameError(f"'holdings' must list one entry per seat: {n} at this table.")
    sets: list[int] = []
    for seat, h in enumerate(holdings):
        if not isinstance(h, dict):
            raise GameError(f"{_who(seat)}: the entry must be an object with 'sets'.")
        bad = sorted(str(k) for k in h if k not in _HOLDING_KEYS)
        if bad:
            raise GameError(f"{_who(seat)}: unknown field(s): {and_list(bad)}.")
        k = h.get("sets", 0)
        if type(k) is not int or not 0 <= k <= len(SETS):
            raise GameError(f"{_who(seat)}: the sets laid must be a whole number from 0 to 8, not {k!r}.")
        sets.append(k)
    if sum(sets) > len(SETS):
        where = and_list([f"{_who(s)} {k}" for s, k in enumerate(sets) if k])
        raise GameError(f"{sum(sets)} sets entered ({where}), but the pack holds only 8.")
    best = max(sets)
    tied = [s for s, k in enumerate(sets) if k == best] if best else []
    if len(tied) > 1:
        if last is None:
            raise GameError(f"{and_list([_who(s) for s in tied])} tie on {best} set{'s' if best != 1 else ''} each: "
                            "say which of them laid a set last.")
        if last not in tied:
            raise GameError(f"{_who(last)} is not one of the players tied on most sets "
                            f"({and_list([_who(s) for s in tied])}): say which of them laid a set last.")
    elif last is not None:  # no tie to break (naming the one leader too: the checking player would read a tie)
        if not tied:
            raise GameError(f"Nobody laid a set, so there is no tie to break: choose \"{NO_TIE}\", "
                            f"not {_who(last)}.")
        raise GameError(f"{_who(tied[0])} alone laid the most sets ({best}), so there is no tie to break: "
                        f"choose \"{NO_TIE}\", not {_who(last)}.")
    # After the tie's questions, which name the players (a tie's sets are counted either way).
    if stopped is False and sum(sets) < len(SETS):
        # A hand played out ends with the eighth set laid (the rules' "End and scoring").
        raise GameError(f"{sum(sets)} set{'s' if sum(sets) != 1 else ''} entered in all, but a hand played out "
                        f"ends when all {len(SETS)} are laid: count the sets again, or say the bell stopped the hand.")
    if stopped is True and sum(sets) == len(SETS):
        # The eighth set laid ends the hand: the bell cannot have stopped it (the question's "No").
        raise GameError(f"All {len(SETS)} sets entered, so the hand was played out, not stopped by the bell: "
                        f"answer \"Yes: all {len(SETS)} sets were laid\", or count the sets again.")
    return sets, dealer, last  # type: ignore[return-value]


def outcome_from_summary(players: int, summary: dict[str, Any]) -> Outcome:
    """The Outcome of a hand played with cards (see the module docstring for the summary)."""
    sets, dealer, last = read_summary(players, summary)
    # Only who of the tied laid a set last matters; read_summary made sure it is one of them.
    mover = mover_of(sets, [] if last is None else [last], dealer)
    return Outcome(points=[POINTS_PER_SET * k for k in sets], mover=mover, winner=mover if max(sets) else None,
                   facts=standing_facts(sets, mover),
                   details={"sets": sets})


def summary_of_hand(state: AliceHand) -> dict[str, Any]:
    """A digital hand in the entry format (for the organiser's correction form): ``last_set``
    only when seats tie on most sets."""
    sets = [len(x) for x in state.laid]
    best = max(sets)
    tied = [s for s, k in enumerate(sets) if k == best] if best else []
    last = next(s for s in reversed(state.lay_order) if s in tied) if len(tied) > 1 else None
    return {"dealer": state.dealer, "last_set": last, "stopped": sum(sets) < len(SETS),
            "holdings": [{"sets": k} for k in sets]}
