"""Websocket routes for digital play."""

websocket_urlpatterns: list = []
