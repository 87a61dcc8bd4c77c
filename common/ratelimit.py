"""Tries a minute per client address (joining a drive, opening a private link, signing in):
counted in Django's cache, per server process."""

from __future__ import annotations

from django.core.cache import cache
from django.utils import timezone


def _client_ip(request) -> str:
    return request.META.get("REMOTE_ADDR", "?")


def spend_try(request, what: str, limit: int) -> str | None:
    """One try of ``what`` from this address, at most ``limit`` a minute (per server process),
    over a sliding minute: the last minute's count, weighed by how much of it is still within a
    minute, adds to this one's, so a burst across the turn of a minute is not let through twice.
    Counted, the cache key it was counted under (for ``give_back``); over the limit, None, and
    nothing counted."""
    now = timezone.now().timestamp()
    minute = int(now // 60)
    prefix = f"rate:{what}:{_client_ip(request)}:"
    key = f"{prefix}{minute}"
    count = cache.get_or_set(key, 0, 130)
    before = cache.get(f"{prefix}{minute - 1}", 0)
    if count + before * (1 - (now % 60) / 60) >= limit:
        return None
    try:
        cache.incr(key)
    except ValueError:
        cache.set(key, 1, 130)
    return key


def rate_limited(request, what: str, limit: int) -> bool:
    """Over the limit (nothing counted), or one more try counted: see ``spend_try``."""
    return spend_try(request, what, limit) is None


def give_back(key: str) -> None:
    """A try counted by ``spend_try`` that was not one after all, given back to the minute it
    was counted in (not the present one: the minute may have turned meanwhile)."""
    try:
        cache.decr(key)
    except ValueError:  # gone from the cache meanwhile: nothing left to give back to
        pass
