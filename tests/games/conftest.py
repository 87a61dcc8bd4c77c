import random

import pytest

from games.film_fantasy import FilmFantasyHand
from games.film_fantasy.hand import AUCTION, PASSING


def make_hand(hands, *, stack=(), phase=PASSING, dealer=0, penalty=True):
    """A hand with chosen holdings (tests only): dealt normally, then the cards replaced."""
    h = FilmFantasyHand.new(len(hands), random.Random(0), dealer=dealer, declarer_joker_penalty=penalty)
    h.hands = [list(x) for x in hands]
    h.stack = list(stack)
    h.odd = []
    h.phase = phase
    h.passes = [None] * len(hands)
    return h


@pytest.fixture
def auction_hand():
    return make_hand(
        [["1-1", "1-2", "2-1", "3-1"], ["4-1", "4-2", "5-1", "6-1"], ["7-1", "7-2", "8-1", "9-1"]],
        phase=AUCTION,
    )
