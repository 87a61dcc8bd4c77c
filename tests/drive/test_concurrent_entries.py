"""Results from phones sent at the same moment, through the public views, served side by side.

Each test holds its requests at the door until all of them are inside the view (a barrier in
the player's look-up, which every one of them makes before its write), then lets them write at
once: on SQLite through the process's one writer thread, on PostgreSQL under the drive's lock.
Whatever the order the database takes them in, the outcome must be the one the rules give."""

from __future__ import annotations

import asyncio
import json
import threading
from urllib.parse import urlencode

import pytest
from channels.testing import HttpCommunicator
from django.core.asgi import get_asgi_application

from drive import phone_views
from scoring.models import Result, Score
from tests.drive.phones_support import entry_data, seat_players
from tests.factories import seated_drive, shown_for

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def held_at_the_door(monkeypatch):
    """``hold(n)``: the next ``n`` requests wait for each other inside the view, before any writes."""

    def hold(n: int) -> None:
        barrier = threading.Barrier(n, timeout=30)
        look_up = phone_views.player_for_request

        def together(request, drive, **kwargs):
            player = look_up(request, drive, **kwargs)
            barrier.wait()  # BrokenBarrierError (a 500) if the requests were not served side by side
            return player

        monkeypatch.setattr(phone_views, "player_for_request", together)

    return hold


class Answer:
    def __init__(self, response: dict) -> None:
        self.status_code = response["status"]
        self.body = response.get("body", b"")

    def json(self) -> dict:
        return json.loads(self.body)


class Phone:
    """A phone's requests, through the server's ASGI application (Django's handler: each sync
    view in its own request's thread), with its player's cookie and a CSRF token."""

    def __init__(self, drive, player) -> None:
        self.cookie = f"ff_{drive.join_code}={player.token}; csrftoken={CSRF}"

    async def post(self, path: str, data: dict, headers: dict | None = None) -> Answer:
        communicator = HttpCommunicator(get_asgi_application(), "POST", path, body=urlencode(data).encode(), headers=[
            (b"host", b"testserver"), (b"cookie", self.cookie.encode()), (b"x-csrftoken", CSRF.encode()),
            (b"content-type", b"application/x-www-form-urlencoded"),
            *((k.encode(), v.encode()) for k, v in (headers or {}).items()),
        ])
        return Answer(await communicator.get_response(timeout=60))


CSRF = "c" * 32
phone = Phone


def served(coroutine):
    """Run the requests as a server would: on an event loop of a thread of its own. (Inside the
    synchronous test's thread, asgiref would run every sync view in that one thread.)"""
    out = {}

    def loop() -> None:
        try:
            out["value"] = asyncio.run(coroutine)
        except BaseException as exc:  # raised again in the test's thread
            out["error"] = exc

    thread = threading.Thread(target=loop)
    thread.start()
    thread.join(120)
    assert not thread.is_alive(), "the requests were not answered within two minutes"
    if "error" in out:
        raise out["error"]
    return out["value"]


def post_all(*posts):
    async def together():
        return await asyncio.gather(*(client.post(path, data, headers={"accept": "application/json"})
                                      for client, path, data in posts))

    return served(together())


@pytest.fixture
def table_of_four(organiser):
    drive = seated_drive(organiser, 4)
    table = drive.hands.get().tables.get()
    return drive, table, seat_players(table)


def test_the_same_entry_sent_twice_at_once_is_stored_once_and_both_are_answered(table_of_four, held_at_the_door):
    drive, table, players = table_of_four
    form = entry_data(4, 1, key="double-tap", by=players[0])
    held_at_the_door(2)
    answers = post_all(*[(phone(drive, players[0]), f"/{drive.join_code}/enter", form)] * 2)
    assert [a.status_code for a in answers] == [200, 200]
    assert sorted(a.json()["repeated"] for a in answers) == [False, True]
    assert Result.objects.filter(table=table).count() == 1
    assert Score.objects.filter(result__table=table).count() == 4


def test_two_players_entering_their_tables_result_at_once_get_one_stored_and_a_clear_refusal(
    table_of_four, held_at_the_door
):
    drive, table, players = table_of_four
    held_at_the_door(2)
    answers = post_all(
        (phone(drive, players[0]), f"/{drive.join_code}/enter", entry_data(4, 1, key="ann", by=players[0])),
        (phone(drive, players[2]), f"/{drive.join_code}/enter", entry_data(4, 2, key="cy", by=players[2])),
    )
    assert [a.status_code for a in answers] == [200, 200]
    assert sorted(a.json()["ok"] for a in answers) == [False, True]
    stored = Result.objects.get(table=table)
    winner = players[0] if stored.client_key == "ann" else players[2]
    assert stored.entered_by == winner
    refused = next(a.json() for a in answers if not a.json()["ok"])
    assert refused["ok"] is False
    assert f"{winner.name} sent Table 1's result first" in refused["message"].replace("\u2068", "").replace("\u2069", "")
    assert "yours was not saved" in refused["message"]


def test_entries_of_different_tables_at_once_are_each_stored_once(organiser, held_at_the_door):
    drive = seated_drive(organiser, 12)
    tables = list(drive.hands.get().tables.order_by("number"))
    posts = []
    for table in tables:
        first = seat_players(table)[0]
        posts.append((phone(drive, first), f"/{drive.join_code}/enter",
                      entry_data(4, 1, key=f"t{table.number}", table=table.number, by=first)))
    held_at_the_door(len(posts))
    answers = post_all(*posts)
    assert [a.json()["ok"] for a in answers] == [True] * len(tables)
    assert sorted(Result.objects.values_list("table__number", flat=True)) == [t.number for t in tables]


def test_a_confirmation_and_a_dispute_sent_at_once_settle_the_entry_one_way(table_of_four, held_at_the_door):
    drive, table, players = table_of_four
    client = phone(drive, players[0])
    assert post_all((client, f"/{drive.join_code}/enter", entry_data(4, 1, by=players[0])))[0].json()["ok"]
    revision = Result.objects.get().revision
    held_at_the_door(2)

    async def judge():
        return await asyncio.gather(
            phone(drive, players[1]).post(f"/{drive.join_code}/confirm",
                                          {**shown_for(players[1]), "seen_revision": revision}),
            phone(drive, players[2]).post(f"/{drive.join_code}/dispute",
                                          {**shown_for(players[2]), "seen_revision": revision, "reason": "wrong"}),
        )

    answers = served(judge())
    assert [a.status_code for a in answers] == [302, 302]
    result = Result.objects.get()
    assert result.status in (Result.Status.CONFIRMED, Result.Status.DISPUTED)
    counted = Score.objects.filter(result=result, counted=True).count()
    assert counted == (4 if result.status == Result.Status.CONFIRMED else 0)


@pytest.mark.django_db
def test_an_entry_checked_before_a_close_is_refused_under_the_lock_and_writes_nothing(table_of_four):
    """The entry page checks the form against the table and seats it read before the drive's
    lock; if the organiser closed the hand meanwhile, the entry is refused as stale once it
    holds the lock, not written onto the closed hand's table."""
    from drive import results, services
    from drive.services import StaleForm
    from tests.factories import declared

    drive, table, players = table_of_four
    read = (table, players)  # what the entry page read
    services.close_hand(drive, force=True)
    services.start_hand(drive)
    with pytest.raises(StaleForm):
        results.enter(drive, players[0], declared(4, 0), client_key="late", seen_revision=0,
                      shown=results.Shown(1, 1, players[0].pk), read=read)
    assert not Result.objects.filter(client_key="late").exists()
