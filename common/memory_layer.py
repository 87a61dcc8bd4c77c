"""The in-memory channel layer of the embedded defaults, sweeping expired messages once a second.

Channels' ``InMemoryChannelLayer`` sweeps every channel and every group membership for expired
messages at each ``receive`` and ``group_send``. A process holds a channel per open socket, and
every socket waits in ``receive``, so each message handed out costs a scan of all of them: with
1,000 phones, a drive's full update (one fragment per phone) costs the event loop 420 ms of
sweeps, during which no other page hears anything; sweeping at most once a second it costs 16 ms
(`bench/hall.py --tables 250`, docs/benchmarks.md). A message still expires after the layer's
``expiry`` (60 s), at most a second later than it would have. The layer is otherwise channels'
own, used through its public API.
"""

from __future__ import annotations

import time

from channels.layers import InMemoryChannelLayer


class SweepingInMemoryChannelLayer(InMemoryChannelLayer):
    def __init__(self, sweep_every: float = 1.0, **kwargs) -> None:
        super().__init__(**kwargs)
        self.sweep_every = sweep_every  # seconds
        self._next_sweep = 0.0

    def _clean_expired(self) -> None:
        now = time.monotonic()
        if now < self._next_sweep:
            return
        self._next_sweep = now + self.sweep_every
        super()._clean_expired()
