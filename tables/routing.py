"""Websocket routes for digital play. ``BENCH_ROUTES=1`` adds a bench-only echo route (bench/digital.py)."""

import os

from django.urls import path

from tables import consumers

websocket_urlpatterns: list = [
    path("ws/play/<str:code>/", consumers.PlayConsumer.as_asgi()),
    path("ws/watch/<str:code>/<int:number>/", consumers.WatchConsumer.as_asgi()),
]

if os.environ.get("BENCH_ROUTES") == "1":  # never in a real drive: an unauthenticated group echo
    websocket_urlpatterns.append(path("ws/bench/echo-group/<str:name>/", consumers.EchoGroupConsumer.as_asgi()))
