"""Hands with chosen cards for the Alice tests, dealt through ``AliceHand.from_deck``."""

import json
from collections import Counter

import pytest

from games.alice import PACK, AliceHand, GameError, hand_size


def deal(players, hands, row=(), stock=(), dealer=0):
    """A hand dealt so that seat i holds ``hands[i]``, the row starts with ``row`` (filled up to 7
    with cards nobody was given) and the stock's top is ``stock``."""
    size = hand_size(players)
    assert len(hands) == players and all(len(h) == size for h in hands), f"{players} hands of {size}"
    named = [c for h in hands for c in h] + list(row) + list(stock)
    left = Counter(PACK)
    left.subtract(named)
    assert min(left.values()) >= 0, "a card named more often than the pack holds it"
    spare = []
    for c in PACK:
        if left[c] > 0:
            left[c] -= 1
            spare.append(c)
    k = 7 - len(row)
    full_row = list(row) + spare[:k]
    rest = list(stock) + spare[k:]
    order = [hands[(dealer + j) % players][r] for r in range(size) for j in range(1, players + 1)]
    return AliceHand.from_deck(players, order + full_row + rest, dealer)


# Three players, the dealer seat 2, so seat 0 begins.
S0 = ["A1", "A2", "B1", "C1", "D1", "E1", "F1"]
S1 = ["A3", "B2", "B3", "C2", "D2", "E2", "F2"]
S2 = ["A4", "B4", "C3", "D3", "E3", "F3", "G1"]
ROW = ["G2", "G3", "G4", "G5", "H1", "H2", "H3"]
ROW_F = ["G2", "G3", "G4", "G5", "F3", "F4", "F5"]  # for hands holding set H


def three(s0=S0, s1=S1, s2=S2, row=ROW, stock=(), dealer=2):
    return deal(3, [list(s0), list(s1), list(s2)], row=row, stock=stock, dealer=dealer)


def ask(h, seat, to, card):
    h.apply(seat, {"type": "ask", "to": to, "card": card})


def take(h, seat, card):
    h.apply(seat, {"type": "take", "card": card})


def kinds(h, since=0):
    return [e["type"] for e in h.log[since:]]


def refused(h, seat, action, *words):
    before = json.dumps(h.to_json(), sort_keys=True)
    with pytest.raises(GameError) as err:
        h.apply(seat, action)
    assert json.dumps(h.to_json(), sort_keys=True) == before
    for w in words:
        assert w in str(err.value)
    return str(err.value)
