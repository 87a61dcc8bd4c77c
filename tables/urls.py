"""Digital play pages (phones), mounted under /<CODE>/ by config/urls.py."""

from django.urls import path

from tables import views

app_name = "tables"

urlpatterns = [
    path("play", views.play, name="play"),
    path("tables/<int:number>/watch", views.watch, name="watch"),
    path("tables/<int:table_id>/add-bot", views.add_bot, name="add_bot"),
    path("tables/<int:table_id>/stand-in", views.stand_in, name="stand_in"),
]
