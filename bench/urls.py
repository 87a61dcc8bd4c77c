"""The server's URLs with the benchmark's hooks before them (bench/routes.py)."""

from bench import routes
from config.urls import urlpatterns as server_urlpatterns

urlpatterns = [*routes.urlpatterns(), *server_urlpatterns]
