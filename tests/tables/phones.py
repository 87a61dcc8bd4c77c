"""Phones for consumer tests: a WebsocketCommunicator with the player's cookie, and waits."""

from __future__ import annotations

import asyncio
import re
import time
import uuid

import pytest

from channels.testing import WebsocketCommunicator

from config.asgi import application
from tests.view_strings import strings_in

ORIGIN = (b"origin", b"http://localhost")


def phone(drive, player=None, path: str | None = None, extra_headers=()) -> WebsocketCommunicator:
    headers = [ORIGIN, *extra_headers]
    if player is not None:
        headers.append((b"cookie", f"ff_{drive.join_code}={player.token}".encode()))
    return WebsocketCommunicator(application, path or f"/ws/play/{drive.join_code}/", headers=headers)


async def connected(drive, player) -> tuple[WebsocketCommunicator, dict]:
    """A phone that has connected and received its first view."""
    socket = phone(drive, player)
    ok, _ = await socket.connect()
    assert ok
    first = await socket.receive_json_from(timeout=30)
    return socket, first


async def until(socket: WebsocketCommunicator, predicate, timeout: float = 30, seen: list | None = None) -> dict:
    """Receive frames until one matches ``predicate``; every frame is also appended to ``seen``."""
    while True:
        frame = await socket.receive_json_from(timeout=timeout)
        if seen is not None:
            seen.append(frame)
        if predicate(frame):
            return frame


def at_version(version: int):
    return lambda f: f.get("type") == "state" and f["view"]["version"] >= version


def action(kind: str, version: int, **fields) -> dict:
    return {"type": kind, **fields, "version": version, "key": str(uuid.uuid4())}


CODE = re.compile(r"(?<![\w-])(\d{1,2}-[1-4]|J)(?![\w-])")
PUBLIC = {"dealer_draw"}


def codes_in(frame) -> set[str]:
    """Every card code anywhere in a frame (also inside messages), except the public dealer draw."""
    return {code for text in strings_in(frame, PUBLIC) for code in CODE.findall(text)}


def eventually(condition, what: str, timeout: float = 30):
    """Wait until ``condition()`` holds (it normally does within milliseconds)."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            pytest.fail(f"timed out waiting: {what}")
        time.sleep(0.02)


async def eventually_async(condition, what: str, timeout: float = 30):
    """As ``eventually``, on the event loop; ``condition`` may be a coroutine function."""
    deadline = asyncio.get_running_loop().time() + timeout
    while True:
        held = condition()
        if asyncio.iscoroutine(held):
            held = await held
        if held:
            return
        if asyncio.get_running_loop().time() > deadline:
            pytest.fail(f"timed out waiting: {what}")
        await asyncio.sleep(0.02)
