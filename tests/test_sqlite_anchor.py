"""config/sqlite_anchor.py: the server holds one SQLite connection open, so a request's
connection closing does not checkpoint and delete the write-ahead log each time."""

import os
import sqlite3

import pytest

from config import sqlite_anchor


def test_the_wal_survives_other_connections_closing_while_the_anchor_is_held(tmp_path, monkeypatch):
    path = tmp_path / "drive.sqlite3"
    monkeypatch.setattr(sqlite_anchor, "_anchor", None)
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
    try:
        write_and_close()
        assert os.path.exists(wal)  # the anchor keeps it: closing was cheap
        assert sqlite3.connect(path).execute("SELECT count(*) FROM t").fetchone() == (2,)
    finally:
        sqlite_anchor._anchor.close()


@pytest.mark.parametrize("name", [":memory:", "file:memdb?mode=memory", ""])
def test_no_anchor_for_databases_that_are_not_a_file(monkeypatch, name):
    monkeypatch.setattr(sqlite_anchor, "_anchor", None)
    assert sqlite_anchor.hold_open({"ENGINE": "django.db.backends.sqlite3", "NAME": name}) is False


def test_no_anchor_on_postgresql(monkeypatch):
    monkeypatch.setattr(sqlite_anchor, "_anchor", None)
    assert sqlite_anchor.hold_open({"ENGINE": "django.db.backends.postgresql", "NAME": "x"}) is False


def test_a_bad_gil_switch_interval_is_a_clear_error(monkeypatch):
    from django.core.exceptions import ImproperlyConfigured

    from config import asgi

    for raw in ("abc", "0", "5"):
        monkeypatch.setenv("GIL_SWITCH_INTERVAL", raw)
        with pytest.raises(ImproperlyConfigured, match="GIL_SWITCH_INTERVAL"):
            asgi._switch_interval()
    monkeypatch.setenv("GIL_SWITCH_INTERVAL", "0.002")
    assert asgi._switch_interval() == 0.002
