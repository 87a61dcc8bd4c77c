"""Requests refused before any view: a form body Django cannot read."""

from __future__ import annotations

from django.core.exceptions import BadRequest
from django.http import HttpResponseBadRequest


class UnreadableForm:
    """A POSTed form that Django refuses to read (an urlencoded body that says it is not UTF-8:
    ``charset=utf8``, ``latin-1``…) gets a plain 400 here. Left to the CSRF middleware, the
    refusal became a server error: Django's own error pages read the form again, and fail
    again. Placed before the CSRF middleware."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if request.method == "POST":
            try:
                request.POST  # noqa: B018 (read once: Django keeps it)
            except BadRequest as exc:
                request._mark_post_parse_error()  # read again later (error pages), it is empty
                return HttpResponseBadRequest(f"{exc} Send the form again from its page.",
                                              content_type="text/plain; charset=utf-8")
        return self.get_response(request)
