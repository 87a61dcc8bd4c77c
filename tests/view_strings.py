"""Every string in what a game or a socket sends (a view, a frame): what the tests of who sees
which card read, each with its own card codes."""

from __future__ import annotations

from collections.abc import Iterator


def strings_in(obj, skip=()) -> Iterator[str]:
    """Every string anywhere in ``obj`` (dicts' values and lists', nested), but under the keys
    in ``skip``."""
    if isinstance(obj, dict):
        for k, v in obj.items():
            if k not in skip:
                yield from strings_in(v, skip)
    elif isinstance(obj, list):
        for v in obj:
            yield from strings_in(v, skip)
    elif isinstance(obj, str):
        yield obj
