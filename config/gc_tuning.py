"""The garbage collector of a server process, set for short pauses.

Everything loaded at startup (Django, the templates, the URL and game tables) lives as long as
the process, yet a full collection walks through all of it: a pause of milliseconds for every
socket of the process, which showed as the tail of the digital benchmark (docs/benchmarks.md).
Frozen after startup, those objects are out of the collector's sight; and young collections
run after 50,000 new objects instead of 700, so fewer of them interrupt a move's trip. The
collector still runs: cyclic garbage is collected, only in larger, rarer batches.
"""

from __future__ import annotations

import gc

YOUNG = 50_000  # new container objects between two young collections (Python's default: 700)
OLDER = (20, 20)  # young collections per middle one, middle ones per full one (default: 10, 10)


def apply() -> None:
    """Called once the application is loaded (config.asgi)."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(YOUNG, *OLDER)
