"""``manage.py simulate`` (tables/management/commands/simulate.py): any registered game through
the shared runner (games/simulate.py)."""

from io import StringIO

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

import games
from games.alice import ALICE
from games.wonderland import WONDERLAND


def run(*args):
    out, err = StringIO(), StringIO()
    call_command("simulate", *args, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


def test_simulate_prints_endings_points_share_and_speed():
    out, _ = run("--players", "4", "--hands", "30", "--seed", "3", "--bots", "greedy,random,greedy,random")
    assert "declared while passing" in out and "declared in the auction" in out and "auction cap" in out
    assert "seat 3 (random)" in out and "25-point declarations" in out and "Hands per second" in out


def test_the_default_game_is_the_default_slugs():
    named = run("--game", games.default_slug(), "--hands", "5", "--seed", "2")[0]
    default = run("--hands", "5", "--seed", "2")[0]
    strip = lambda s: [line for line in s.splitlines() if "per second" not in line]  # noqa: E731
    assert strip(named) == strip(default)
    assert default.startswith(games.get_game(games.default_slug()).name + ": 5 hands, 4 players")


def test_simulate_is_deterministic_for_a_seed():
    args = ("--players", "3", "--hands", "20", "--seed", "9", "--bots", "greedy,greedy,random")
    first, second = run(*args)[0], run(*args)[0]
    strip = lambda s: [line for line in s.splitlines() if "per second" not in line]  # noqa: E731
    assert strip(first) == strip(second)


@pytest.mark.parametrize("game", games.all_games(), ids=lambda g: g.slug)
def test_every_registered_game_can_be_simulated(game):
    out, _ = run("--game", game.slug, "--hands", "10", "--seed", "1")
    assert out.startswith(f"{game.name}: 10 hands") and "How hands ended:" in out
    assert "Mean points per seat:" in out and "Hands won" in out and "Hands per second" in out


@pytest.mark.parametrize("game", [ALICE, WONDERLAND], ids=lambda g: g.slug)
def test_a_game_once_registered_needs_nothing_of_the_command(monkeypatch, game):
    monkeypatch.setitem(games._REGISTRY, game.slug, game)
    out, _ = run("--game", game.slug, "--players", "3", "--hands", "12", "--seed", "4", "--bots", "smart,random,random",
                 "--rotate")
    assert out.startswith(f"{game.name}: 12 hands, 3 players, bots smart,random,random")
    assert "all smart seats" in out and "stopped at the turn cap" in out
    with pytest.raises(CommandError, match="from 2 to 6 for"):
        run("--game", game.slug, "--players", "7")


@pytest.mark.parametrize(
    "args,message",
    [
        (("--players", "11", "--bots", "greedy"), "2 to 10"),
        (("--players", "1", "--bots", "greedy"), "2 to 10"),
        (("--players", "3", "--bots", "greedy,random"), "one bot per seat"),
        (("--players", "2", "--bots", "greedy,clever"), "Unknown bot"),
        (("--players", "2", "--hands", "0", "--bots", "greedy,greedy"), "from 1 to 1,000,000, not 0"),
        (("--hands", "99999999999"), "from 1 to 1,000,000, not 99999999999"),
        (("--turn-cap", "0",), "at least 1"),
        (("--game", "snap"), "Unknown game 'snap'; the registered games are: .*film-fantasy"),
    ],
)
def test_simulate_refuses_bad_arguments(args, message):
    with pytest.raises(CommandError, match=message):
        run(*args)
