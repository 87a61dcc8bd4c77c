"""Declarations and the points of a finished hand (docs/rules.md, "Declaring", "Scoring a hand").

Everything works on card counts (``Counter`` of codes); the public functions validate their input
and raise ``GameError`` (a ``ValueError``) naming the bad card, seat or count.
"""

from __future__ import annotations

from collections import Counter
from functools import lru_cache
from typing import Iterable, Mapping, Sequence

from ..base import GameError
from .cards import CARD_FILM, FILM_CARDS, ICE, ICE_CARDS, JOKER, card_counts, check_players, packs_for

SET_POINTS = 5
FIVE_POINTS = 10  # Ice Follies four + Joker
LONE_JOKER_POINTS = -5
DECLARATION_POINTS = 15
NINE_CARD_POINTS = 25

Counts = Mapping[str, int]


@lru_cache(maxsize=None)
def _ice_best(ice: tuple[int, int, int, int], jokers: int) -> int:
    """Most points from Ice Follies cards ``ice`` (count per number 1-4) and ``jokers`` Jokers.

    Each Joker on its own is a set of five (+10, with an Ice Follies four), a Joker-three (+5,
    with three different Ice Follies cards) or alone (-5); what is left makes plain fours (+5).
    """
    if jokers == 0:
        return SET_POINTS * min(ice)
    best = LONE_JOKER_POINTS + _ice_best(ice, jokers - 1)
    if min(ice) >= 1:
        best = max(best, FIVE_POINTS + _ice_best(tuple(x - 1 for x in ice), jokers - 1))
    for skip in range(4):
        if all(x >= 1 for i, x in enumerate(ice) if i != skip):
            rest = tuple(x if i == skip else x - 1 for i, x in enumerate(ice))
            best = max(best, SET_POINTS + _ice_best(rest, jokers - 1))
    return best


@lru_cache(maxsize=None)
def _lonely_jokers(ice: tuple[int, int, int, int], jokers: int) -> int:
    """How many of ``jokers`` cannot each stand with three different Ice Follies cards of their own."""
    if jokers == 0:
        return 0
    best = 1 + _lonely_jokers(ice, jokers - 1)
    for skip in range(4):
        if all(x >= 1 for i, x in enumerate(ice) if i != skip):
            rest = tuple(x if i == skip else x - 1 for i, x in enumerate(ice))
            best = min(best, _lonely_jokers(rest, jokers - 1))
    return best


def _ice_counts(counts: Counts) -> tuple[int, int, int, int]:
    return (counts.get(ICE_CARDS[0], 0), counts.get(ICE_CARDS[1], 0),
            counts.get(ICE_CARDS[2], 0), counts.get(ICE_CARDS[3], 0))


def complete_sets(counts: Counts, film: int) -> int:
    """How many four-different sets of ``film`` the counts hold (0, 1 or 2)."""
    a, b, c, d = FILM_CARDS[film]
    return min(counts.get(a, 0), counts.get(b, 0), counts.get(c, 0), counts.get(d, 0))


_REGULAR_SETS = [FILM_CARDS[f] for f in range(1, 11)]


def holding_points(counts: Counts) -> int:
    """A non-declarer's points: the grouping of sets that scores most (rules: "Scoring a hand")."""
    get = counts.get
    regular = 0
    for a, b, c, d in _REGULAR_SETS:  # complete_sets(counts, f) for films 1-10, inline
        regular += min(get(a, 0), get(b, 0), get(c, 0), get(d, 0))
    return SET_POINTS * regular + _ice_best(_ice_counts(counts), counts.get(JOKER, 0))


def declarer_penalty(rest: Counts, joker_penalty: bool = True) -> int:
    """The declarer's loss for Jokers outside the declaration without three different Ice Follies."""
    if not joker_penalty or not rest.get(JOKER, 0):
        return 0
    return -SET_POINTS * _lonely_jokers(_ice_counts(rest), rest[JOKER])


_FILM_SETS = [(f, frozenset(FILM_CARDS[f])) for f in range(1, 12)]


def can_declare(counts: Counts) -> bool:
    """True if the counts hold two complete four-different sets (the cheap check bots use)."""
    held = counts.keys()
    full = [f for f, cards in _FILM_SETS if cards <= held]
    if len(full) >= 2:
        return True
    return len(full) == 1 and complete_sets(counts, full[0]) >= 2


def best_declaration(counts: Counts, joker_penalty: bool = True) -> tuple[list[str], int] | None:
    """The declaration that scores the declarer most, with those points; None if there is none.

    Candidates: any two complete sets (the same film twice with two packs); a set of Ice Follies
    may take a Joker with it (nine cards, 25). Ties go to the lower films, for determinism.
    """
    sets: list[int] = []
    for f in range(1, 12):
        sets.extend([f] * complete_sets(counts, f))
    if len(sets) < 2:
        return None
    best: tuple[list[str], int] | None = None
    jokers = counts.get(JOKER, 0)
    ice = _ice_counts(counts) if jokers and joker_penalty else (0, 0, 0, 0)
    for i in range(len(sets)):
        for j in range(i + 1, len(sets)):
            pair = (sets[i], sets[j])
            in_pair = pair.count(ICE)
            for with_joker in ((True, False) if jokers and in_pair else (False,)):
                # the declarer's penalty for the Jokers left outside (as declarer_penalty on the rest)
                left = jokers - with_joker
                penalty = 0
                if left and joker_penalty:
                    penalty = -SET_POINTS * _lonely_jokers(tuple(x - in_pair for x in ice), left)
                points = (NINE_CARD_POINTS if with_joker else DECLARATION_POINTS) + penalty
                if best is None or points > best[1]:
                    cards = [c for f in pair for c in FILM_CARDS[f]]
                    if with_joker:
                        cards.append(JOKER)
                    best = (_declared_order(cards), points)
    return best


_ORDER = {c: (99, 0) if c == JOKER else tuple(int(x) for x in c.split("-")) for c in CARD_FILM}


def _declared_order(cards: list[str]) -> list[str]:
    return sorted(cards, key=_ORDER.__getitem__)


def declaration(hand: Iterable[str]) -> list[str] | None:
    """The best valid declaration in ``hand`` (a list of card codes), or None.

    A declaration is two complete sets of four different cards of one film (both of one film
    with two packs); Ice Follies four + Joker as one set makes nine cards and is preferred.
    Refuses unknown codes and more copies than two packs hold (3+ of a code, 3+ Jokers).
    """
    found = best_declaration(card_counts(hand, 2))
    return None if found is None else found[0]


def score_hand(
    hands: Sequence[Sequence[str]], declarer: int | None, *, declarer_joker_penalty: bool = True
) -> list[int]:
    """Points per seat for the final holdings ``hands`` (one list of codes per seat).

    The table size is ``len(hands)`` (2-10); copies are checked across all hands against the
    packs at that size. ``declarer`` is the seat that declared (scores 15 or 25 for its best
    declaration, less 5 per lonely Joker outside it unless ``declarer_joker_penalty`` is off)
    or None (everyone scores their best grouping).
    """
    if isinstance(hands, (str, bytes, Mapping)) or not isinstance(hands, Sequence):
        raise GameError("Hands must be a list with one list of cards per seat.")
    players = check_players(len(hands))
    packs = packs_for(players)
    per_seat = [card_counts(h, packs, f"Seat {i}") for i, h in enumerate(hands)]
    total: Counter[str] = Counter()
    for c in per_seat:
        total.update(c)
    for code, k in total.items():
        if k > packs:
            held = sorted(i for i, c in enumerate(per_seat) if c.get(code))
            raise GameError(
                f"{k} copies of {code} across the table ({' and '.join(f'Seat {s}' for s in held)}); "
                f"{'one pack holds' if packs == 1 else 'two packs hold'} only {packs} at {players} players."
            )
    if declarer is not None and (
        not isinstance(declarer, int) or isinstance(declarer, bool) or not 0 <= declarer < players
    ):
        raise GameError(f"Declarer must be a seat from 0 to {players - 1} or None, not {declarer!r}.")
    points = [holding_points(c) for c in per_seat]
    if declarer is not None:
        found = best_declaration(per_seat[declarer], declarer_joker_penalty)
        if found is None:
            raise GameError(f"Seat {declarer} holds no declaration (two complete sets of one film each).")
        points[declarer] = found[1]
    return points



def standing_facts(players: int, declarer: int | None, nine_card: bool) -> list[dict[str, int]]:
    """Each seat's standings facts for a hand (``games.base.Fact``): the declarer's declaration,
    and whether it held nine cards."""
    facts: list[dict[str, int]] = [{} for _ in range(players)]
    if declarer is not None:
        facts[declarer] = {"declarations": 1, "nine_card_declarations": int(bool(nine_card))}
    return facts
