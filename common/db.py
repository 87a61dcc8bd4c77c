"""Database work from an event loop, in a thread.

``database_sync_to_async`` is channels' (Django's old connections closed before and after the
call), with one more close: inside the call itself. asgiref 3.13 runs the call in a copy of the
caller's context, and the connection the call used is not always the one channels' close sees
from outside that context: a call from a consumer (``thread_sensitive=False``, in the loop's
executor) left its connection open after it, one per executor thread, never given back to the
PostgreSQL pool (seen as sessions left open when the test database was dropped). Closed inside
the call, it goes back at once, as Django means it to (``CONN_MAX_AGE`` 0, or the pool)."""

from __future__ import annotations

import functools
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Callable

from asgiref.sync import sync_to_async
from channels.db import database_sync_to_async as _channels_database_sync_to_async
from django.db import DatabaseError, close_old_connections, connections


def database_sync_to_async(fn: Callable[..., Any] | None = None, **kwargs: Any) -> Any:
    """As channels' ``database_sync_to_async`` (a decorator, or called with the function and
    asgiref's keyword arguments), closing Django's old connections inside the call too."""
    if fn is None:
        return lambda inner: database_sync_to_async(inner, **kwargs)

    @functools.wraps(fn)
    def closing(*args: Any, **fn_kwargs: Any) -> Any:
        try:
            return fn(*args, **fn_kwargs)
        finally:
            close_old_connections()

    return _channels_database_sync_to_async(closing, **kwargs)


_writer: ThreadPoolExecutor | None = None
_writer_lock = threading.Lock()


def _sqlite_writer() -> ThreadPoolExecutor | None:
    """The process's one thread for moves when the database is SQLite (None otherwise)."""
    global _writer
    if not connections.settings["default"]["ENGINE"].endswith("sqlite3"):
        return None
    with _writer_lock:
        if _writer is None:
            _writer = ThreadPoolExecutor(max_workers=1, thread_name_prefix="sqlite-writer")
        return _writer


def write_sync_to_async(fn: Callable[..., Any]) -> Any:
    """``database_sync_to_async`` for a write made many times a second (a move), not
    thread-sensitive. On PostgreSQL, in the loop's executor, side by side (row locks serialise
    the writers of one row; the pool lends each call its connection). On SQLite every such
    write of the process runs in one thread of its own, which keeps its connection: SQLite
    takes one writer at a time, and writers queued in one thread neither meet SQLite's busy
    handler (which sleeps 1, 2, 5, 10 ms and more between tries for the lock) nor open and
    close a connection per move (about a millisecond of Python each, holding the interpreter).
    A call that raised closes the connection (``close_old_connections``): the next starts on a
    fresh one."""
    executor = _sqlite_writer()
    if executor is None:
        return database_sync_to_async(fn, thread_sensitive=False)

    @functools.wraps(fn)
    def keeping(*args: Any, **fn_kwargs: Any) -> Any:
        try:
            return fn(*args, **fn_kwargs)
        except BaseException:
            close_old_connections()
            raise

    return sync_to_async(keeping, thread_sensitive=False, executor=executor)


def one_or_none(queryset: Any) -> Any:
    """The one row ``queryset`` matches (it filters on a unique column), or None. By ``get()``,
    which orders by nothing: ``first()`` orders by the model's ordering or the primary key,
    and building that ORDER BY is about a third of such a read's CPU (measured: 0.47 ms
    against 0.74 for a result by its client key, SQLite)."""
    try:
        return queryset.get()
    except queryset.model.DoesNotExist:
        return None


def _kept(fn: Callable[..., Any], args: tuple, kwargs: dict) -> Any:
    try:
        return fn(*args, **kwargs)
    except DatabaseError:
        close_old_connections()  # the connection may be broken: the next write opens a fresh one
        raise


def write_sync(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """From a synchronous caller (a view, in its request's thread): ``fn(*args, **kwargs)``, a
    write in a transaction of its own, made where the database takes it best, its result or
    its exception handed back.

    On SQLite, in the process's one writer thread (the moves' too), the caller waiting: SQLite
    takes one writer at a time, and writers in threads of their own meet at ``BEGIN IMMEDIATE``,
    where its busy handler sleeps between tries (1, 2, 5, 10 ms and more); queued in one thread
    they follow each other at once, on a connection kept open. A refusal raised by ``fn``
    (its transaction rolled back) keeps the connection; a database error closes it. Reads
    stay in the caller's thread, side by side (WAL). On PostgreSQL, in the caller's thread:
    writers of different rows go side by side, row locks serialising the rest.

    Inside a transaction already (a test's, a service calling another), ``fn`` runs in it, in
    the caller's thread: another connection could not see what it has not committed."""
    executor = _sqlite_writer()
    if executor is None or connections["default"].in_atomic_block:
        return fn(*args, **kwargs)
    return executor.submit(_kept, fn, args, kwargs).result()
