"""Cards, packs and the cards in play by table size (docs/rules.md, "The pack", "Cards in play").

A card is a code string: ``"<film>-<n>"`` (film 1..11, n 1..4; film 11 is Ice Follies of
1939) or ``"J"`` for the Joker. With two packs every code exists twice.
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Any, Iterable

from ..base import GameError, check_rng, short

FILM_NAMES: list[str] = [
    "Lucky Night",
    "Idiot's Delight",
    "Serenade",
    "Good-Bye Mr. Chips",
    "Calling Dr. Kildare",
    "The Lambeth Walk",
    "The Hardys Ride High",
    "It's a Wonderful World",
    "Tarzan in Exile",
    "Bridal Suite",
    "Ice Follies of 1939",
]
ICE = 11  # Ice Follies of 1939, the Joker's film
REGULAR_FILMS = range(1, 11)
JOKER = "J"
MIN_PLAYERS, MAX_PLAYERS = 2, 10

FILM_CARDS: dict[int, tuple[str, str, str, str]] = {
    f: (f"{f}-1", f"{f}-2", f"{f}-3", f"{f}-4") for f in range(1, 12)
}
ICE_CARDS = FILM_CARDS[ICE]
PACK: tuple[str, ...] = tuple(c for f in range(1, 12) for c in FILM_CARDS[f]) + (JOKER,)
CARD_FILM: dict[str, int] = {c: f for f in range(1, 12) for c in FILM_CARDS[f]}
CARD_FILM[JOKER] = ICE

# Regular four-card sets removed at a table size (rules: "Cards in play by table size").
_REMOVED_SETS = {2: 4, 3: 3, 6: 6}


def card_name(card: Any) -> str:
    """A card as a player reads it: "Serenade 2", "the Joker"; an unknown code as given ('99-9');
    anything that is no code at all (a list, a number, a long string: a hand-made frame) as
    "that card"."""
    if card == JOKER:
        return "the Joker"
    if isinstance(card, str) and card in CARD_FILM:
        return f"{FILM_NAMES[CARD_FILM[card] - 1]} {card.split('-')[1]}"
    return repr(card) if isinstance(card, str) and len(card) <= 12 else "that card"


def check_players(players: Any) -> int:
    """The table size, refused unless an int from 2 to 10."""
    if not isinstance(players, int) or isinstance(players, bool) or not MIN_PLAYERS <= players <= MAX_PLAYERS:
        raise GameError(f"Film Fantasy is played by 2 to 10 players at a table, not {players!r}.")
    return players


def packs_for(players: int) -> int:
    """1 pack for 2-5 players, 2 packs for 6-10."""
    return 1 if check_players(players) <= 5 else 2


def removed_sets_for(players: int) -> int:
    return _REMOVED_SETS.get(check_players(players), 0)


def cards_in_play(players: int) -> int:
    return 45 * packs_for(players) - 4 * removed_sets_for(players)


def regular_sets_in_play(players: int) -> int:
    return 10 * packs_for(players) - removed_sets_for(players)


def end_hand_size(players: int) -> int:
    """Cards each player holds when the passing cycle is over: 4 dealt + one per full draw round."""
    return cards_in_play(players) // players


def odd_cards(players: int) -> int:
    return cards_in_play(players) % players


def choose_removed_films(players: int, rng: random.Random) -> list[int]:
    """The regular films whose sets leave the game this hand (a film twice = both its sets, 2 packs)."""
    k = removed_sets_for(players)
    check_rng(rng)
    slots = [f for _copy in range(packs_for(players)) for f in REGULAR_FILMS]
    return sorted(rng.sample(slots, k)) if k else []


_DECKS: dict[tuple[int, tuple[int, ...]], tuple[str, ...]] = {}


def build_deck(players: int, removed_films: Iterable[int]) -> list[str]:
    """The unshuffled cards in play: every pack, minus one four-card set per removed film entry."""
    check_players(players)
    key = (players, tuple(removed_films))
    found = _DECKS.get(key)
    if found is None:
        if len(_DECKS) > 10_000:
            _DECKS.clear()
        found = _DECKS[key] = tuple(_build_deck(players, key[1]))
    return list(found)


def _build_deck(players: int, removed_films: Iterable[int]) -> list[str]:
    counts: Counter[str] = Counter()
    for _ in range(packs_for(players)):
        counts.update(PACK)
    for f in removed_films:
        for c in FILM_CARDS[f]:
            counts[c] -= 1
    return [c for c in PACK for _ in range(counts[c])]


def deck(players: int, rng: random.Random) -> list[str]:
    """The shuffled cards in play for a table of ``players`` (2-10), removals chosen with ``rng``.

    2 players: one pack minus 4 random regular sets (29 cards); 3: minus 3 (33); 4-5: 45;
    6: two packs minus 6 of the 20 regular sets (66); 7-10: two packs (90).
    """
    cards = build_deck(players, choose_removed_films(players, rng))
    rng.shuffle(cards)
    return cards


def card_counts(cards: Any, max_copies: int, whose: str = "The hand") -> Counter[str]:
    """Count a collection of card codes, refusing non-codes and more copies than the packs hold.

    Raises GameError naming the unknown code, or the card and the count that is too many.
    """
    if type(cards) is list:  # the common case, checked in C: all known codes, not too many copies
        try:
            counts = Counter(cards)
        except TypeError:
            counts = None
        if counts is not None and counts.keys() <= _CODES and (not counts or max(counts.values()) <= max_copies):
            return counts
    if isinstance(cards, (str, bytes, dict)) or not isinstance(cards, Iterable):
        raise GameError(f"{whose} must be a list of card codes, not {type(cards).__name__}.")
    counts = Counter()
    for c in cards:
        if not isinstance(c, str) or c not in CARD_FILM:
            raise GameError(f"{whose} holds {short(repr(c))}, which is not a Film Fantasy card code.")
        counts[c] += 1
    for c, k in counts.items():
        if k > max_copies:
            packs = "one pack holds" if max_copies == 1 else f"{max_copies} packs hold"
            raise GameError(f"{whose} holds {k} copies of {c}; {packs} only {max_copies}.")
    return counts


_CODES = frozenset(CARD_FILM)


def card_sort_key(card: str) -> tuple[int, int]:
    return (CARD_FILM[card], 5 if card == JOKER else int(card.split("-")[1]))


def group_by_film(hand: Iterable[str]) -> list[dict[str, Any]]:
    """A hand grouped for display: one entry per film held, in film order, the Joker with Ice Follies."""
    groups: dict[int, list[str]] = {}
    for c in sorted(card_counts(list(hand), 2).elements(), key=card_sort_key):
        groups.setdefault(CARD_FILM[c], []).append(c)
    return [{"film": f, "title": FILM_NAMES[f - 1], "cards": groups[f]} for f in sorted(groups)]
