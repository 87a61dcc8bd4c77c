from django.urls import path, re_path

from config.health import HealthConsumer, NoRoute
from drive.routing import websocket_urlpatterns as drive_ws
from tables.routing import websocket_urlpatterns as tables_ws

websocket_urlpatterns = [
    path("ws/health/", HealthConsumer.as_asgi()),
    *drive_ws,
    *tables_ws,
    re_path(r"", NoRoute.as_asgi()),  # last: any other path is refused without an error
]
