from django.urls import path

from drive import views

app_name = "drive"

urlpatterns = [
    path("", views.home, name="home"),
]
