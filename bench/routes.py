"""Bench-only routes and instrumentation, served only by the benchmark's own ASGI application
(``bench.asgi``, with ``bench.settings``): never part of the production URLconf.

Used by ``make bench`` (bench/hall.py, bench/digital.py) against a real daphne.

- ``/ws/bench/floor/<group>/<key>/``: a bare consumer that joins ``group`` and forwards, for each
  ``bench.floor`` group message, the part named ``key`` (as a phone socket forwards its own part).
- ``POST /bench/floor``: ``{"group", "parts", "part_bytes", "seq"}``; builds a payload of that
  shape and sends it with ``group_send`` as ``drive.broadcast.send_many`` does (sync view,
  ``async_to_sync``), ``stamp`` = time.time_ns() just before the send. This is the *floor*: what a
  group send of the same size to the same listeners costs through the same server and layer.
- ``POST /bench/write``: ``player``; one write (that player's row) through ``common.db.write_sync``,
  as the application's writes from a view: the floor of bench/entry_burst.py.
- ``GET /bench/log``: what ``drive.live`` did in this process since the last call: ``commits``,
  the time of every change's commit (its ``on_commit`` callback, ``_schedule``, starting right
  after COMMIT), and ``records``, one per ``publish``: when it started (it reads the committed
  state after that), the time spent reading the view and rendering each audience's parts, each
  ``group_send`` (its stamp, payload size, start and end). Recorded by wrapping the functions of
  ``drive.live`` in this process (``install()``); drive/live.py itself is unchanged. And
  ``instructions``: every close's movement-instructions message (its stamp, when it was sent).
"""

from __future__ import annotations

import json
import os
import threading
import time

# --- instrumentation of drive.live -----------------------------------------------------------------

_records: list[dict] = []
_commits: list[dict] = []
_deltas: list[dict] = []  # drive.live.send_result_delta: a table's result message, sent at commit
_instructions: list[dict] = []  # drive.live.send_instructions: a close's movement instructions, sent at commit
_records_lock = threading.Lock()
_local = threading.local()
_installed = False
MAX_RECORDS = 5000


def _current() -> dict | None:
    return getattr(_local, "record", None)


def _timed(name: str, fn):
    def wrapper(*args, **kwargs):
        rec = _current()
        t = time.perf_counter_ns()
        try:
            return fn(*args, **kwargs)
        finally:
            if rec is not None:
                rec["steps"].append([name, (time.perf_counter_ns() - t) / 1e6])

    wrapper.__wrapped__ = fn  # type: ignore[attr-defined]
    return wrapper


def _recorded(fn, into: list[dict], drive_of, table_of=None):
    """``fn`` recording one entry in ``into``: when it ran, in which thread, what it sent (and,
    with ``table_of``, the [hand, table] it was about)."""

    def wrapper(*args):
        rec = {"pid": os.getpid(), "drive": drive_of(*args), "start_ns": time.time_ns(), "steps": [], "sends": [],
               "thread": threading.get_ident()}
        if table_of is not None:
            rec["table"] = table_of(*args)
        _local.record = rec
        try:
            return fn(*args)
        finally:
            _local.record = None
            rec["end_ns"] = time.time_ns()
            with _records_lock:
                if len(into) < MAX_RECORDS:
                    into.append(rec)

    return wrapper


def install() -> None:
    """Wrap drive.live's publish and result messages, its parts builders, its stamp and
    broadcast.send_many (once)."""
    global _installed
    if _installed:
        return
    _installed = True
    from drive import broadcast, live, pages, selectors

    original_stamp = live._stamp
    original_send_many = broadcast.send_many

    def stamp() -> int:
        value = original_stamp()
        rec = _current()
        if rec is not None:
            rec.setdefault("stamps", []).append(value)
        return value

    original_send_result = broadcast.send_result

    def send_many(messages, **kwargs):
        rec = _current()
        t = time.time_ns()
        try:
            return original_send_many(messages, **kwargs)
        finally:
            if rec is not None and not rec.get("in_send_result"):
                done = time.time_ns()
                for group, message in messages:
                    parts = message.get("parts", {}) if isinstance(message, dict) else {}
                    rec["sends"].append({
                        "group": group, "audience": message.get("audience") if isinstance(message, dict) else None,
                        "stamp": message.get("stamp", message.get("commit")), "parts": len(parts),
                        "bytes": (sum(len(v) for v in parts.values() if isinstance(v, str)) if parts
                                  else len(json.dumps(message))),
                        "call_ns": t, "done_ns": done,
                    })

    def send_result(drive_id, message):
        """A result message, to this process's screens directly and (Redis) through the layer:
        recorded as one send of the screens group, as before it went only through the layer."""
        rec = _current()
        t = time.time_ns()
        if rec is not None:
            rec["in_send_result"] = True
        try:
            return original_send_result(drive_id, message)
        finally:
            if rec is not None:
                rec["in_send_result"] = False
                rec["sends"].append({
                    "group": broadcast.drive_group(drive_id, "screens"), "stamp": message.get("commit"), "parts": 0,
                    "keys": None, "bytes": len(json.dumps(message)), "call_ns": t, "done_ns": time.time_ns(),
                })

    original_schedule = getattr(live, "_schedule", None)
    if original_schedule is not None:  # the on_commit callback hands the change to the worker

        def schedule(drive_id: int, *args) -> None:
            tables, _local.tables = getattr(_local, "tables", []), []
            with _records_lock:
                if len(_commits) < MAX_RECORDS:
                    _commits.append({"pid": os.getpid(), "drive": drive_id, "commit_ns": time.time_ns(),
                                     "thread": threading.get_ident(), "tables": tables})
            return original_schedule(drive_id, *args)

        live._schedule = schedule

    original_table_changed = live.table_changed

    def table_changed(table, **kwargs):
        """Names the table in the commit's record (its [hand, table]): its result message is
        read and sent after the commit, in another thread, and found by that name."""
        _local.tables = [*getattr(_local, "tables", []), [table.hand.number, table.number]]
        return original_table_changed(table, **kwargs)

    live.table_changed = table_changed
    # A table's result message goes out after its commit (its _schedule above), in the result-message thread.
    live.send_result_delta = _recorded(live.send_result_delta, _deltas, lambda delta, *_: delta["drive"],
                                       lambda delta, *_: [delta["hand"], delta["table"]])
    original_send_instructions = live.send_instructions

    def send_instructions(message):
        rec = {"pid": os.getpid(), "drive": message["drive"], "stamp": message["stamp"], "start_ns": time.time_ns(),
               "thread": threading.get_ident(), "phones": len(message["instructions"]),
               "bytes": sum(len(v) for v in message["instructions"].values())}
        try:
            return original_send_instructions(message)
        finally:
            rec["end_ns"] = time.time_ns()
            with _records_lock:
                if len(_instructions) < MAX_RECORDS:
                    _instructions.append(rec)

    live.send_instructions = send_instructions
    live.publish = _recorded(live.publish, _records, lambda drive_id: drive_id)
    live._stamp = stamp
    broadcast.send_many = send_many
    broadcast.send_result = send_result
    live.selectors = _SelectorsProxy(selectors)
    for name in ("dashboard_parts", "board_parts", "phone_parts"):  # (drive.live renders through drive.pages)
        setattr(pages, name, _timed(name, getattr(pages, name)))


class _SelectorsProxy:
    """``drive.live.selectors`` with ``drive_view`` timed; everything else passes through."""

    def __init__(self, module):
        self._module = module
        self.drive_view = _timed("drive_view", module.drive_view)

    def __getattr__(self, name):
        return getattr(self._module, name)


# --- the floor -------------------------------------------------------------------------------------


def _consumer():
    from channels.generic.websocket import AsyncJsonWebsocketConsumer

    class FloorConsumer(AsyncJsonWebsocketConsumer):
        async def connect(self):
            kwargs = self.scope["url_route"]["kwargs"]
            self.group, self.key = kwargs["group"], kwargs["key"]
            await self.channel_layer.group_add(self.group, self.channel_name)
            # Its own group too: the floor of "each phone its own fragment in its own group".
            await self.channel_layer.group_add(f"{self.group}.{self.key}", self.channel_name)
            await self.accept()
            await self.send_json({"type": "ready"})

        async def disconnect(self, code):
            await self.channel_layer.group_discard(self.group, self.channel_name)

        async def bench_floor(self, event):
            part = event["parts"].get(self.key)
            if part is None:
                return
            await self.send_json({"type": "floor", "seq": event["seq"], "stamp": event["stamp"], "parts": {"x": part}})

    return FloorConsumer


class EchoGroupConsumer:
    """The floor of bench/digital.py: every frame a socket sends goes by group_send to the group's
    sockets, which forward it: a bare Channels fan-out through the same server and layer as the
    table sockets, with no database."""

    @staticmethod
    def build():
        from channels.generic.websocket import AsyncJsonWebsocketConsumer

        class Echo(AsyncJsonWebsocketConsumer):
            async def connect(self):
                name = "".join(c for c in self.scope["url_route"]["kwargs"]["name"] if c.isalnum() or c in "_.-")[:60]
                self.group = f"bench-{name}"
                await self.channel_layer.group_add(self.group, self.channel_name)
                await self.accept()

            async def disconnect(self, code):
                await self.channel_layer.group_discard(self.group, self.channel_name)

            async def receive_json(self, content, **kwargs):
                await self.channel_layer.group_send(self.group, {"type": "bench.echo", "payload": content})

            async def bench_echo(self, event):
                await self.send_json(event["payload"])

        return Echo


def websocket_urlpatterns() -> list:
    from django.urls import re_path

    install()
    return [
        re_path(r"^ws/bench/floor/(?P<group>[A-Za-z0-9_.-]{1,80})/(?P<key>[A-Za-z0-9_-]{1,40})/$", _consumer().as_asgi()),
        re_path(r"^ws/bench/echo-group/(?P<name>[^/]+)/$", EchoGroupConsumer.build().as_asgi()),
    ]


def floor_view(request):
    from asgiref.sync import async_to_sync
    from channels.layers import get_channel_layer
    from django.http import HttpResponseNotAllowed, JsonResponse

    if request.method != "POST":
        return HttpResponseNotAllowed(["POST"])
    body = json.loads(request.body or b"{}")
    group = str(body["group"])[:80]
    n = max(1, min(int(body.get("parts", 1)), 5000))
    size = max(1, min(int(body.get("part_bytes", 100)), 1_000_000))
    keys = body.get("keys") or [str(i) for i in range(n)]
    parts = {str(k): "x" * size for k in keys[:n]}
    stamp = time.time_ns()
    seq = int(body.get("seq", 0))
    if body.get("per_key"):  # one small message per listener's own group, as drive.live sends the phones
        from common import layer

        layer.send_many([(f"{group}.{k}", {"type": "bench.floor", "seq": seq, "stamp": stamp, "parts": {k: v}})
                         for k, v in parts.items()])
    else:
        async_to_sync(get_channel_layer().group_send)(
            group, {"type": "bench.floor", "seq": seq, "stamp": stamp, "parts": parts}
        )
    return JsonResponse({"stamp": stamp, "done_ns": time.time_ns(), "pid": os.getpid()})


def write_view(request):
    """The floor of bench/entry_burst.py: one write (a player's row), through the path the
    application's writes from a view take (``common.db.write_sync``)."""
    from django.db import transaction
    from django.http import HttpResponseNotAllowed, JsonResponse
    from django.utils import timezone

    from common.db import write_sync
    from drive.models import Player

    if request.method != "POST":
        return HttpResponseNotAllowed(["POST"])

    @transaction.atomic
    def write(pk: int) -> int:
        return Player.objects.filter(pk=pk).update(phone_joined_at=timezone.now())

    written = write_sync(write, int(request.POST.get("player", 0)))
    return JsonResponse({"ok": True, "written": written})


def log_view(request):
    from django.http import JsonResponse

    with _records_lock:
        records, commits, deltas, instructions = list(_records), list(_commits), list(_deltas), list(_instructions)
        _instructions.clear()
        _records.clear()
        _commits.clear()
        _deltas.clear()
    return JsonResponse({"pid": os.getpid(), "records": records, "commits": commits, "deltas": deltas,
                         "instructions": instructions})


def urlpatterns() -> list:
    from django.urls import path
    from django.views.decorators.csrf import csrf_exempt

    install()
    return [path("bench/floor", csrf_exempt(floor_view)), path("bench/write", csrf_exempt(write_view)),
            path("bench/log", log_view)]
