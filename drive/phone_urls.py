"""Players' phones and the projected board, under the drive's join code: /<CODE>/…"""

from django.urls import path

from drive import phone_views

app_name = "phone"

urlpatterns = [
    path("<str:code>", phone_views.join, name="join"),
]
