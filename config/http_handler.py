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
nothing. Figures: docs/architecture.md; tested by tests/test_http_handler.py.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

from asgiref.sync import ThreadSensitiveContext
from django.core.handlers.asgi import ASGIHandler


class KeptThreadsASGIHandler(ASGIHandler):
    def __init__(self) -> None:
        super().__init__()
        self._idle: list[ThreadPoolExecutor] = []  # (pop and append are atomic)

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            raise ValueError(f"Django can only handle ASGI/HTTP connections, not {scope['type']}.")
        executor = self._idle.pop() if self._idle else ThreadPoolExecutor(1, thread_name_prefix="request")
        try:
            async with ThreadSensitiveContext(executor=executor):
                await self.handle(scope, receive, send)
        finally:
            self._idle.append(executor)
