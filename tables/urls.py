"""Digital play pages (phones), mounted under /<CODE>/ by config/urls.py."""

from django.urls import path  # noqa: F401

app_name = "tables"

urlpatterns: list = []
