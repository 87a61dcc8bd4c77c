"""The organiser's sign-in (``/login/`` and the admin's): rate-limited per address, one
password checked at a time, and never sent back to a sign-in page."""

from __future__ import annotations

from urllib.parse import urlsplit

from django.contrib import admin, messages
from django.contrib.auth import views as auth_views
from django.urls import reverse

from common.network import is_this_machine
from common.ratelimit import Turns, give_back, spend_try

SIGN_IN_ATTEMPTS_PER_MINUTE = 10
SIGN_IN_TURNS = Turns(4)  # one password checked at a time, three waiting (about a second at most)


class SignInView(auth_views.LoginView):
    """The organiser's sign-in (and the admin's), with at most ``SIGN_IN_ATTEMPTS_PER_MINUTE``
    tries a minute per address: each try costs a password hash (a third of a second, outside
    the interpreter, beside the pages: config/http_handler.py). Every address's tries take
    ``SIGN_IN_TURNS``: beyond those in line, 429 at once, unhashed and not counted against the
    address; the server's own machine (the organiser at the laptop) always gets in line."""

    redirect_authenticated_user = True
    template_name = "registration/login.html"

    def get_redirect_url(self):
        """``next``, but not back to a sign-in page (``/login/?next=/login/``: Django's view finds
        it would redirect a signed-in user to itself, and raised a server error), nor into the
        admin for an account it does not let in (an organiser made for their own drives: the
        admin and its sign-in sent it to each other for ever). Either goes to the drives."""
        url = super().get_redirect_url()
        path = urlsplit(url).path
        if path in (reverse("login"), reverse("admin-login")):
            return ""
        user = self.request.user
        if path.startswith(reverse("admin:index")) and user.is_authenticated and not admin.site.has_permission(self.request):
            messages.info(self.request, "The raw data (the admin) is for the laptop's organiser account only.")
            return ""
        return url

    def post(self, request, *args, **kwargs):
        spent = spend_try(request, "sign-in", SIGN_IN_ATTEMPTS_PER_MINUTE)
        if spent is not None:
            with SIGN_IN_TURNS.turn(always=is_this_machine(request.META.get("REMOTE_ADDR"))) as mine:
                if mine:
                    response = super().post(request, *args, **kwargs)
                    if request.user.is_authenticated:  # the limit is for guessing: a sign-in gives its try back
                        give_back(spent)
                    return response
            give_back(spent)
        context = self.get_context_data(form=self.form_class(request), limited=spent is None, busy=spent is not None)
        return self.render_to_response(context, status=429)
