"""The shared simulation runner (games/simulate.py) and each game's hook (games/*/simulate.py)."""

from __future__ import annotations

import io
import random

import pytest

from games import GameError
from games.alice import ALICE
from games.film_fantasy import FILM_FANTASY, FilmFantasy
from games.simulate import (CAPPED, DEFAULT_BOT, hook_for, parse_bots, play_hand, progress_bar, report_lines,
                            simulate)
from games.wonderland import WONDERLAND

GAMES = [FILM_FANTASY, ALICE, WONDERLAND]


class PlainFilmFantasy(FilmFantasy):
    """The same game with no simulation hook of its own (its module is not a game package)."""


@pytest.mark.parametrize("game", GAMES, ids=lambda g: g.slug)
def test_every_game_runs_through_the_one_runner(game):
    names = list(hook_for(game).bots)
    assert len(names) >= 2
    bots = [names[0], names[1], names[1]]
    a = simulate(game, 3, 24, 5, bots, rotate=True)
    b = simulate(game, 3, 24, 5, ",".join(bots), rotate=True)
    assert a.total_points == b.total_points and a.won_by_bot == b.won_by_bot and a.ended == b.ended
    assert sum(a.ended.values()) == 24 and sum(a.won_by_seat) == 24 == sum(a.won_by_bot.values())
    assert len(a.points_by_bot[names[0]]) == 24 and len(a.points_by_bot[names[1]]) == 48
    lines = report_lines(a)
    assert lines[0].startswith(f"{game.name}: 24 hands, 3 players, bots {','.join(bots)}, seed 5")
    for heading in ("How hands ended:", "Mean points per seat:", "Hands won (the seat that moves up):"):
        assert heading in lines
    assert any(line.strip().startswith("stopped at") for line in lines)
    assert lines[-1].startswith("Hands per second")


@pytest.mark.parametrize("game", GAMES, ids=lambda g: g.slug)
def test_hands_stopped_at_the_turn_cap_are_counted(game):
    r = simulate(game, 4, 6, 1, [hook_for(game).default_bot] * 4, turn_cap=1)
    assert r.ended[CAPPED] == 6 and sum(r.won_by_seat) == 6


def test_a_game_without_a_hook_is_played_by_its_bot_action():
    game = PlainFilmFantasy()
    assert list(hook_for(game).bots) == [DEFAULT_BOT]
    hand, ended = play_hand(game, 4, [DEFAULT_BOT] * 4, random.Random(2))
    assert hand.finished and ended in (hand.ended_by, CAPPED)
    r = simulate(game, 4, 10, 3)  # no bots named: the default at every seat
    assert r.bots == [DEFAULT_BOT] * 4 and sum(r.ended.values()) == 10


def test_bad_arguments_are_refused():
    with pytest.raises(GameError, match="Unknown bot"):
        parse_bots(FILM_FANTASY, "greedy,clever", 2)
    with pytest.raises(GameError, match="one bot per seat"):
        parse_bots(ALICE, "smart,random", 3)
    with pytest.raises(GameError, match="2 to 6 players"):
        simulate(WONDERLAND, 7, 1, 1)
    with pytest.raises(GameError, match="turn cap"):
        simulate(FILM_FANTASY, 4, 1, 1, turn_cap=0)


@pytest.mark.parametrize("game", GAMES, ids=lambda g: g.slug)
def test_the_view_bot_plays_legal_moves_from_a_seat_s_view_only(game):
    view_bot = hook_for(game).view_bot
    rng = random.Random(3)
    for _ in range(3):
        hand = game.new_hand(4, rng)
        for _ in range(600):
            moves = [(s, view_bot(hand.view(s), rng)) for s in rng.sample(range(4), 4)]
            moves = [(s, a) for s, a in moves if a is not None]
            if not moves:
                break
            hand.apply(*moves[0])  # a refused move is a GameError
            if hand.finished:
                break
        assert moves or hand.finished


def test_the_progress_bar():
    out = io.StringIO()
    bar = progress_bar(out, width=10)
    for i in range(1, 101):
        bar(i, 100)
    assert out.getvalue().endswith("[##########] 100/100\n") and out.getvalue().count("\r") == 50
