"""Websocket listeners in a process of their own (bench/hall.py's 200 phones).

The phones and the screens are separate devices in a hall. In one client process the phones'
frames (200 of each full update) held that process's event loop for up to 20 ms at a time, and
a board's result message that arrived meanwhile was stamped late: the client's own load, not
the server's delay. So the phones listen here, in a child process, and the screens, whose
times the hall measures, in the benchmark's own.

    child = ListenerProcess([{"name": ..., "url": ..., "cookies": {...}, "mark": ...}, ...])
    errors = await child.start()          # every listener connected (or its error)
    await child.refresh()                 # each proxy's by_stamp / marked / error brought up to date
    await child.close()

The proxies (``child.proxies``) have the ``name``, ``by_stamp``, ``marked`` and ``error`` of a
``common.Listener`` (what ``first_recv`` reads). Receive times are ``time.time_ns()``, the same
clock as the servers' and the parent's. Bounded: every wait has a time limit; only 127.0.0.1.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import time
from types import SimpleNamespace

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from bench import common  # noqa: E402

LINE_LIMIT = 1 << 27  # bytes: one line of events


class ListenerProcess:
    def __init__(self, specs: list[dict]) -> None:
        self.specs = specs
        self.proxies = [SimpleNamespace(name=s["name"], by_stamp={}, marked={}, error=None) for s in specs]
        self._by_name = {p.name: p for p in self.proxies}
        self.proc: asyncio.subprocess.Process | None = None
        self._lock = asyncio.Lock()

    async def _ask(self, command: str, timeout: float = 60) -> dict:
        async with self._lock:
            assert self.proc is not None and self.proc.stdin is not None and self.proc.stdout is not None
            self.proc.stdin.write(command.encode() + b"\n")
            await self.proc.stdin.drain()
            line = await asyncio.wait_for(self.proc.stdout.readline(), timeout)
        if not line:
            raise RuntimeError(f"the listeners' process ended (exit {self.proc.returncode})")
        return json.loads(line)

    async def start(self, timeout: float = 180) -> list[str]:
        self.proc = await asyncio.create_subprocess_exec(
            sys.executable, os.path.abspath(__file__), stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
            limit=LINE_LIMIT,
        )
        return (await self._ask(json.dumps(self.specs), timeout))["errors"]

    async def refresh(self) -> None:
        answer = await self._ask("events")
        for name, kind, stamp, at in answer["events"]:
            (self._by_name[name].by_stamp if kind == "s" else self._by_name[name].marked).setdefault(stamp, at)
        for name, error in answer["errors"].items():
            self._by_name[name].error = error

    async def close(self) -> None:
        if self.proc is None or self.proc.returncode is not None:
            return
        try:
            await self._ask("close", timeout=30)
        except Exception:
            pass
        try:
            await asyncio.wait_for(self.proc.wait(), 10)
        except asyncio.TimeoutError:
            self.proc.kill()
            await self.proc.wait()


# --- the child ------------------------------------------------------------------------------------


class _Recorded(common.Listener):
    """A listener that keeps only what the parent asks for: each stamp's first receive time,
    and that of a frame with the mark, as events to hand over."""

    events: list = []

    def _record(self, now: int, raw: str) -> None:
        stamp = json.loads(raw).get("stamp")
        if stamp is None:
            return
        if stamp not in self.by_stamp:
            self.by_stamp[stamp] = now
            self.events.append((self.name, "s", stamp, now))
        if self.mark and self.mark in raw and stamp not in self.marked:
            self.marked[stamp] = now
            self.events.append((self.name, "m", stamp, now))


async def _child() -> None:
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=LINE_LIMIT, loop=loop)
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader, loop=loop), sys.stdin)
    out = sys.stdout.buffer

    def answer(data: dict) -> None:
        out.write(json.dumps(data).encode() + b"\n")
        out.flush()

    specs = json.loads(await reader.readline())
    events: list = []
    _Recorded.events = events
    listeners = [_Recorded(s["name"], s["url"], s.get("cookies"), mark=s.get("mark")) for s in specs]
    answer({"errors": await common.connect_all(listeners)})
    deadline = time.monotonic() + 3600
    while time.monotonic() < deadline:
        command = (await reader.readline()).strip()
        if command == b"events":
            handed, events[:] = list(events), []
            answer({"events": handed, "errors": {lst.name: lst.error for lst in listeners if lst.error}})
        else:  # "close", or the parent went (end of input)
            await asyncio.gather(*(lst.close() for lst in listeners))
            if command:
                answer({"closed": True})
            return


if __name__ == "__main__":
    asyncio.run(_child())
