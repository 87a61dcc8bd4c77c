"""Two daphne processes on one PostgreSQL database and one Redis: a change made through one
process reaches the sockets connected to the other (docs/operations.md, "Several processes").

Runs only where DATABASE_URL is PostgreSQL and REDIS_URL is set. It creates a throwaway database
on DATABASE_URL's server (dropped afterwards), migrates it with ``manage.py migrate``, and uses
its own channel prefix on REDIS_URL's database, so it never touches other data.
"""

from __future__ import annotations

import asyncio
import json
import os
import secrets
import subprocess
import sys
import uuid

import pytest

from bench import common
from tests.factories import shown_on

pytestmark = [pytest.mark.postgres, pytest.mark.redis]

SETUP = """
import json, random
from django.contrib.auth import get_user_model
from drive import services
from drive.models import Drive
user = get_user_model().objects.create_user("mp-organiser", password="mp-password-12345")
drive = Drive.objects.create(organiser=user, name="Two servers", target="hands", target_hands=5,
                             preferred_table_size=4)
services.add_players(drive, ["Ann", "Bob", "Cat", "Dan"])
services.draw_seating(drive, random.Random(3))
services.start_hand(drive)
table = drive.hands.get(number=1).tables.get()
tokens = [s.player.token for s in table.seats.select_related("player").order_by("position")]
print("SETUP" + json.dumps({"code": drive.join_code, "cookie": "ff_" + drive.join_code, "tokens": tokens}))
"""


@pytest.fixture(scope="module")
def two_servers():
    admin_url = os.environ["DATABASE_URL"]
    redis_url = common.with_socket_timeout(os.environ["REDIS_URL"])
    db = common.ThrowawayDatabase(admin_url, prefix="test_two_servers")
    servers = None
    try:
        env = common.server_env(db.url, db.tmp, redis_url, DJANGO_SETTINGS_MODULE="config.settings", DEBUG="1",
                                CHANNEL_PREFIX=f"mp{secrets.token_hex(4)}")
        manage = [sys.executable, str(common.ROOT / "manage.py")]
        subprocess.run([*manage, "migrate", "-v0"], env=env, cwd=common.ROOT, check=True, timeout=180)
        out = subprocess.run([*manage, "shell", "-c", SETUP], env=env, cwd=common.ROOT, check=True, timeout=60,
                             capture_output=True, text=True).stdout
        data = json.loads(out.split("SETUP", 1)[1])
        servers = common.Servers(2, env, db.tmp)
        yield servers, data, env
    finally:
        if servers is not None:
            servers.stop()
        db.drop()


def _form(players: int, declarer: int, page: str) -> dict:
    """An entry form's answers, with what its ``page`` says it was shown for."""
    data = {"client_key": uuid.uuid4().hex, "seen_revision": "0", **shown_on(page), "declarer": str(declarer),
            "nine_card": "False", "dealer": "0"}
    for i in range(players):
        data[f"seat{i}_sets"] = "0"
        data[f"seat{i}_ice"] = "none"
    return data


async def _first(listener: common.Listener, predicate, after: int, timeout: float = 15) -> dict | None:
    """The first frame received after the first ``after`` frames that satisfies ``predicate``."""
    def found():
        return next((m for _t, m in listener.received[after:] if predicate(m)), None)

    await common.wait_until(lambda: found() is not None, timeout, step=0.05)
    return found()


async def test_a_result_sent_to_one_process_reaches_a_board_on_the_other(two_servers):
    servers, data, _env = two_servers
    a, b = servers.urls
    code, cookie, tokens = data["code"], data["cookie"], data["tokens"]
    assert a != b
    # The board and the second player's phone are connected to process B...
    board = common.Listener("board", common.ws_url(b, f"/ws/drive/{code}/board/"))
    mate = common.Listener("mate", common.ws_url(b, f"/ws/drive/{code}/phone/"), {cookie: tokens[1]})
    try:
        assert await common.connect_all([board, mate]) == []
        assert "0 of 1 table done" in board.received[0][1]["parts"]["board"]
        seen_board, seen_mate = len(board.received), len(mate.received)

        # ... the first player sends the table's result through process A, like a phone.
        enterer = common.Browser({cookie: tokens[0]})
        status, page = await asyncio.to_thread(enterer.request, "GET", a, f"/{code}/enter")
        assert status == 200 and "csrftoken" in enterer.cookies
        status, body = await asyncio.to_thread(enterer.request, "POST", a, f"/{code}/enter", _form(4, 0, page.decode()),
                                               "application/json")
        assert status == 200 and json.loads(body)["ok"], body

        # B's phone of a tablemate shows the entry to confirm; B's board gets the update.
        msg = await _first(mate, lambda m: "waiting for confirmation" in m.get("parts", {}).get("phone", ""), seen_mate)
        assert msg is not None, "process B's phone never received the result entered through process A"
        assert await _first(board, lambda m: m.get("type") == "update", seen_board) is not None
        seen_board = len(board.received)

        # The tablemate confirms through process A: B's board shows the table done.
        confirmer = common.Browser({cookie: tokens[1]})
        status, page = await asyncio.to_thread(confirmer.request, "GET", a, f"/{code}/me")
        assert status == 200
        status, _ = await asyncio.to_thread(confirmer.request, "POST", a, f"/{code}/confirm",
                                          {"seen_revision": "1", **shown_on(page.decode())})
        assert status == 302
        msg = await _first(board, lambda m: "1 of 1 table done" in m.get("parts", {}).get("board", ""), seen_board)
        assert msg is not None, "process B's board never showed the result confirmed through process A"
        assert board.error is None and mate.error is None
    finally:
        await asyncio.gather(board.close(), mate.close())


DIGITAL_SETUP = """
import json, random
from django.contrib.auth import get_user_model
from drive import services
from drive.models import Drive
user = get_user_model().objects.get(username="mp-organiser")
drive = Drive.objects.create(organiser=user, name="Digital on two servers", play_mode="digital",
                             preferred_table_size=4)
services.add_players(drive, ["Eve", "Fay", "Gil", "Hal"])
services.draw_seating(drive, random.Random(5))
services.start_hand(drive)
table = drive.hands.get(number=1).tables.get()
tokens = [s.player.token for s in table.seats.select_related("player").order_by("position")]
print("SETUP" + json.dumps({"code": drive.join_code, "cookie": "ff_" + drive.join_code, "tokens": tokens,
                            "table": table.pk}))
"""

STATE = """
import json
from tables.models import TableHand
t = TableHand.objects.get(pk=%d)
print("STATE" + json.dumps({"version": t.version, "state": t.state}))
"""


def _shell(env, code: str, marker: str) -> dict:
    out = subprocess.run([sys.executable, str(common.ROOT / "manage.py"), "shell", "-c", code], env=env,
                         cwd=common.ROOT, check=True, timeout=60, capture_output=True, text=True).stdout
    return json.loads(out.split(marker, 1)[1])


async def _frame(ws, types: set[str], timeout: float = 10) -> dict:
    while True:
        message = json.loads(await asyncio.wait_for(ws.recv(), timeout))
        if message.get("type") in types:
            return message


async def _latest_view(ws, view: dict) -> dict:
    """Drain what has arrived, then ask for the current view; keep the newest one seen."""
    await ws.send(json.dumps({"type": "sync"}))
    while True:
        message = await _frame(ws, {"state", "ok", "error"})
        if message["type"] == "state" and message["view"]["version"] >= view["version"]:
            view = message["view"]
            try:
                more = json.loads(await asyncio.wait_for(ws.recv(), 0.3))
            except asyncio.TimeoutError:
                return view
            if more.get("type") == "state" and more["view"]["version"] >= view["version"]:
                view = more["view"]
            return view


async def test_digital_actions_through_both_processes_never_interleave(two_servers):
    import websockets

    from games import get_game
    from games.film_fantasy import cards_in_play

    servers, _data, env = two_servers
    a, b = servers.urls
    data = await asyncio.to_thread(_shell, env, DIGITAL_SETUP, "SETUP")
    code, cookie, tokens = data["code"], data["cookie"], data["tokens"]
    urls = [a, b, a, b]  # the four seats alternate between the two processes
    sockets = []
    try:
        for seat, url in enumerate(urls):
            sockets.append(await websockets.connect(
                common.ws_url(url, f"/ws/play/{code}/"),
                additional_headers={"Cookie": f"{cookie}={tokens[seat]}", "Origin": url},
            ))
        views = [(await _frame(ws, {"state"}))["view"] for ws in sockets]
        start = views[0]["version"]
        accepted = 0
        for round_ in range(8):  # every seat chooses (or changes) its pass at once, from both servers
            async def act(seat: int) -> dict | None:
                view = views[seat]
                if view["phase"] != "passing":
                    return None
                card = view["hand"][round_ % len(view["hand"])]
                await sockets[seat].send(json.dumps({"type": "pass", "card": card, "version": view["version"],
                                                     "basis": view["basis"], "key": uuid.uuid4().hex}))
                return await _frame(sockets[seat], {"ok", "error"})

            replies = await asyncio.gather(*(act(seat) for seat in range(4)))
            accepted += sum(1 for r in replies if r and r["type"] == "ok")
            views = [await _latest_view(ws, view) for ws, view in zip(sockets, views)]
        assert accepted >= 8, "too few actions were accepted to prove anything"
        final = await asyncio.to_thread(_shell, env, STATE % data["table"], "STATE")
        # Every accepted action added exactly one version: none was lost or applied twice...
        assert final["version"] == start + accepted
        # ...and the stored hand is whole: every card of the pack is somewhere, once.
        hand = get_game("film-fantasy").load_hand(final["state"])
        held = [c for h in hand.hands for c in h] + list(hand.stack) + list(hand.odd)
        assert len(held) == cards_in_play(4) and len(set(held)) == len(held)
        assert all(view["version"] <= final["version"] for view in views)
    finally:
        await asyncio.gather(*(ws.close() for ws in sockets))
