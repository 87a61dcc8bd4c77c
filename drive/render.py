"""The live updates' builds run in a separate process of the server (``LIVE_RENDER_PROCESS``).

A full update reads the drive and renders the board, the dashboard and every phone: 50-150 ms
of Python at 50 tables. In the server's own process that work holds the interpreter (the GIL)
while the event loop is trying to deliver a result's message or a digital action, and those
wait. In a child process it runs beside them (on another core when there is one); the server
only sends what comes back. The child is started with the server (``start``, from asgi.py),
set up like it (same settings, same database, its own connections), and runs one build at a
time, so its record of what each phone was last sent (``drive.live._changed_only``) stays one.

If the child cannot be used (it died, or a build takes over a minute), the build runs in the
server's own thread instead, and a new child is started for the next one. Tests build in the
committing thread (``LIVE_UPDATES_INLINE``) and never start a child.
"""

from __future__ import annotations

import logging
import multiprocessing
import os
import threading
import time
from concurrent.futures import ProcessPoolExecutor, TimeoutError
from concurrent.futures.process import BrokenProcessPool
from typing import Any, Callable, Iterator

from django.conf import settings

log = logging.getLogger(__name__)
TIMEOUT = 60.0
NICE = 10

_pool: ProcessPoolExecutor | None = None
_lock = threading.Lock()


def enabled() -> bool:
    return bool(getattr(settings, "LIVE_RENDER_PROCESS", False)) and not getattr(settings, "LIVE_UPDATES_INLINE", False)


def _watch_parent(parent_pid: int) -> None:
    """The child ends when its server does, even a server killed with SIGKILL."""
    while os.getppid() == parent_pid:
        time.sleep(0.5)
    os._exit(0)


def _setup_child(database_name: str, parent_pid: int) -> None:
    import django

    threading.Thread(target=_watch_parent, args=(parent_pid,), name="watch-server", daemon=True).start()
    try:
        os.nice(NICE)  # background work: on a busy machine the server's sockets get the cores first
    except OSError:
        pass

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    django.setup()
    from django.conf import settings as child_settings

    child_settings.DATABASES["default"]["NAME"] = database_name  # the server's, even if set at run time


def _ready() -> bool:
    return True


def _in_child(fn: Callable[..., Any], *args: Any) -> Any:
    from django.db import connection

    try:
        return fn(*args)
    finally:
        connection.close()  # back to the pool / the SQLite file between builds


def _get_pool() -> ProcessPoolExecutor:
    global _pool
    with _lock:
        if _pool is None:
            # spawn: a fresh interpreter, not a fork of a server with threads and sockets open
            _pool = ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("spawn"),
                                        initializer=_setup_child,
                                        initargs=(str(settings.DATABASES["default"]["NAME"]), os.getpid()))
        return _pool


def start() -> bool:
    """Start the child now (the first update then finds it ready); False when not enabled."""
    if not enabled():
        return False
    _get_pool().submit(_ready)
    return True


# Called before a build runs in the server's own thread instead of the child (drive.live
# forgets what it remembers of earlier fallbacks: the child has sent newer things since).
on_fallback: list[Callable[[], None]] = []


def _discard(pool: ProcessPoolExecutor) -> None:
    global _pool
    with _lock:
        if _pool is pool:
            _pool = None
    processes = list((getattr(pool, "_processes", None) or {}).values())
    pool.shutdown(wait=False, cancel_futures=True)
    for process in processes:  # a hung child must not keep running (and holding a connection)
        if process.is_alive():
            process.terminate()


def stop() -> None:
    """End the render process, if one runs (the next build starts a new one): a clean
    shutdown, and tests that need a child that has sent nothing yet."""
    with _lock:
        pool = _pool
    if pool is not None:
        _discard(pool)


def run(fn: Callable[..., Any], *args: Any) -> Any:
    """``fn(*args)`` in the render process if enabled (``fn`` must be importable), else here."""
    return next(run_in_order([(fn, *args)]))


def run_in_order(calls: list[tuple]) -> Iterator[Any]:
    """The results of ``[(fn, *args), …]`` in order, each yielded as soon as it is ready: in
    the render process the later calls are already running while the caller handles the
    earlier results. A call the child cannot answer runs here instead."""
    if not enabled():
        for fn, *args in calls:
            yield fn(*args)
        return
    pool = _get_pool()
    try:
        futures = [pool.submit(_in_child, fn, *args) for fn, *args in calls]
    except RuntimeError:  # the pool broke or was shut down: a new one next time
        log.warning("the render process is gone; building this update in the server", exc_info=True)
        _discard(pool)
        futures = [None] * len(calls)
    fell_back = False
    for (fn, *args), future in zip(calls, futures):
        if future is not None and not fell_back:
            try:
                yield future.result(timeout=TIMEOUT)
                continue
            except (BrokenProcessPool, TimeoutError):
                log.warning("the render process failed; building this update in the server", exc_info=True)
                _discard(pool)
        if not fell_back:  # from here on everything is built in this process
            fell_back = True
            for hook in on_fallback:
                hook()
        yield fn(*args)
