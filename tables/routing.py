"""Websocket routes for digital play."""

from django.urls import path

from tables import consumers

websocket_urlpatterns: list = [
    path("ws/play/<str:code>/", consumers.PlayConsumer.as_asgi()),
    path("ws/watch/<str:code>/<int:number>/", consumers.WatchConsumer.as_asgi()),
]
