"""`make bench`'s scripts still drive the application: each scenario, made tiny (two tables, a
second or two of play), runs through its real daphne and reports no error. No time is
asserted (speed is measured by `make bench` itself, docs/benchmarks.md); what is checked is
that the scripts speak the application's current language (its forms' fields, its routes, its
frames): a field added to the phones' entry form once made every hall entry a refusal, which
only the next `make bench` showed."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import games
from games.simulate import hook_for

ROOT = Path(__file__).resolve().parent.parent


def _run(args: list[str]) -> subprocess.CompletedProcess:
    # The embedded defaults (SQLite, the in-memory layer), whatever the suite runs on: quick, and
    # the same on every machine.
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL")}
    return subprocess.run([sys.executable, *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=180)


def test_the_hall_and_hand_end_scenarios_run_without_an_error(tmp_path):
    out = tmp_path / "hall.json"
    done = _run(["bench/hall.py", "--layer", "memory", "--tables", "2", "--hands", "1", "--spread", "0.5",
                 "--floor-sends", "10", "--json", str(out)])
    assert done.returncode == 0, done.stderr[-2000:]
    entries = {e["scenario"]: e for e in json.loads(out.read_text())["entries"]}
    assert entries["hall"]["errors"] == [] and entries["hall"]["n"] == 2  # both tables' results reached the screens
    assert entries["hand_end"]["errors"] == [] and entries["hand_end"]["n"] == 8  # every phone its instruction


def test_the_hall_runs_several_drives_side_by_side_as_at_1000_phones(tmp_path):
    """--tables over 125 makes drives of at most 125 tables side by side (a drive holds 500
    players); here two drives of one table each, their figures over both."""
    out = tmp_path / "hall.json"
    done = _run(["bench/hall.py", "--layer", "memory", "--tables", "2", "--drive-tables", "1", "--hands", "1",
                 "--spread", "0.5", "--floor-sends", "5", "--json", str(out)])
    assert done.returncode == 0, done.stderr[-2000:]
    entries = {e["scenario"]: e for e in json.loads(out.read_text())["entries"]}
    assert entries["hall"]["errors"] == [] and entries["hall"]["drives"] == 2 and entries["hall"]["n"] == 2
    assert entries["hall"]["clients"] == 2 * (4 + 8)  # each drive its four phones, 4 boards and 4 dashboards
    assert entries["hand_end"]["errors"] == [] and entries["hand_end"]["n"] == 8
    assert entries["hall"]["server_peak_rss_mb"]["server-0"] > 0


def test_the_hall_takes_1000_phones_as_two_drives_and_no_more():
    from bench import hall
    from bench.drive_setup import split_tables

    assert hall.parse_args(["--tables", "250"]).tables == 250
    assert split_tables(250) == [125, 125] and split_tables(130) == [65, 65] and split_tables(50) == [50]
    done = _run(["bench/hall.py", "--tables", "251"])
    assert done.returncode == 2 and "--tables 1..250" in done.stderr


def test_the_entry_burst_scenario_runs_without_an_error_and_stores_each_result_once(tmp_path):
    out = tmp_path / "entry.json"
    done = _run(["bench/entry_burst.py", "--layer", "memory", "--tables", "2", "--spread", "1", "--json", str(out)])
    assert done.returncode == 0, done.stderr[-2000:]
    (entry,) = json.loads(out.read_text())["entries"]
    assert entry["errors"] == []  # every POST answered as the rules say; one result a table, confirmed
    assert entry["posts"] == 8 and entry["n"] == 8 and entry["floor"]["n"] == 8
    outcomes = entry["outcomes"]
    assert outcomes["stored"] == 2 and outcomes["confirmed"] == 2
    assert outcomes["repeated"] + outcomes["refused_competing"] == 4


def test_make_bench_judges_each_scenario_by_its_own_target():
    from bench.run import verdict

    burst = {"scenario": "entry_burst", "p95_ms": 900.0, "floor_p95_ms": 20.0, "errors": []}
    assert verdict(burst).startswith("met") and verdict({**burst, "p95_ms": 1200.0}).startswith("MISSED")
    end = {"scenario": "hand_end_1000", "p95_ms": 100.0, "floor_p95_ms": 100.0, "errors": [],
           "all_phones_ms": {"max_ms": 2500.0}}
    assert verdict(end).startswith("MISSED") and "last phone 2.50 s" in verdict(end)
    hall = {"scenario": "hall_1000", "p95_ms": 10.0, "floor_p95_ms": 10.0, "errors": [],
            "server_peak_rss_mb": {"server-0": 1100.0}}
    assert verdict(hall).startswith("MISSED") and verdict({**hall, "server_peak_rss_mb": {"server-0": 300.0}}).startswith("met")
    digital = {"scenario": "digital", "game": "alice", "p95_ms": 19.0, "floor_p95_ms": 10.0, "errors": 0}
    assert verdict(digital).startswith("met") and verdict({**digital, "p95_ms": 21.0}).startswith("MISSED")
    assert verdict({**hall, "scenario": "hall", "p95_ms": 19.0}).startswith("MISSED")  # 1.5x for the rest


def test_make_bench_plays_every_game_that_a_phone_bot_can_play_four_at_a_table(monkeypatch):
    """A ``view_bot`` is optional (docs/games.md, step 9): a game without one, or not played four
    at a table, is left out of the digital tables, not an error."""
    from bench.run import digital_games
    from games import Game, all_games

    playable = [g.slug for g in all_games() if g.min_players <= 4 <= g.max_players and hook_for(g).view_bot]
    assert playable and digital_games() == playable

    class NoPhoneBot(Game):  # registered without a simulation hook of its own: no view_bot
        slug, name, min_players, max_players = "no-phone-bot", "No phone bot", 2, 6

    monkeypatch.setitem(games._REGISTRY, NoPhoneBot.slug, NoPhoneBot())
    assert NoPhoneBot.slug in [g.slug for g in all_games()] and digital_games() == playable


def test_the_digital_scenario_runs_without_an_error(tmp_path):
    out = tmp_path / "digital.json"
    done = _run(["bench/digital.py", "--tables", "2", "--floor-rounds", "4", "--play-seconds", "10",
                 "--think", "0.01,0.02", "--results", str(out)])
    assert done.returncode == 0, done.stderr[-2000:]
    (entry,) = json.loads(out.read_text())
    assert entry["errors"] == 0 and entry["refused"] == 0
    assert entry["actions"] > 0 and entry["hands_finished"] + entry["hands_unfinished"] == 2
    assert entry["floor_samples"] == 8


def test_the_digital_scenario_refuses_an_unknown_game_naming_the_registered_ones():
    done = _run(["bench/digital.py", "--game", "snap", "--tables", "1"])
    assert done.returncode == 2 and "unknown game 'snap'" in done.stderr
    assert games.default_slug() in done.stderr


@pytest.mark.parametrize("game", [g for g in games.all_games() if hook_for(g).view_bot], ids=lambda g: g.slug)
def test_the_move_profile_plays_a_table_of_every_game_with_a_view_bot_to_its_end(game):
    done = _run(["bench/profile_moves.py", "--game", game.slug, "--tables", "1", "--compare-json"])
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.startswith(f"{game.slug}: ") and "; 1 moves that end a hand" in done.stdout
    assert "JSON columns by orjson: median" in done.stdout and "; by the standard library: median" in done.stdout


def test_the_move_profile_refuses_an_unknown_game_naming_the_playable_ones():
    done = _run(["bench/profile_moves.py", "--game", "snap"])
    assert done.returncode == 2 and "'snap'" in done.stderr and games.default_slug() in done.stderr


@pytest.mark.parametrize("game", games.all_games(), ids=lambda g: g.slug)
def test_the_engine_bench_runs_for_every_registered_game(game):
    done = _run(["bench/bench_engine.py", "--game", game.slug, "--hands", "40", "--runs", "1", "--samples", "5"])
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.startswith(game.name) and "apply+view" in done.stdout and "Hands per second" in done.stdout


def test_the_standings_bench_builds_its_drive_and_measures_every_page(tmp_path):
    out = tmp_path / "standings.json"
    done = _run(["bench/bench_standings.py", "--players", "12", "--hands", "2", "--requests", "5", "--json", str(out)])
    assert done.returncode == 0, done.stderr[-2000:]
    result = json.loads(out.read_text())
    assert result["drive"] == {"players": 12, "tables": 3, "hands_closed": 2, "scores": 24}
    assert set(result["figures"]) == {"standings_page", "standings_selector", "dashboard_page", "standings_page_finished"}
    assert all(f["n"] == 5 for f in result["figures"].values())
    # The process's own CPU time beside the wall time, and how busy the machine was: on a
    # shared machine the wall time counts others' work too.
    assert all(f["cpu_median_ms"] > 0 for f in result["figures"].values())
    assert set(result["machine"]["load_average"]) == {"before", "after"}
