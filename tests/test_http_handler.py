"""config.http_handler: Django's requests on threads kept from one request to the next."""

from __future__ import annotations

import asyncio
import threading

import pytest
from channels.testing import HttpCommunicator
from django.http import HttpResponse
from django.urls import path

from config.http_handler import KeptThreadsASGIHandler

_both_in = threading.Barrier(2, timeout=20)


def _thread(request):
    return HttpResponse(str(threading.get_ident()))


def _together(request):
    _both_in.wait()  # returns only once two requests are in their views at the same time
    return HttpResponse(str(threading.get_ident()))


urlpatterns = [path("thread", _thread), path("together", _together)]


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
    _both_in.reset()
    handler = KeptThreadsASGIHandler()
    (status_a, thread_a), (status_b, thread_b) = await asyncio.gather(_get(handler, "/together"),
                                                                      _get(handler, "/together"))
    assert status_a == status_b == 200
    assert thread_a != thread_b
    assert (await _get(handler, "/thread"))[1] in (thread_a, thread_b)  # kept, not a third
