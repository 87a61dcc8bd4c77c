"""A phone that goes while a frame is being sent to it (a page closed, a connection dropped in
the middle of a move's fan-out): daphne's send raises autobahn's ``Disconnected``, and the
socket's disconnect follows. Found from outside: it was logged as "Exception inside
application" with a traceback, the line docs/operations.md tells the organiser to look for."""

from __future__ import annotations

import logging

import pytest
from autobahn.exception import Disconnected

from tables.consumers import PlayConsumer
from tests.tables.phones import action, connected, eventually_async, until

pytestmark = pytest.mark.django_db(transaction=True)


async def test_a_phone_gone_while_its_view_is_sent_is_one_line_and_the_socket_carries_on(
    four_at_a_table, monkeypatch, caplog
):
    drive, table, players = four_at_a_table
    (ann, ann_first), (bob, bob_first) = [await connected(drive, p) for p in players[:2]]
    gone = []
    real = PlayConsumer.frame_text

    def frame_text(self, view, finished):
        if self.seat == 1 and not gone:  # Bob's phone, the first time the table moves on
            gone.append(view)
            raise Disconnected("Attempt to send on a closed protocol")
        return real(self, view, finished)

    monkeypatch.setattr(PlayConsumer, "frame_text", frame_text)
    caplog.set_level(logging.INFO, logger="common.consumers")
    version = ann_first["view"]["version"]
    await ann.send_json_to(action("pass", version, card=ann_first["view"]["hand"][0]))
    assert (await until(ann, lambda f: f["type"] in ("ok", "error")))["type"] == "ok"
    await eventually_async(lambda: gone, "the table's new version reaches Bob's socket")
    said = [r for r in caplog.records if r.name == "common.consumers"]
    assert [r.getMessage() for r in said] == [
        "PlayConsumer: the socket closed while table.state was being sent to it"]
    assert said[0].levelno == logging.INFO and said[0].exc_info is None

    # Nothing else broke: the socket goes on (here it never really went), and so does the table.
    await bob.send_json_to(action("pass", version + 1, card=bob_first["view"]["hand"][0]))
    assert (await until(bob, lambda f: f["type"] in ("ok", "error")))["type"] == "ok"
    for socket in (ann, bob):
        await socket.disconnect()
