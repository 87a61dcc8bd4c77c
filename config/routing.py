from django.urls import path, re_path

from config import bench_routes
from config.consumers import HealthConsumer, NoRoute
from drive.routing import websocket_urlpatterns as drive_ws
from tables.routing import websocket_urlpatterns as tables_ws

websocket_urlpatterns = [
    path("ws/health/", HealthConsumer.as_asgi()),
    *drive_ws,
    *tables_ws,
    *bench_routes.websocket_urlpatterns(),  # empty unless BENCH_ROUTES=1 (make bench only)
    re_path(r"", NoRoute.as_asgi()),  # last: any other path is refused without an error
]
