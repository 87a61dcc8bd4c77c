"""Wonderland bots (docs/rules.md, "The Game of Alice in Wonderland", "Bots")."""

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.base import GameError
from games.wonderland import PACK, WonderlandHand, bot_action, legal_plays, parse_bots, report_lines, simulate


def stacked(players, first_deal, dealer):
    order = [(dealer + k) % players for k in range(1, players + 1)]
    top = [first_deal[order[j]][k] for k in range(7) for j in range(players)]
    return top + [c for c in PACK if c not in top]


@settings(max_examples=30, deadline=None)
@given(players=st.integers(2, 6), seed=st.integers(0, 2**32), kind=st.sampled_from(["smart", "random"]))
def test_bots_only_return_legal_plays_and_nothing_out_of_turn(players, seed, kind):
    rng = random.Random(seed)
    h = WonderlandHand.new(players, rng, dealer=seed % players)
    while not h.finished:
        for seat in range(players):
            a = bot_action(h, seat, rng, kind)
            if seat != h.turn:
                assert a is None
            else:
                assert a == {"type": "play", "card": a["card"]}
                assert a["card"] in legal_plays(h.hands[seat], h.trick_cards)
        h.apply(h.turn, bot_action(h, h.turn, rng, kind))
    assert bot_action(h, 0, rng, kind) is None


def test_an_unknown_bot_is_refused():
    h = WonderlandHand.new(3, random.Random(0))
    with pytest.raises(GameError, match="Unknown bot"):
        bot_action(h, h.turn, random.Random(0), "clever")
    with pytest.raises(GameError):
        parse_bots("smart,clever", 2)
    with pytest.raises(GameError, match="one bot per seat"):
        parse_bots("smart,random", 3)


def test_smart_leads_the_top_star_when_its_mate_is_out_and_nothing_can_beat_it():
    # Seat 0 leads holding star 16 (Alice); plain 16, the Pool of Tears card, is with seat 1.
    deal = [["S16", "N1", "N2", "N3", "N4", "N5", "N6"],
            ["P16", "N7", "N8", "N9", "N10", "N11", "N12"],
            ["S2", "N13", "N14", "N15", "N16", "N17", "N18"]]
    h = WonderlandHand.from_deck(3, stacked(3, deal, 2), dealer=2)
    assert bot_action(h, 0, random.Random(0), "smart") == {"type": "play", "card": "S16"}
    h.apply(0, {"type": "play", "card": "S16"})
    h.apply(1, {"type": "play", "card": "P16"})  # forced: the mate
    assert h.turn == 2


def test_smart_takes_a_trick_as_last_player_with_its_cheapest_winner():
    deal = [["P5", "N1", "N2", "N3", "N4", "N5", "N6"],
            ["S16", "N7", "N8", "N9", "N10", "N11", "N12"],
            ["P3", "P9", "P12", "N13", "N14", "N15", "N16"]]
    h = WonderlandHand.from_deck(3, stacked(3, deal, 2), dealer=2)
    h.apply(0, {"type": "play", "card": "P5"})
    h.apply(1, {"type": "play", "card": "N7"})  # void of plains: a number
    assert bot_action(h, 2, random.Random(0), "smart") == {"type": "play", "card": "P9"}


def test_smart_banks_the_pool_of_tears_card_in_a_trick_it_is_sure_to_take():
    deal = [["P5", "N1", "N2", "N3", "N4", "N5", "N6"],
            ["S16", "N7", "N8", "N9", "N10", "N11", "N12"],
            ["P16", "P9", "P12", "N13", "N14", "N15", "N16"]]
    h = WonderlandHand.from_deck(3, stacked(3, deal, 2), dealer=2)
    h.apply(0, {"type": "play", "card": "P5"})
    h.apply(1, {"type": "play", "card": "N7"})
    # last to play, it takes the trick whatever plain it plays: Alice is safe only once taken
    assert bot_action(h, 2, random.Random(0), "smart") == {"type": "play", "card": "P16"}


def test_smart_beats_random_clearly():
    r = simulate(4, 300, 20240601, ["smart", "random", "random", "random"])
    means = r.mean_by_bot()
    # measured: about 32 against 21 points per seat per hand (docs/rules.md, "Bots")
    assert r.margin("smart", "random") > 6, means
    assert r.won_by_bot["smart"] > 300 * 0.3  # a fair share would be a quarter


def test_simulation_is_deterministic_and_reports_per_seat_and_per_bot():
    a = simulate(3, 20, 5, "smart,random,random")
    b = simulate(3, 20, 5, ["smart", "random", "random"])
    assert a.total_points == b.total_points and a.won_by_bot == b.won_by_bot
    assert sum(a.won_by_bot.values()) == 20 and len(a.points_by_bot["smart"]) == 20
    lines = report_lines(a)
    assert lines[0].startswith("The Game of Alice in Wonderland: 20 hands, 3 players")
    # the shared runner's lines (games/simulate.py), then this game's own (pairs, Pool of Tears)
    assert any(line.startswith("  all smart seats:") for line in lines) and lines[-1].startswith("Hands per second")
    assert any("Pool of Tears" in line for line in lines)
    seen = []
    simulate(2, 3, 1, "random,random", progress=lambda i, n: seen.append((i, n)))
    assert seen == [(1, 3), (2, 3), (3, 3)]
