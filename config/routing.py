from django.urls import path

from config.consumers import HealthConsumer
from drive.routing import websocket_urlpatterns as drive_ws
from tables.routing import websocket_urlpatterns as tables_ws

websocket_urlpatterns = [
    path("ws/health/", HealthConsumer.as_asgi()),
    *drive_ws,
    *tables_ws,
]
