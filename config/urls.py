from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.http import HttpResponseForbidden
from django.shortcuts import redirect
from django.templatetags.static import static
from django.urls import include, path

from config.health import PATH as HEALTH_PATH, healthz
from drive.sign_in import SignInView


def no_password_change(request):
    """The admin changes nothing (``common.admin``), a password included: 403, and one line in
    the log. The organiser's password is set on the laptop."""
    return HttpResponseForbidden("The admin changes nothing. Set the organiser's password on the laptop: "
                                 "make password.\n", content_type="text/plain; charset=utf-8")


urlpatterns = [
    path(HEALTH_PATH.lstrip("/"), healthz, name="healthz"),
    # Browsers ask for /favicon.ico whatever a page names: the icon, not a 404 in the log.
    path("favicon.ico", lambda request: redirect(static("img/icon.svg"), permanent=True)),
    # "/admin" typed without its slash: the admin, not a drive's code ("No drive has that code.").
    path("admin", lambda request: redirect("/admin/", permanent=True)),
    path("admin/login/", SignInView.as_view(), name="admin-login"),  # the admin's sign-in is ours: rate-limited
    path("admin/password_change/", no_password_change),  # (before the admin's own)
    path("admin/", admin.site.urls),
    path("login/", SignInView.as_view(), name="login"),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("", include("drive.urls")),
    path("", include("drive.phone_urls")),
    path("<str:code>/", include("tables.urls")),
]
