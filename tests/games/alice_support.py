"""Hands with chosen cards for the Alice tests, dealt through ``AliceHand.from_deck``."""

from collections import Counter

from games.alice import PACK, AliceHand, hand_size


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
