"""Websocket routes for the live drive (board, dashboard, phones)."""

from django.urls import re_path

from drive.consumers import LiveConsumer

websocket_urlpatterns = [
    re_path(r"^ws/drive/(?P<code>[A-Za-z]{1,8})/(?P<audience>board|organiser|phone)/$", LiveConsumer.as_asgi()),
]
