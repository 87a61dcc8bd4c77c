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
from typing import Any, Callable

from channels.db import database_sync_to_async as _channels_database_sync_to_async
from django.db import close_old_connections


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
