"""The benchmark's settings: the server's own, with the benchmark's HTTP hooks (bench/urls.py).

Only `make bench` and its scripts start a server with these (``DJANGO_SETTINGS_MODULE=bench.settings``,
``bench.asgi:application``); a drive's server never does."""

from config.settings import *  # noqa: F401,F403

ROOT_URLCONF = "bench.urls"
