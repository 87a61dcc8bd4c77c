"""Websocket routes for the live drive (board, dashboard, phones)."""

websocket_urlpatterns: list = []
