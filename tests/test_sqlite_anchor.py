"""config/sqlite_anchor.py: the server holds one SQLite connection open, so a request's
connection closing does not checkpoint and delete the write-ahead log each time."""

import os
import sqlite3

import pytest

from config import sqlite_anchor


@pytest.fixture
def no_anchor():
    """The test process holds no anchor before (its test database is not a file) nor after."""
    sqlite_anchor.release()
    yield
    sqlite_anchor.release()


def test_the_wal_survives_other_connections_closing_while_the_anchor_is_held(tmp_path, no_anchor):
    path = tmp_path / "drive.sqlite3"
    wal = str(path) + "-wal"

    def write_and_close():
        conn = sqlite3.connect(path)
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("CREATE TABLE IF NOT EXISTS t (x)")
        conn.execute("INSERT INTO t VALUES (1)")
        conn.commit()
        conn.close()

    write_and_close()
    assert not os.path.exists(wal)  # the last connection closing checkpointed and removed it
    assert sqlite_anchor.hold_open({"ENGINE": "django.db.backends.sqlite3", "NAME": path}) is True
    write_and_close()
    assert os.path.exists(wal)  # the anchor keeps it: closing was cheap
    assert sqlite3.connect(path).execute("SELECT count(*) FROM t").fetchone() == (2,)


@pytest.mark.parametrize("name", [":memory:", "file:memdb?mode=memory", ""])
def test_no_anchor_for_databases_that_are_not_a_file(no_anchor, name):
    assert sqlite_anchor.hold_open({"ENGINE": "django.db.backends.sqlite3", "NAME": name}) is False


def test_no_anchor_on_postgresql(no_anchor):
    assert sqlite_anchor.hold_open({"ENGINE": "django.db.backends.postgresql", "NAME": "x"}) is False


def test_a_bad_gil_switch_interval_is_a_clear_error(tmp_path):
    """The server refuses to start on a GIL_SWITCH_INTERVAL that is no number of seconds from
    0.0001 to 0.1, saying which setting is wrong; a good one is the interpreter's."""
    import subprocess
    import sys
    from pathlib import Path

    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL")}
    env.update({"DJANGO_SETTINGS_MODULE": "config.settings", "LIVE_RENDER_PROCESS": "0"})
    script = "import sys, config.asgi; print(sys.getswitchinterval())"
    # Each its own data directory: four processes making one new SQLite file WAL at once meet
    # "database is locked" on a busy machine (a server's file is made by `migrate` first).
    dirs = {raw: tmp_path / f"data{i}" for i, raw in enumerate(("abc", "0", "5", "0.002"))}
    servers = {raw: subprocess.Popen([sys.executable, "-c", script],
                                     env={**env, "GIL_SWITCH_INTERVAL": raw, "DATA_DIR": str(dirs[raw])},
                                     cwd=Path(__file__).resolve().parent.parent, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True)
               for raw in ("abc", "0", "5", "0.002")}
    for raw, server in servers.items():
        out, err = server.communicate(timeout=120)
        if raw == "0.002":
            assert server.returncode == 0 and float(out) == 0.002, err
        else:
            assert server.returncode != 0
            assert "ImproperlyConfigured: GIL_SWITCH_INTERVAL must be seconds from 0.0001 to 0.1" in err, err
