"""The server killed (SIGKILL) in the middle of a hand and started again: nothing confirmed is lost,
and a digital hand resumes at the version it had reached."""

from __future__ import annotations

import json

import pytest

from tests.faults.support import Phone, Server, setup_drive, state_of

DIGITAL_MOVES = """
import json, random
from games import get_game
from tables import digital
from tables.models import TableHand
table = TableHand.objects.get(hand__drive_id={id})
game = get_game("film-fantasy")
rng = random.Random(5)
for _ in range({moves}):
    state = game.load_hand(table.state)
    seat, move = next((s, m) for s in range(state.players) if (m := game.bot_action(state, s, rng)) is not None)
    player = table.seats.get(position=seat).player_id
    digital.apply_action(table.pk, seat, {{**move, "version": table.version, "key": f"k{{table.version}}"}}, player_id=player)
    table.refresh_from_db()
print(json.dumps({{"version": table.version, "state": table.state}}))
"""


@pytest.fixture
def server(tmp_path):
    s = Server(tmp_path)
    yield s
    s.stop()


def play_socket_first_frame(server: Server, code: str, token: str) -> dict:
    from websockets.sync.client import connect

    with connect(f"ws://127.0.0.1:{server.port}/ws/play/{code}/", origin=server.url,
                 additional_headers={"Cookie": f"ff_{code}={token}"}, open_timeout=30) as ws:
        return json.loads(ws.recv(timeout=30))


def test_sigkill_mid_hand_loses_nothing_confirmed(server):
    drive = setup_drive(server, 8)
    digital = setup_drive(server, 4, mode="digital")
    code, (t1, t2) = drive["code"], drive["tables"]
    server.start()

    # Table 1: entered and confirmed from the phones. Table 2: entered, not yet confirmed.
    enterer, confirmer = Phone(server, code, t1[0]), Phone(server, code, t1[1])
    status, _, headers = enterer.post(f"/{code}/enter", enterer.entry(4, 2, "t1-entry"))
    assert status == 302 and headers["Location"] == f"/{code}/me"
    status, _, _ = confirmer.post(f"/{code}/confirm", confirmer.judging())
    assert status == 302
    t2_phone = Phone(server, code, t2[0])
    status, body, _ = t2_phone.post(f"/{code}/enter", t2_phone.entry(4, 1, "t2-entry"), json_answer=True)
    assert status == 200 and json.loads(body)["ok"] is True
    moved = server.shell(DIGITAL_MOVES.format(id=digital["id"], moves=6))
    assert moved["version"] >= 6

    before = state_of(server, drive["id"])
    assert [r[:2] for r in before["results"]] == [[1, "confirmed"], [2, "entered"]]
    assert sum(total for _, total in before["standings"]) > 0

    server.kill9()
    server.start()  # the same DATA_DIR: the same SQLite file

    after = state_of(server, drive["id"])
    assert after == before
    status, page, _ = Phone(server, code, t1[2]).get(f"/{code}/me")
    assert status == 200 and "confirmed" in page
    # The unconfirmed entry is still there to confirm, and the same key is recognised, not doubled.
    t2_phone = Phone(server, code, t2[0])
    status, body, _ = t2_phone.post(f"/{code}/enter", t2_phone.entry(4, 1, "t2-entry"), json_answer=True)
    assert json.loads(body)["repeated"] is True
    other = Phone(server, code, t2[1])
    assert other.post(f"/{code}/confirm", other.judging())[0] == 302
    assert [r[:2] for r in state_of(server, drive["id"])["results"]] == [[1, "confirmed"], [2, "confirmed"]]

    # The digital hand resumes at the version it had reached, with the same cards.
    frame = play_socket_first_frame(server, digital["code"], digital["tables"][0][0])
    assert frame["type"] == "state" and frame["view"]["version"] == moved["version"]
