"""Run the load benchmarks (`make bench`): every scenario on both layers, in under five minutes.

    .venv/bin/python bench/run.py [--only hall,digital] [--layers memory,redis] [--hands 3] [--game SLUG]

Scenarios (docs/benchmarks.md, "Load"):
- ``hall`` and ``hand_end`` (bench/hall.py, one run per layer gives both);
- ``digital`` (bench/digital.py, written separately; run as a subprocess and its JSON merged;
  when the file does not exist the output says so and no entry is written for it); its tables
  play ``--game`` (default: the default game).

Layers: ``memory`` = the embedded defaults (SQLite file + in-memory channel layer, one daphne);
``redis`` = PostgreSQL + Redis with two daphne processes (bench/hall.py and bench/digital.py
each start their own). PostgreSQL: a fresh throwaway database on the server of
BENCH_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/postgres), dropped afterwards.
Redis: database 5 of BENCH_REDIS_URL (default redis://127.0.0.1:6379/5), flushed at the start.

Writes bench/results/latest.json (git-ignored): a list of entries with scenario, layer,
processes, clients, p50_ms, p95_ms, p99_ms, floor_p95_ms, errors (and more detail), and prints a
summary table. The target: p95 within 1.5 times the floor, no errors, no lost message.
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
HALL_TIMEOUT = 170  # seconds per layer
DIGITAL_TIMEOUT = 120


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


def run_hall(layer: str, hands: int) -> list[dict]:
    with tempfile.NamedTemporaryFile(suffix=".json", delete=False) as f:
        out = f.name
    cmd = [sys.executable, str(ROOT / "bench" / "hall.py"), "--layer", layer, "--hands", str(hands), "--json", out]
    try:
        proc = _run(cmd, HALL_TIMEOUT, cwd=ROOT)
        if proc.returncode != 0 or not os.path.getsize(out):
            raise RuntimeError(f"bench/hall.py exited {proc.returncode}: {proc.stderr[-1500:]}")
        return json.loads(Path(out).read_text())["entries"]
    except (subprocess.TimeoutExpired, RuntimeError, ValueError) as exc:
        return [{"scenario": s, "layer": layer, "processes": 1 if layer == "memory" else 2, "clients": 0,
                 "p50_ms": None, "p95_ms": None, "p99_ms": None, "floor_p95_ms": None,
                 "errors": [f"{type(exc).__name__}: {str(exc)[-1500:]}"]} for s in ("hall", "hand_end")]
    finally:
        os.unlink(out)


def _last_json_object(text: str) -> dict:
    """The last top-level JSON object printed (bench/digital.py prints an indented one)."""
    starts = [i for i in range(len(text)) if text[i] == "{" and (i == 0 or text[i - 1] == "\n")]
    for i in reversed(starts):
        try:
            return json.loads(text[i:])
        except ValueError:
            continue
    raise ValueError("no JSON object in the output")


def run_digital(layer: str, game: str | None = None) -> dict | None:
    script = ROOT / "bench" / "digital.py"
    if not script.exists():
        return None
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL")}
    if layer == "redis":
        env["DATABASE_URL"] = os.environ.get("BENCH_DATABASE_URL", common.DEFAULT_PG_URL)
        env["REDIS_URL"] = common.with_socket_timeout(os.environ.get("BENCH_REDIS_URL", common.DEFAULT_REDIS_URL))
        common.flush_redis(env["REDIS_URL"])
    try:
        proc = _run([sys.executable, str(script), *(["--game", game] if game else [])], DIGITAL_TIMEOUT, cwd=ROOT,
                    env=env)
        entry = _last_json_object(proc.stdout)
        if proc.returncode != 0:
            entry.setdefault("errors", []).append(f"bench/digital.py exited {proc.returncode}")
    except (subprocess.TimeoutExpired, ValueError) as exc:
        entry = {"scenario": "digital", "layer": layer, "processes": 2 if layer == "redis" else 1, "clients": 100, "p50_ms": None,
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
    ok = p95 <= TARGET_RATIO * floor and not errors
    return f"{'met' if ok else 'MISSED'} ({p95 / floor:.1f}x floor{', errors' if errors else ''})"


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--only", default="hall,digital", help="comma-separated: hall (gives hand_end too), digital")
    p.add_argument("--layers", default="memory,redis")
    p.add_argument("--hands", type=int, default=3, help="hands played in the hall/hand_end run (default 3)")
    p.add_argument("--game", default=None, help="the digital tables' game (default: the default game)")
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
            print(f"[{time.monotonic() - started:5.0f} s] digital on {layer} ...", flush=True)
            entry = run_digital(layer, args.game)
            if entry is None:
                notes.append(f"digital ({layer}): DID NOT RUN: bench/digital.py does not exist yet.")
            else:
                entries.append(entry)
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "latest.json").write_text(json.dumps(entries, indent=2) + "\n")
    print(f"\n{'scenario':10} {'layer':7} {'proc':>4} {'clients':>7} {'p50':>8} {'p95':>8} {'p99':>8} {'floor95':>8}  target")
    for e in entries:
        cells = [e.get(k) for k in ("p50_ms", "p95_ms", "p99_ms", "floor_p95_ms")]
        print(f"{e['scenario']:10} {e['layer']:7} {e.get('processes', '?'):>4} {e.get('clients', '?'):>7} "
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
