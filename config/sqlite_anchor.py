"""One SQLite connection held open for the server process's lifetime (SQLite only).

The server's SQLite connections are kept with their threads (``CONN_MAX_AGE = None``), but some
close: a read from a socket's thread (``common.db.database_sync_to_async`` closes inside the
call), the live worker and the result-message thread between bursts (``drive.live``), the render
child's. In WAL mode the *last* connection to a database file that closes checkpoints the
write-ahead log into the database and deletes it, an fsync and a file re-creation on the next
write. Holding one idle connection keeps the WAL in place, so closing any other is cheap;
SQLite still checkpoints on its own every 1,000 pages.

The anchor never reads or writes and holds no lock. ``asgi.py`` opens it for the server.
"""

from __future__ import annotations

import sqlite3
import threading

_anchor: sqlite3.Connection | None = None
_lock = threading.Lock()


def hold_open(db: dict | None = None) -> bool:
    """Open the anchor for the default database (or ``db``, a DATABASES entry) if it is a
    SQLite file; True if one is held."""
    global _anchor
    if db is None:
        from django.conf import settings

        db = settings.DATABASES["default"]
    name = str(db.get("NAME") or "")
    if db["ENGINE"] != "django.db.backends.sqlite3" or not name or name == ":memory:" or name.startswith("file:"):
        return False
    with _lock:
        if _anchor is None:
            _anchor = sqlite3.connect(name, timeout=20, check_same_thread=False)
            _anchor.execute("PRAGMA journal_mode=WAL")
        return True


def release() -> None:
    """Close the anchor, if one is held (a clean shutdown; tests)."""
    global _anchor
    with _lock:
        if _anchor is not None:
            _anchor.close()
            _anchor = None
