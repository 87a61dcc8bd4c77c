"""Players' phones and the projected board, under the drive's join code: /<CODE>/…"""

from django.urls import path

from drive import phone_views

app_name = "phone"

urlpatterns = [
    # Never a drive's code: join codes hold no I or O (drive.models.JOIN_ALPHABET).
    path("join", phone_views.find, name="find"),
    path("<str:code>", phone_views.join, name="join"),
    path("<str:code>/join", phone_views.claim, name="claim"),
    path("<str:code>/p/<str:token>", phone_views.private_link, name="private"),
    path("<str:code>/me", phone_views.me, name="me"),
    path("<str:code>/forget", phone_views.forget, name="forget"),
    path("<str:code>/enter", phone_views.enter, name="enter"),
    path("<str:code>/preview", phone_views.preview, name="preview"),
    path("<str:code>/confirm", phone_views.confirm, name="confirm"),
    path("<str:code>/dispute", phone_views.dispute, name="dispute"),
    path("<str:code>/board", phone_views.board, name="board"),
]
