"""ASGI entry point: HTTP through Django, websockets through Channels with Origin checks."""

import os
import sys

import django

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
django.setup(set_prefix=False)  # as django.core.asgi.get_asgi_application, with our handler:

from config.http_handler import KeptThreadsASGIHandler  # noqa: E402

django_asgi_app = KeptThreadsASGIHandler()

from config import sqlite_anchor  # noqa: E402

sqlite_anchor.hold_open()  # SQLite: closing a request's connection must not checkpoint the WAL

# A busy thread (a move's apply, a request's view) hands the interpreter over every 5 ms by
# default; each of an action's hops between the event loop and a thread could wait that long.
# 1 ms is a precaution that bounds those waits (0.2 ms measured no better: docs/benchmarks.md).
def _switch_interval() -> float:
    from django.core.exceptions import ImproperlyConfigured

    raw = os.environ.get("GIL_SWITCH_INTERVAL", "0.001")
    try:
        value = float(raw)
    except ValueError:
        value = -1.0
    if not 0.0001 <= value <= 0.1:
        raise ImproperlyConfigured(f"GIL_SWITCH_INTERVAL must be seconds from 0.0001 to 0.1; got {raw!r}.")
    return value


sys.setswitchinterval(_switch_interval())

from drive import render  # noqa: E402

render.start()  # the process that builds the live updates, ready before the first change

from channels.auth import AuthMiddlewareStack  # noqa: E402  (needs Django set up first)
from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from channels.security.websocket import AllowedHostsOriginValidator  # noqa: E402

from config.routing import websocket_urlpatterns  # noqa: E402

from config import gc_tuning  # noqa: E402

gc_tuning.apply()



def application_with(routes: list) -> ProtocolTypeRouter:
    """HTTP through Django; websockets on ``routes`` with the Origin check and sessions."""
    return ProtocolTypeRouter(
        {
            "http": django_asgi_app,
            "websocket": AllowedHostsOriginValidator(AuthMiddlewareStack(URLRouter(routes))),
        }
    )


application = application_with(websocket_urlpatterns)
