"""Hands of The Game of Alice in Wonderland built card by card, for the rules tests."""

from games.wonderland import PACK, WonderlandHand


def stacked(players, first_deal, dealer=0, then=()):
    """A pack that deals ``first_deal[seat]`` (seven cards each) to every seat, followed by
    ``then`` and the rest of the pack in its usual order."""
    order = [(dealer + k) % players for k in range(1, players + 1)]
    top = [first_deal[order[j]][k] for k in range(7) for j in range(players)]
    rest = [c for c in then if c not in top]
    return top + rest + [c for c in PACK if c not in top and c not in rest]


FOUR = [
    ["P7", "S3", "N1", "N2", "N3", "N4", "N5"],
    ["S7", "P3", "S9", "N6", "N7", "N8", "N9"],
    ["P9", "S5", "P1", "N10", "N11", "N12", "N13"],
    ["S1", "P5", "P2", "N14", "N15", "N16", "N17"],
]


def four_hand(dealer=3, **kw):
    """Four players; with dealer 3, seat 0 (the dealer's left) leads."""
    return WonderlandHand.from_deck(4, stacked(4, FOUR, dealer), dealer, **kw)


def play(h, *cards):
    """Play ``cards`` in turn, each by the seat whose turn it is."""
    for c in cards:
        h.apply(h.turn, {"type": "play", "card": c})


def play_out_deal(h):
    """Play the first legal card in turn until the deal changes or the hand ends."""
    deal = h.deal
    while not h.finished and h.deal == deal:
        play(h, h.legal(h.turn)[0])
