"""Django's ASGI handler, each request's sync code on a thread kept from one request to the next.

Django's ``ASGIHandler`` runs a request's sync code (middleware, view) in a
``ThreadSensitiveContext`` of its own: asgiref starts a thread for it, and another to join that
one when the request ends. Starting a thread blocks the event loop until the new thread has
run (``Thread.start`` waits for it), which on a busy server, where the new thread waits for the
interpreter, took half of the loop's time in a burst of result entries (py-spy): while it
waits no socket hears anything. Here each request gets a single-thread executor from a pool
(asgiref's public ``ThreadSensitiveContext(executor=…)``, which does not shut it down): the same
isolation, one request at a time on a thread, without starting one. The pool grows to the most
requests served at once, as Django's threads would, and keeps them: an idle thread costs
nothing.

At most ``REQUEST_THREADS`` requests (1 on SQLite, 2 on PostgreSQL) run their middleware and
view at once; the others wait on the event loop, their bodies read, for one to finish. The
interpreter runs one thread at a time, so more threads in views buy no speed: 96 requests in
their views at once made every one of them, the SQLite writer thread and the event loop wait
their turn behind all the others, and a burst of 1,000 entries took 15 ms of the server's CPU a
POST against 11-14 ms; with one, a result's message reaches 1,000 phones' screens at 1.3 times
its floor, against 2.6-3.3 with two (bench/, docs/benchmarks.md). Reading the body and sending
the response stay outside the limit: a slow phone holds no place. ``/healthz`` has a gate of
its own, one at a time: a monitor asking whether the server is alive is answered at once, not
after the requests queued in a burst (its database query runs beside theirs), and a flood of
health checks takes no more than one place. The organiser's long reads (prints, exports:
``common.gates.beside_the_pages``) likewise wait at a gate of their own, one at a time, beside
the pages. A sign-in (a POST to ``SIGN_IN_PATHS``) takes no
place at all: its password check is a third of a second of hashing, outside the interpreter, and
with every page waiting behind it, ten wrong passwords from each of six addresses held a board
13.6 s; ``drive.sign_in.SignInView`` checks one password at a time, with a few in line, and
refuses more. Figures: docs/benchmarks.md; tested by tests/test_http_handler.py and
tests/security/test_signing_in_under_load.py.

One address (a phone, or an attacker on the hall's Wi-Fi) has at most ``REQUESTS_PER_ADDRESS``
requests in the server at once, waiting or in their views; one more is answered 429 at once,
without Django: a client fetching the board on 100 connections made every other page wait
2.7 s behind its requests. A phone's page asks a few at a time. The server's own machine
(loopback: the organiser's laptop, its projector's browser, the benchmarks' clients) is not
limited.

An HTTP/1.1 request must send a Host header (``HostRequiredRequest``): without one, it is
refused as a forged Host is.
"""

from __future__ import annotations

import asyncio
import collections
import ipaddress
import logging
import time
import weakref
from concurrent.futures import ThreadPoolExecutor

from asgiref.sync import ThreadSensitiveContext
from django.conf import settings
from django.core.exceptions import DisallowedHost, RequestDataTooBig
from django.core.handlers.asgi import ASGIHandler, ASGIRequest
from django.http import HttpResponse

from common import layer
from common.gates import is_beside_the_pages
from common.network import is_this_machine
from config.health import PATH as HEALTH_PATH

log = logging.getLogger("config.server")
request_log = logging.getLogger("django.request")
TOO_MANY = b"Too many requests at once from this address: wait a moment, then try again.\n"
SIGN_IN_PATHS = frozenset({"/login/", "/admin/login/"})  # (config/urls.py)


class HostRequiredRequest(ASGIRequest):
    """Django's request, with the Host header HTTP/1.1 requires (RFC 9112 §3.2): with none, Django
    took the server's own address for it and served the request. Refused where a forged Host is,
    in ``get_host``, which every check of the Host calls (``CommonMiddleware`` first): 400 and one
    line in the log (``django.security.DisallowedHost``, without its traceback). An HTTP/1.0
    request may have none: the server's own address stands for it."""

    def get_host(self):
        if "HTTP_HOST" not in self.META and self.scope.get("http_version") != "1.0":
            raise DisallowedHost("Invalid HTTP_HOST header: none, in an HTTP/1.1 request (no Host header; "
                                 "HTTP/1.1 requires one).")
        return super().get_host()


class KeptThreadsASGIHandler(ASGIHandler):
    request_class = HostRequiredRequest

    def __init__(self) -> None:
        super().__init__()
        self._idle: list[ThreadPoolExecutor] = []  # (pop and append are atomic)
        # Per event loop (a semaphore belongs to the loop it first waits in; tests run many), a
        # gate per kind of request: "pages", "health", "beside" (``run_get_response``).
        self._gates: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[str, asyncio.Semaphore]] = (
            weakref.WeakKeyDictionary())
        self._at_once: collections.Counter[str] = collections.Counter()  # address -> requests in the server
        self._said: dict[str, float] = {}  # address -> when its last refusal was logged

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            raise ValueError(f"Django can only handle ASGI/HTTP connections, not {scope['type']}.")
        # The loop where the request's writes send their messages after the commit: without it
        # (a server whose screens have not connected yet), each send would start a thread and a
        # loop of its own.
        layer.remember_loop()
        address = limited_address(scope)
        if address is not None and self._at_once[address] >= settings.REQUESTS_PER_ADDRESS:
            await self.refuse(address, send)
            return
        if address is not None:
            self._at_once[address] += 1
        executor = self._idle.pop() if self._idle else ThreadPoolExecutor(1, thread_name_prefix="request")
        try:
            async with ThreadSensitiveContext(executor=executor):
                await self.handle(scope, receive, send)
        finally:
            self._idle.append(executor)
            if address is not None:
                self._at_once[address] -= 1
                if not self._at_once[address]:
                    del self._at_once[address]

    async def refuse(self, address: str, send) -> None:
        """429, unread, and one line in the log per address every ten seconds at most."""
        now = time.monotonic()
        if now - self._said.get(address, -60.0) >= 10:
            self._said = {a: t for a, t in self._said.items() if now - t < 10}  # (kept small)
            self._said[address] = now
            log.warning("Refused requests from %s: %d at once already (the limit is %d): 429", address,
                        self._at_once[address], settings.REQUESTS_PER_ADDRESS)
        await send({"type": "http.response.start", "status": 429,
                    "headers": [(b"content-type", b"text/plain; charset=utf-8"), (b"retry-after", b"1"),
                                (b"content-length", str(len(TOO_MANY)).encode())]})
        await send({"type": "http.response.body", "body": TOO_MANY})

    def create_request(self, scope, body_file):
        """Django's, and a request whose headers Django cannot read answered 400 with one line in
        the log (logger ``django.request``): a Content-Type parameter in an encoding Python does
        not know (``a/b; x*=bogus''y``), which Django lets through to the server as a 500 with a
        traceback on every address, GETs included, or a path that is not UTF-8, which it logs
        with a traceback. Django's own ``create_request`` catches only the
        second: this is it, with ``ValueError`` (``UnicodeDecodeError`` is one) for both."""
        try:
            return self.request_class(scope, body_file), None
        except RequestDataTooBig:
            return None, HttpResponse("413 Payload too large", status=413)
        except ValueError as exc:
            request_log.warning("Refused a request, its headers could not be read (%s): %s %s: 400",
                                str(exc)[:120], str(scope.get("method", ""))[:20], str(scope.get("path", ""))[:200])
            response = HttpResponse("This request's headers could not be read.\n", status=400,
                                    content_type="text/plain; charset=utf-8")
            response["X-Content-Type-Options"] = "nosniff"
            return None, response

    async def run_get_response(self, request):
        """The middleware and the view, once fewer than ``REQUEST_THREADS`` requests are in theirs
        (``/healthz`` once no other health check is in its own, a view ``beside_the_pages`` once
        no other is in its own; a sign-in at once)."""
        if request.method == "POST" and request.path_info in SIGN_IN_PATHS:
            return await super().run_get_response(request)
        if request.path_info == HEALTH_PATH:
            kind, places = "health", 1
        elif is_beside_the_pages(request):
            kind, places = "beside", 1
        else:
            kind, places = "pages", settings.REQUEST_THREADS
        gates = self._gates.setdefault(asyncio.get_running_loop(), {})
        gate = gates.get(kind)
        if gate is None:
            gate = gates[kind] = asyncio.Semaphore(places)
        async with gate:
            return await super().run_get_response(request)


def limited_address(scope) -> str | None:
    """The client's address when ``REQUESTS_PER_ADDRESS`` applies to it: None for the server's own
    machine (loopback), an unknown client, or no limit (0)."""
    client = scope.get("client")
    if not settings.REQUESTS_PER_ADDRESS or not client:
        return None
    try:
        ip = ipaddress.ip_address(client[0])
    except ValueError:  # (a Unix socket's peer, say)
        return None
    return None if is_this_machine(client[0]) else str(ip)
