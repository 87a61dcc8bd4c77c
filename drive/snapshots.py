"""What a live socket is shown the moment it connects, read once for many sockets.

Every socket of a drive (a phone, the board, the dashboard) gets the drive's current state when
it connects (``drive.consumers.LiveConsumer``): the drive read and rendered as the full update
does. Reading a drive of 200 players takes 70-140 ms; rendering one phone's fragment from that
read 3-6 ms. When the sockets come all at once, as after a server restart, Redis coming back,
or the hall's Wi-Fi returning, each reading for itself made 200 phones cost the server about
16 s of work before the last one was shown anything, while the tables' results and digital
moves waited behind it.

So the sockets of one process connecting to one drive share a read: one read of a drive runs
at a time; the sockets that connect while it runs wait for the next, which reads the drive once
and renders each of their fragments (one thread does both: a drive's view is never rendered
by two threads at once). Nothing is missed: a socket joins its groups before it asks, and the
read it gets begins after that, so what committed before it joined is in the read, and what
commits after reaches it as an update.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any

from common import layer
from common.db import database_sync_to_async
from drive import live, pages, selectors
from drive.models import Drive


@dataclass
class _Batch:
    """The sockets waiting for one read: the players whose fragments it renders, and the
    screens ("board", "organiser")."""

    future: asyncio.Future
    players: set[int] = field(default_factory=set)
    screens: set[str] = field(default_factory=set)


# Per event loop and drive: the read not begun yet (sockets join it) and the one running.
_waiting: dict[tuple[asyncio.AbstractEventLoop, int], _Batch] = {}
_running: dict[tuple[asyncio.AbstractEventLoop, int], asyncio.Future] = {}


async def on_connect(drive_id: int, audience: str, player_id: int | None = None) -> dict[str, Any]:
    """The ``drive.update`` message for a socket that has just joined its groups: ``audience``
    "phone" (its player's fragment), "board" or "organiser"."""
    loop = asyncio.get_running_loop()
    key = (loop, drive_id)
    batch = _waiting.get(key)
    if batch is None:
        batch = _waiting[key] = _Batch(loop.create_future())
        # Retrieved by this task even if every socket waiting for it has gone meanwhile.
        batch.future.add_done_callback(lambda f: f.cancelled() or f.exception())
        layer.start_task(_read_when_free(key, batch))
    if audience == "phone":
        batch.players.add(player_id)
    else:
        batch.screens.add(audience)
    messages = await asyncio.shield(batch.future)
    return messages[player_id if audience == "phone" else audience]


def idle() -> bool:
    """No read waiting or running, in any loop: once every socket has had its snapshot, nothing
    is left behind (tests)."""
    return not _waiting and not _running


async def _read_when_free(key: tuple[asyncio.AbstractEventLoop, int], batch: _Batch) -> None:
    while (running := _running.get(key)) is not None:
        await asyncio.wait([running])
    del _waiting[key]  # from now on, a socket that connects waits for the next read
    _running[key] = batch.future
    try:
        # In the loop's executor, not the process's one thread of thread-sensitive calls (where
        # every socket's sign-in check runs: those go on while a read runs).
        messages = await database_sync_to_async(read, thread_sensitive=False)(
            key[1], frozenset(batch.players), frozenset(batch.screens))
    except asyncio.CancelledError:  # the server is stopping
        batch.future.cancel()
        raise
    except Exception as exc:  # each waiting socket fails as it would have on its own read
        batch.future.set_exception(exc)
    else:
        batch.future.set_result(messages)
    finally:
        del _running[key]


def read(drive_id: int, players: frozenset[int], screens: frozenset[str]) -> dict[Any, dict[str, Any]]:
    """One read of the drive, and the messages of the sockets waiting for it: by player id for
    phones (a player the drive no longer lists gets an empty fragment), by audience for the
    screens."""
    stamp = live._stamp()  # before the read: every commit before it is in what it shows
    drive = Drive.objects.get(pk=drive_id)
    messages: dict[Any, dict[str, Any]] = {}
    if "organiser" in screens:
        messages["organiser"] = live.message(pages.dashboard_parts(selectors.drive_view(drive)), "organiser", stamp)
    if players or "board" in screens:
        view = selectors.drive_view(drive, public=True)
        if "board" in screens:
            messages["board"] = live.message(pages.board_parts(view), "board", stamp)
        if players:
            parts = pages.phone_parts(view, [p for p in view.players if p.pk in players])
            for pid in players:
                messages[pid] = live.message({"phone": parts.get(str(pid), "")}, "phone", stamp)
    return messages
