"""The benchmark's ASGI application: the server's, with the benchmark's websocket routes
(bench/routes.py) before the server's own. Served by `make bench` only."""

import os

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "bench.settings")

from config import asgi  # noqa: E402  (sets Django up)
from config.routing import websocket_urlpatterns  # noqa: E402

from bench import routes  # noqa: E402

application = asgi.application_with([*routes.websocket_urlpatterns(), *websocket_urlpatterns])
