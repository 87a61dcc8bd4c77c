"""Which gate a request waits at (config/http_handler.py): a view marked ``beside_the_pages``
takes no place among the pages' ``REQUEST_THREADS`` but waits at a gate of its own, one at a
time. For the organiser's long reads (a print of every score card, a CSV of every hand): seconds
of Python for a big drive, during which every phone's page waited behind them in the one place
SQLite gives the pages (a board 23 s behind the score cards of 400 players and 60 hands, found
by probing). Beside the pages they share the interpreter with them instead: a page takes longer
while one runs, never seconds longer."""

from __future__ import annotations

from collections.abc import Callable

from django.urls import resolve

MARK = "beside_the_pages"


def beside_the_pages(view: Callable) -> Callable:
    """Mark ``view`` (outermost decorator, or any: ``functools.wraps`` carries the mark)."""
    setattr(view, MARK, True)
    return view


def is_beside_the_pages(request) -> bool:
    """Whether ``request`` is a GET or HEAD of a view so marked (its URL resolved, before any
    middleware, by the project's URLconf: ~0.05 ms). Whatever cannot be resolved is a page:
    Django answers it, as it would any."""
    if request.method not in ("GET", "HEAD"):
        return False
    try:
        match = resolve(request.path_info)
    except Exception:  # (a 404, or a path the resolver chokes on: Django's handler says so)
        return False
    return getattr(match.func, MARK, False)
