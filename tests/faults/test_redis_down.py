"""Redis stopped during a drive: phones still enter results over HTTP (the write commits; the
failed live update is logged and swallowed by drive/broadcast.py); with Redis back on the same
port, live updates resume: a new board socket gets the current state, then live changes.

Needs only the ``redis-server`` binary (a private server on a free port), not the system Redis."""

from __future__ import annotations

import json

import pytest

from tests.faults.support import Phone, Redis, Server, setup_drive, state_of, wait_for


@pytest.fixture
def redis():
    r = Redis()
    r.start()
    yield r
    r.stop()


@pytest.fixture
def server(tmp_path, redis):
    s = Server(tmp_path, redis_url=redis.url)
    yield s
    s.stop()


# A full update's send begun while Redis was down waits in the Redis client's retries (their
# backoff grows to several seconds) until Redis answers or the send's own bound (layer.TIMEOUT,
# 30 s) ends it; the drive's next update is built after it. On a busy machine the send straddled
# the restart and the update after the result came 10-12 s later: the wait is that bound.
UPDATE_WAIT = 30


def board_socket(server: Server, code: str):
    from websockets.sync.client import connect

    return connect(f"ws://127.0.0.1:{server.port}/ws/drive/{code}/board/", origin=server.url, open_timeout=30)


def test_results_commit_while_redis_is_down_and_live_updates_resume(server, redis):
    drive = setup_drive(server, 8)
    code, (t1, _t2) = drive["code"], drive["tables"]
    server.start()
    with board_socket(server, code) as ws:
        first = json.loads(ws.recv(timeout=30))
        assert first["type"] == "update" and "0 of 2 tables done" in first["parts"]["board"]

    redis.stop()
    enterer, confirmer = Phone(server, code, t1[0]), Phone(server, code, t1[1])
    status, _, headers = enterer.post(f"/{code}/enter", enterer.entry(4, 2, "while-down"))
    assert status == 302 and headers["Location"] == f"/{code}/me"
    assert confirmer.post(f"/{code}/confirm", confirmer.judging())[0] == 302
    assert [r[:2] for r in state_of(server, drive["id"])["results"]] == [[1, "confirmed"]]
    def logged() -> bool:  # logged, not raised (the result message is sent after the response)
        log = (server.data / "daphne.log").read_text()
        return "live update of" in log and "not sent: channel layer unavailable" in log

    wait_for(logged, timeout=30, every=0.2, what="the failed live update in the server's log")

    redis.start()  # the same port: the server's REDIS_URL is unchanged
    def board_state():
        try:
            with board_socket(server, code) as ws:
                return json.loads(ws.recv(timeout=20))
        except Exception:
            return None

    snapshot = wait_for(board_state, timeout=60, every=0.5, what="a board socket after Redis came back")
    assert "1 of 2 tables done" in snapshot["parts"]["board"]
    t2_phone = Phone(server, code, drive["tables"][1][0])
    t2_entry = t2_phone.entry(4, 0, "after-up")
    with board_socket(server, code) as ws:
        json.loads(ws.recv(timeout=30))  # the current state
        # a change now reaches the open socket live again
        t2_phone.post(f"/{code}/enter", t2_entry)
        # the table's result message, sent at its commit (a full update of a change made while
        # Redis was down may still be on its way: it was gathered, and is sent once Redis is back)
        result = json.loads(ws.recv(timeout=30))
        for _ in range(3):
            if result["type"] == "result":
                break
            assert result["type"] == "update"
            result = json.loads(ws.recv(timeout=UPDATE_WAIT))
        assert result["type"] == "result" and result["table"] == 2 and result["status"] == "entered"
        update = json.loads(ws.recv(timeout=UPDATE_WAIT))  # then the full update
        assert update["type"] == "update" and "board" in update["parts"]
