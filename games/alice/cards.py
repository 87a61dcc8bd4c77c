"""The Alice pack and the deal sizes (docs/rules.md, "Alice": "The pack", "The deal").

A card is a code string: ``"<set><n>"`` (set letter A-H, n 1-5; card 1 of every set pictures
Alice herself), ``"WR"`` for a White Rabbit or ``"CC"`` for a Cheshire Cat. The pack holds every
set card once and two of each special card: 44 cards. (The leaflet prints "1 Cheshire Cat" but
counts 44 cards; this project plays with two Cats: docs/rules.md.)
"""

from __future__ import annotations

import random
from typing import Any

from ..base import GameError, check_rng

SETS = "ABCDEFGH"
RABBIT, CAT = "WR", "CC"
SET_CARDS: dict[str, tuple[str, ...]] = {s: tuple(f"{s}{n}" for n in range(1, 6)) for s in SETS}
PACK: tuple[str, ...] = tuple(c for s in SETS for c in SET_CARDS[s]) + (RABBIT, RABBIT, CAT, CAT)
CARD_SET: dict[str, str] = {c: s for s in SETS for c in SET_CARDS[s]}  # set cards only
ROW_SIZE = 7
MIN_PLAYERS, MAX_PLAYERS = 2, 6

# The card titles, as the leaflet lists them (pages 9 and 10).
TITLES: dict[str, str] = dict(zip((c for s in SETS for c in SET_CARDS[s]), [
    "Alice", "Dinah", "Alice falls down the shaft", "The chase through the Tunnel", "The Doorknob",
    "Alice", "Alice floats on the Pool of Tears", "The Dodo sails on a Toucan",
    "The Caucus Race goes on and on", "Tweedledum and Tweedledee",
    "Alice", "The Walrus and the Carpenter", "The Curious Oysters peep out of their shells",
    "The White Rabbit's House", "Bill the Chimney-Sweep Lizard",
    "Alice", "Iris and Daisy in the Garden of Live Flowers", "The Tiger Lily and the Dandelion",
    "Rocking-Horsefly and Bread-and-Butterflies", "Dog-and-Caterpillars",
    "Alice", "The Caterpillar has something to say", "The Signs in the Grove of Trees",
    "The Mad Hatter's Unbirthday Party", "The Mad Hatter pours tea",
    "Alice", "Tulgey Wood", "Horn-ducks", "Accordion-Owl, Eyeglasses-Bird and Pencil birds",
    "The Brush-Dog brushes away the path",
    "Alice", "Painting the Roses red", "The Card Soldiers approach", "The Queen of Hearts and the King",
    "The Queen plays croquet",
    "Alice", "The Court Scene", "The Jury at the Trial", "The Chase", "Alice's sister wakes her",
]))


def card_name(card: Any) -> str:
    """A card as a player reads it: "B3 (The Dodo sails on a Toucan)", "a White Rabbit"; an
    unknown code as given; anything that is no code at all (a long string too) as "that card"."""
    if card == RABBIT:
        return "a White Rabbit"
    if card == CAT:
        return "a Cheshire Cat"
    if isinstance(card, str) and card in TITLES:
        return f"{card} ({TITLES[card]})"
    return repr(card) if isinstance(card, str) and len(card) <= 12 else "that card"


def check_players(players: Any) -> int:
    """The table size, refused unless an int from 2 to 6."""
    if type(players) is not int or not MIN_PLAYERS <= players <= MAX_PLAYERS:
        raise GameError(f"Alice is played by 2 to 6 players at a table, not {players!r}.")
    return players


def hand_size(players: int) -> int:
    """Cards dealt to each player: 7 at 2-4 players, 5 at 5-6 (the leaflet's rule 1)."""
    return 7 if check_players(players) <= 4 else 5


def deck(players: int, rng: random.Random) -> list[str]:
    """The 44 cards shuffled with ``rng`` (the table size is checked: 2-6)."""
    check_players(players)
    cards = list(PACK)
    check_rng(rng).shuffle(cards)
    return cards
