"""``manage.py simulate`` (tables/management/commands/simulate.py)."""

from io import StringIO

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError


def run(*args):
    out, err = StringIO(), StringIO()
    call_command("simulate", *args, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


def test_simulate_prints_endings_points_share_and_speed():
    out, _ = run("--players", "4", "--hands", "30", "--seed", "3", "--bots", "greedy,random,greedy,random")
    assert "declared while passing" in out and "declared in the auction" in out and "auction cap" in out
    assert "seat 3 (random)" in out and "25-point declarations" in out and "Hands per second" in out


def test_simulate_is_deterministic_for_a_seed():
    args = ("--players", "3", "--hands", "20", "--seed", "9", "--bots", "greedy,greedy,random")
    first, second = run(*args)[0], run(*args)[0]
    strip = lambda s: [line for line in s.splitlines() if "per second" not in line]  # noqa: E731
    assert strip(first) == strip(second)


@pytest.mark.parametrize(
    "args,message",
    [
        (("--players", "11", "--bots", "greedy"), "2 to 10"),
        (("--players", "1", "--bots", "greedy"), "2 to 10"),
        (("--players", "3", "--bots", "greedy,random"), "one bot per seat"),
        (("--players", "2", "--bots", "greedy,clever"), "Unknown bot"),
        (("--players", "2", "--hands", "0", "--bots", "greedy,greedy"), "at least 1"),
    ],
)
def test_simulate_refuses_bad_arguments(args, message):
    with pytest.raises(CommandError, match=message):
        run(*args)
