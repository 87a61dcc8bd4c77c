"""Run the load benchmarks (`make bench`): every scenario on both layers, in under ten minutes.

    .venv/bin/python bench/run.py [--only hall,digital,entry_burst,hall_1000] [--layers memory,redis]
                                  [--hands 3] [--game SLUG]

Scenarios (docs/benchmarks.md, "Load"):
- ``hall`` and ``hand_end`` (bench/hall.py, one run per layer gives both);
- ``entry_burst`` (bench/entry_burst.py): 1,000 entries and confirmations posted in 10 s;
- ``hall_1000`` and ``hand_end_1000``: bench/hall.py at 250 tables (1,000 phones, two drives),
  on the embedded defaults only, two hands;
- ``digital`` (bench/digital.py, run as a subprocess and its JSON merged): one run for each
  registered game that plays four at a table from a phone's view (``--game``: that game only),
  with 20 floor rounds per group (half before the play, half after it), so that three games on
  both layers keep ``make bench`` under ten minutes.

Layers: ``memory`` = the embedded defaults (SQLite file + in-memory channel layer, one daphne);
``redis`` = PostgreSQL + Redis with two daphne processes (bench/hall.py and bench/digital.py
each start their own). PostgreSQL: a fresh throwaway database on the server of
BENCH_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/postgres), dropped afterwards.
Redis: database 5 of BENCH_REDIS_URL (default redis://127.0.0.1:6379/5?socket_timeout=30), flushed
at the start.

Writes bench/results/latest.json (git-ignored): a list of entries with scenario, layer,
processes, clients, p50_ms, p95_ms, p99_ms, floor_p95_ms, errors (and more detail), and prints a
summary table. The targets: p95 within 1.5 times the floor (digital: 2 times, a move is written
durably before it is shown and the floor writes nothing), no errors, no lost message.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench import common  # noqa: E402

RESULTS = ROOT / "bench" / "results"
TARGET_RATIO = 1.5
DIGITAL_RATIO = 2.0  # digital: within twice its floor
DIGITAL_FLOOR_ROUNDS = 20  # per group, for each game's run (bench/digital.py's own default is 40)
ENTRY_P95_MS = 1000  # entry_burst: p95 under a second
LAST_PHONE_MS = 2000  # hand_end_1000: the last phone within 2 s
RSS_LIMIT_MB = 1024  # hall_1000: the server's peak resident memory
HALL_TIMEOUT = 170  # seconds per layer
HALL_1000_TIMEOUT = 240
DIGITAL_TIMEOUT = 120
ENTRY_TIMEOUT = 120


def _run(cmd: list[str], timeout: float, **kwargs) -> subprocess.CompletedProcess:
    """``subprocess.run`` in a process group of its own: on a timeout the script and the servers
    it started all stop (SIGTERM first, so the script can drop its throwaway database), not the
    script alone with its daphnes left running."""
    proc = subprocess.Popen(cmd, start_new_session=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            **kwargs)
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        for sig, wait in ((signal.SIGTERM, 15), (signal.SIGKILL, 5)):
            try:
                os.killpg(proc.pid, sig)
            except ProcessLookupError:
                break
            try:
                proc.communicate(timeout=wait)
                break
            except subprocess.TimeoutExpired:
                continue
        raise
    return subprocess.CompletedProcess(cmd, proc.returncode, out, err)


def _run_script(script: str, args: list[str], timeout: float, layer: str, scenarios: tuple[str, ...]) -> list[dict]:
    """A benchmark script that writes ``{"entries": [...]}`` to ``--json``; its entries, or one
    entry per scenario saying why there are none."""
    with tempfile.NamedTemporaryFile(suffix=".json", delete=False) as f:
        out = f.name
    cmd = [sys.executable, str(ROOT / "bench" / script), "--layer", layer, *args, "--json", out]
    try:
        proc = _run(cmd, timeout, cwd=ROOT)
        if proc.returncode != 0 or not os.path.getsize(out):
            raise RuntimeError(f"bench/{script} exited {proc.returncode}: {proc.stderr[-1500:]}")
        return json.loads(Path(out).read_text())["entries"]
    except (subprocess.TimeoutExpired, RuntimeError, ValueError) as exc:
        return [{"scenario": s, "layer": layer, "processes": 1 if layer == "memory" else 2, "clients": 0,
                 "p50_ms": None, "p95_ms": None, "p99_ms": None, "floor_p95_ms": None,
                 "errors": [f"{type(exc).__name__}: {str(exc)[-1500:]}"]} for s in scenarios]
    finally:
        os.unlink(out)


def run_hall(layer: str, hands: int) -> list[dict]:
    return _run_script("hall.py", ["--hands", str(hands)], HALL_TIMEOUT, layer, ("hall", "hand_end"))


def run_hall_1000(hands: int) -> list[dict]:
    """The hall at 1,000 phones (250 tables: two drives of 125), on the embedded defaults."""
    entries = _run_script("hall.py", ["--hands", str(hands), "--tables", "250"], HALL_1000_TIMEOUT, "memory",
                          ("hall", "hand_end"))
    for entry in entries:
        entry["scenario"] += "_1000"
    return entries


def run_entry_burst(layer: str) -> list[dict]:
    return _run_script("entry_burst.py", [], ENTRY_TIMEOUT, layer, ("entry_burst",))


def _last_json_object(text: str) -> dict:
    """The last top-level JSON object printed (bench/digital.py prints an indented one)."""
    starts = [i for i in range(len(text)) if text[i] == "{" and (i == 0 or text[i - 1] == "\n")]
    for i in reversed(starts):
        try:
            return json.loads(text[i:])
        except ValueError:
            continue
    raise ValueError("no JSON object in the output")


def digital_games() -> list[str]:
    """The games bench/digital.py can play: four at a table, with a bot that plays from a view."""
    from games import all_games
    from games.simulate import hook_for

    return [g.slug for g in all_games() if g.min_players <= 4 <= g.max_players and hook_for(g).view_bot]


def run_digital(layer: str, game: str) -> dict:
    script = ROOT / "bench" / "digital.py"
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL")}
    if layer == "redis":
        env["DATABASE_URL"] = os.environ.get("BENCH_DATABASE_URL", common.DEFAULT_PG_URL)
        env["REDIS_URL"] = common.with_socket_timeout(os.environ.get("BENCH_REDIS_URL", common.DEFAULT_REDIS_URL))
        common.flush_redis(env["REDIS_URL"])
    try:
        proc = _run([sys.executable, str(script), "--floor-rounds", str(DIGITAL_FLOOR_ROUNDS),
                     *(["--game", game] if game else [])], DIGITAL_TIMEOUT, cwd=ROOT, env=env)
        entry = _last_json_object(proc.stdout)
        if proc.returncode != 0:
            entry.setdefault("errors", []).append(f"bench/digital.py exited {proc.returncode}")
    except (subprocess.TimeoutExpired, ValueError) as exc:
        entry = {"scenario": "digital", "game": game, "layer": layer, "processes": 2 if layer == "redis" else 1, "clients": 100, "p50_ms": None,
                 "p95_ms": None, "p99_ms": None, "floor_p95_ms": None,
                 "errors": [f"{type(exc).__name__}: {str(exc)[-1500:]}"]}
    finally:
        if layer == "redis":
            common.flush_redis(env["REDIS_URL"])
    entry.setdefault("layer", layer)
    entry["source"] = "bench/digital.py (subprocess)"
    return entry


def verdict(entry: dict) -> str:
    errors = entry.get("errors") or []
    if isinstance(errors, int):
        errors = [errors] if errors else []
    p95, floor = entry.get("p95_ms"), entry.get("floor_p95_ms")
    if p95 is None or not floor:
        return "NOT MEASURED"
    if entry["scenario"] == "entry_burst":  # every POST answered, p95 under a second, each stored once
        ok = p95 < ENTRY_P95_MS and not errors
        return f"{'met' if ok else 'MISSED'} (p95 {p95 / 1000:.2f} s, {p95 / floor:.0f}x floor{', errors' if errors else ''})"
    ok = p95 <= (DIGITAL_RATIO if entry["scenario"] == "digital" else TARGET_RATIO) * floor and not errors
    extra = []
    last = (entry.get("all_phones_ms") or {}).get("max_ms")
    if entry["scenario"] == "hand_end_1000" and last is not None:  # and the last phone within 2 s
        ok = ok and last < LAST_PHONE_MS
        extra.append(f"last phone {last / 1000:.2f} s")
    rss = max((v for v in (entry.get("server_peak_rss_mb") or {}).values() if v), default=None)
    if entry["scenario"] == "hall_1000" and rss is not None:  # and the server under 1 GB
        ok = ok and rss < RSS_LIMIT_MB
        extra.append(f"peak RSS {rss:.0f} MB")
    return f"{'met' if ok else 'MISSED'} ({p95 / floor:.1f}x floor{', errors' if errors else ''}" + \
        "".join(f", {x}" for x in extra) + ")"


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--only", default="hall,digital,entry_burst,hall_1000",
                   help="comma-separated: hall (gives hand_end too), digital, entry_burst, hall_1000 (the hall at "
                        "1,000 phones, embedded defaults only)")
    p.add_argument("--layers", default="memory,redis")
    p.add_argument("--hands", type=int, default=3, help="hands played in the hall/hand_end run (default 3)")
    p.add_argument("--game", default=None, help="the digital tables' game (default: every game that can)")
    args = p.parse_args(argv)
    only = {s.strip() for s in args.only.split(",")}
    layers = [s.strip() for s in args.layers.split(",") if s.strip()]
    started = time.monotonic()
    entries: list[dict] = []
    notes: list[str] = []
    for layer in layers:
        if "hall" in only:
            print(f"[{time.monotonic() - started:5.0f} s] hall + hand_end on {layer} ...", flush=True)
            entries += run_hall(layer, args.hands)
        if "digital" in only:
            for game in [args.game] if args.game else digital_games():
                print(f"[{time.monotonic() - started:5.0f} s] digital ({game}) on {layer} ...", flush=True)
                entries.append(run_digital(layer, game))
        if "entry_burst" in only:
            print(f"[{time.monotonic() - started:5.0f} s] entry_burst on {layer} ...", flush=True)
            entries += run_entry_burst(layer)
    if "hall_1000" in only and "memory" in layers:
        print(f"[{time.monotonic() - started:5.0f} s] hall + hand_end at 1,000 phones on memory ...", flush=True)
        entries += run_hall_1000(min(args.hands, 2))
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "latest.json").write_text(json.dumps(entries, indent=2) + "\n")
    print(f"\n{'scenario':24} {'layer':7} {'proc':>4} {'clients':>7} {'p50':>8} {'p95':>8} {'p99':>8} {'floor95':>8}  target")
    for e in entries:
        cells = [e.get(k) for k in ("p50_ms", "p95_ms", "p99_ms", "floor_p95_ms")]
        name = f"{e['scenario']} ({e['game']})" if e["scenario"] == "digital" else e["scenario"]
        print(f"{name:24} {e['layer']:7} {e.get('processes', '?'):>4} {e.get('clients', '?'):>7} "
              + " ".join(f"{c:8.1f}" if isinstance(c, (int, float)) else f"{'-':>8}" for c in cells)
              + f"  {verdict(e)}")
        errors = e.get("errors") or []
        for err in (errors if isinstance(errors, list) else [errors])[:5]:
            print(f"    error: {str(err)[:300]}")
    for note in notes:
        print(note)
    print(f"\nwrote {RESULTS / 'latest.json'} in {time.monotonic() - started:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
