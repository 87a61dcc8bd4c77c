"""config.http_handler: Django's requests on threads kept from one request to the next."""

from __future__ import annotations

import asyncio
import threading

import pytest
from channels.testing import HttpCommunicator
from django.http import HttpResponse
from django.urls import path

from common.gates import beside_the_pages
from config.health import healthz
from config.http_handler import KeptThreadsASGIHandler

_both_in = threading.Barrier(2, timeout=20)


def _thread(request):
    return HttpResponse(str(threading.get_ident()))


def _together(request):
    _both_in.wait()  # returns only once two requests are in their views at the same time
    return HttpResponse(str(threading.get_ident()))


_first_in, _second_in = threading.Event(), threading.Event()
_second_seen_by_first: list[bool] = []


def _first(request):
    _first_in.set()
    # Two at once: the second request's view would run now. One at a time: it cannot.
    _second_seen_by_first.append(_second_in.wait(1.5))
    return HttpResponse("first")


def _second(request):
    _second_in.set()
    return HttpResponse("second")


_holding, _let_go = threading.Event(), threading.Event()
_in_hold = threading.Semaphore(0)  # released by each request that enters ``_hold_one``


def _hold(request):
    _holding.set()
    _let_go.wait(30)  # until the test has its answer from /healthz (a backstop: 30 s)
    return HttpResponse("held")


def _hold_one(request):
    _in_hold.release()
    _let_go.wait(30)  # until the test has its answers (a backstop: 30 s)
    return HttpResponse("held")


@beside_the_pages
def _long_read(request):
    _in_hold.release()
    _let_go.wait(30)  # until the test has its answers (a backstop: 30 s)
    return HttpResponse("read")


urlpatterns = [path("thread", _thread), path("together", _together), path("first", _first), path("second", _second),
               path("hold", _hold), path("hold-one", _hold_one), path("healthz", healthz), path("long-read", _long_read)]


async def _get(handler, url: str) -> tuple[int, str]:
    response = await HttpCommunicator(handler, "GET", url, headers=[(b"host", b"localhost")]).get_response(timeout=30)
    return response["status"], response["body"].decode()


@pytest.mark.django_db(transaction=True)
async def test_one_request_after_another_runs_on_the_same_kept_thread(settings):
    settings.ROOT_URLCONF = __name__
    handler = KeptThreadsASGIHandler()
    first, second = await _get(handler, "/thread"), await _get(handler, "/thread")
    assert first[0] == second[0] == 200
    assert first[1] == second[1] != str(threading.get_ident())


@pytest.mark.django_db(transaction=True)
async def test_requests_at_once_each_have_a_thread_of_their_own(settings):
    """Two requests whose views wait for each other: on one shared thread they never would meet."""
    settings.ROOT_URLCONF = __name__
    settings.REQUEST_THREADS = 2
    _both_in.reset()
    handler = KeptThreadsASGIHandler()
    (status_a, thread_a), (status_b, thread_b) = await asyncio.gather(_get(handler, "/together"),
                                                                      _get(handler, "/together"))
    assert status_a == status_b == 200
    assert thread_a != thread_b
    assert (await _get(handler, "/thread"))[1] in (thread_a, thread_b)  # kept, not a third


@pytest.mark.django_db(transaction=True)
async def test_requests_over_the_limit_wait_for_one_in_its_view_to_finish(settings):
    """``REQUEST_THREADS`` requests in their views at once, at most: the next waits its turn and
    is then answered."""
    settings.ROOT_URLCONF = __name__
    settings.REQUEST_THREADS = 1
    _first_in.clear()
    _second_in.clear()
    _second_seen_by_first.clear()
    handler = KeptThreadsASGIHandler()
    first = asyncio.ensure_future(_get(handler, "/first"))
    assert await asyncio.to_thread(_first_in.wait, 30)
    second = await _get(handler, "/second")  # sent while the first is in its view
    assert await first == (200, "first")
    assert second == (200, "second")
    assert _second_seen_by_first == [False]  # its view ran only once the first's had finished


@pytest.mark.django_db(transaction=True)
async def test_healthz_is_answered_while_the_requests_queue(settings):
    """Found from outside: in a burst of entries /healthz waited behind them (2.8 s), and a
    monitor would have called a busy server dead. It is answered while every place is taken."""
    settings.ROOT_URLCONF = __name__
    settings.REQUEST_THREADS = 1
    _holding.clear()
    _let_go.clear()
    handler = KeptThreadsASGIHandler()
    held = asyncio.ensure_future(_get(handler, "/hold"))
    try:
        assert await asyncio.to_thread(_holding.wait, 30)
        status, body = await _get(handler, "/healthz")  # the one place is taken until it answers
        assert status == 200 and '"status": "ok"' in body
        assert not held.done()
    finally:
        _let_go.set()
    assert await held == (200, "held")


@pytest.mark.django_db(transaction=True)
async def test_a_long_read_waits_beside_the_pages_one_at_a_time(settings):
    """Found by probing: a big drive's score cards held the one place of the pages for seconds,
    and a board waited 23 s behind them. A view marked ``beside_the_pages`` takes no place of
    theirs: a page is answered while one runs; a second waits for the first (and a POST to it
    is a page like any other)."""
    settings.ROOT_URLCONF = __name__
    settings.REQUEST_THREADS = 1
    _let_go.clear()
    handler = KeptThreadsASGIHandler()
    first = asyncio.ensure_future(_get(handler, "/long-read"))
    try:
        assert await asyncio.to_thread(_in_hold.acquire, True, 30)
        assert (await _get(handler, "/thread"))[0] == 200  # the pages' place is free
        second = asyncio.ensure_future(_get(handler, "/long-read"))
        assert not await asyncio.to_thread(_in_hold.acquire, True, 0.5)  # (waits its turn)
        assert not second.done()
    finally:
        _let_go.set()
    assert await first == (200, "read") and await second == (200, "read")
    assert _in_hold.acquire(timeout=30)  # the second went in once the first was out


@pytest.mark.django_db(transaction=True)
async def test_a_request_makes_its_loop_the_one_where_messages_are_sent(settings):
    """A server no screen has connected to yet still sends a result's messages on its own loop,
    not on a thread and loop started for each send (common.layer)."""
    from common import layer

    settings.ROOT_URLCONF = __name__
    assert (await _get(KeptThreadsASGIHandler(), "/thread"))[0] == 200
    assert layer.server_loop() is asyncio.get_running_loop()


async def _get_from(handler, url: str, address: str) -> tuple[int, str]:
    """``_get`` from a client at ``address`` (daphne's scope names the connection's peer)."""
    from asgiref.testing import ApplicationCommunicator

    scope = {"type": "http", "http_version": "1.1", "method": "GET", "path": url, "raw_path": url.encode(),
             "query_string": b"", "root_path": "", "scheme": "http", "headers": [(b"host", b"localhost")],
             "client": [address, 50000], "server": ["10.0.0.1", 8000]}
    app = ApplicationCommunicator(handler, scope)
    await app.send_input({"type": "http.request", "body": b"", "more_body": False})
    start = await app.receive_output(timeout=30)
    body = await app.receive_output(timeout=30)
    await app.wait(timeout=30)
    return start["status"], body["body"].decode()


@pytest.mark.django_db(transaction=True)
async def test_one_address_has_a_few_requests_in_the_server_at_once_and_is_refused_beyond(settings, caplog):
    """Found from outside: one client fetching the board on 100 connections at once made every
    other page wait 2.7 s behind its requests. An address has at most ``REQUESTS_PER_ADDRESS`` in
    the server (waiting or in their views); one more is answered 429 at once, in one log line;
    another address, and the server's own machine, are answered as ever."""
    settings.ROOT_URLCONF = __name__
    settings.REQUEST_THREADS = 2
    settings.REQUESTS_PER_ADDRESS = 2
    _let_go.clear()
    handler = KeptThreadsASGIHandler()
    held = [asyncio.ensure_future(_get_from(handler, "/hold-one", "10.1.2.3")) for _ in range(2)]
    try:
        for _ in held:  # both in their views
            assert await asyncio.to_thread(_in_hold.acquire, timeout=30)
        for _ in range(3):
            status, body = await _get_from(handler, "/healthz", "10.1.2.3")
            assert status == 429 and body.startswith("Too many requests at once from this address")
        assert [r.getMessage() for r in caplog.records if "Refused requests from" in r.getMessage()] == [
            "Refused requests from 10.1.2.3: 2 at once already (the limit is 2): 429"]
        assert (await _get_from(handler, "/healthz", "10.9.9.9"))[0] == 200  # another phone
        for own in ("127.0.0.1", "::1", "::ffff:127.0.0.1"):  # the server's own machine
            assert (await _get_from(handler, "/healthz", own))[0] == 200
        assert not any(h.done() for h in held)
    finally:
        _let_go.set()
    assert [await h for h in held] == [(200, "held")] * 2
    assert (await _get_from(handler, "/healthz", "10.1.2.3"))[0] == 200  # its requests answered: it may ask again


def test_the_organisers_prints_and_exports_wait_beside_the_pages(rf):
    from common.gates import is_beside_the_pages

    for url in ("/drives/1/print/scorecards", "/drives/1/print/tables", "/drives/1/export/hands.csv",
                "/drives/1/export/standings.csv"):
        assert is_beside_the_pages(rf.get(url)) and is_beside_the_pages(rf.head(url)), url
        assert not is_beside_the_pages(rf.post(url)), url
    for url in ("/drives/1/", "/drives/1/standings", "/ABCDE/board", "/ABCDE/me", "/no/such/page", "/static/css/app.css"):
        assert not is_beside_the_pages(rf.get(url)), url
