"""Tries a minute per client address (joining a drive, opening a private link, signing in,
asking for a drive's code that no drive has): counted in Django's cache, per server process.
And turns: one at a time, a few in line (checking a password); and token buckets (a phone's
syncs of its game screen)."""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Iterator

from django.core.cache import cache
from django.utils import timezone


def client_address(asker) -> str:
    """The address of a request (its ``REMOTE_ADDR``) or of a websocket (its scope's client)."""
    if isinstance(asker, dict):
        client = asker.get("client")
        return str(client[0]) if client else "?"
    return asker.META.get("REMOTE_ADDR", "?")


def _tries(asker, what: str) -> tuple[str, float]:
    """The cache key of this minute's tries of ``what`` from this address, and the tries of the
    sliding minute: the last minute's count, weighed by how much of it is still within a minute,
    added to this one's, so a burst across the turn of a minute is not let through twice."""
    now = timezone.now().timestamp()
    minute = int(now // 60)
    prefix = f"rate:{what}:{client_address(asker)}:"
    key = f"{prefix}{minute}"
    return key, cache.get(key, 0) + cache.get(f"{prefix}{minute - 1}", 0) * (1 - (now % 60) / 60)


def over_limit(asker, what: str, limit: int) -> bool:
    """Whether this address has had its ``limit`` tries of ``what`` this sliding minute; nothing
    counted."""
    return _tries(asker, what)[1] >= limit


def spend_try(request, what: str, limit: int) -> str | None:
    """One try of ``what`` from this address (a request's, or a websocket scope's), at most
    ``limit`` a minute (per server process), over a sliding minute (``_tries``). Counted, the
    cache key it was counted under (for ``give_back``); over the limit, None, and nothing
    counted."""
    key, tries = _tries(request, what)
    if tries >= limit:
        return None
    try:
        cache.incr(key)
    except ValueError:
        cache.set(key, 1, 130)
    return key


def give_back(key: str) -> None:
    """A try counted by ``spend_try`` that was not one after all, given back to the minute it
    was counted in (not the present one: the minute may have turned meanwhile)."""
    try:
        cache.decr(key)
    except ValueError:  # gone from the cache meanwhile: nothing left to give back to
        pass


class Turns:
    """One thread at a time does the work, the others wait their turn, at most ``most`` in all
    (the one at work and those waiting); one more is refused at once, unless it is ``always``
    let in. Counted in the threads themselves: a request whose client went away still holds its
    place until its thread has finished the work."""

    def __init__(self, most: int):
        self.most = most
        self._in = 0
        self._count = threading.Lock()
        self._turn = threading.Lock()

    @property
    def in_line(self) -> int:
        """At work or waiting now."""
        return self._in

    @contextlib.contextmanager
    def turn(self, *, always: bool = False) -> Iterator[bool]:
        """True once it is this thread's turn (held until the block ends); False at once when
        ``most`` are in line already."""
        with self._count:
            admitted = always or self._in < self.most
            if admitted:
                self._in += 1
        if not admitted:
            yield False
            return
        try:
            with self._turn:
                yield True
        finally:
            with self._count:
                self._in -= 1


class Bucket:
    """A token bucket: ``burst`` tries at once, then ``rate`` a second (the caller gives both, at
    each try, so that a test may change them)."""

    __slots__ = ("tokens", "at")

    def __init__(self, burst: float) -> None:
        self.tokens, self.at = float(burst), time.monotonic()

    def refill(self, burst: float, rate: float) -> float:
        now = time.monotonic()
        self.tokens, self.at = min(burst, self.tokens + (now - self.at) * rate), now
        return self.tokens

    def take(self, burst: float, rate: float, *, spend: bool = True) -> bool:
        """Whether a try is allowed now (one token left); ``spend``: it takes the token."""
        if self.refill(burst, rate) < 1:
            return False
        if spend:
            self.tokens -= 1
        return True

    def spend(self) -> None:
        """A try that costs a token after the fact (without a check)."""
        self.tokens = max(0.0, self.tokens - 1)
