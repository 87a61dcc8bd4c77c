"""Requests refused before any view (a method no page answers, a form body Django will not
read), and the middleware chain kept in one thread."""

from __future__ import annotations

from django.conf import settings
from django.core.cache import cache
from django.core.exceptions import BadRequest, RequestDataTooBig, TooManyFieldsSent, TooManyFilesSent
from django.http import HttpResponse, QueryDict
from django.http.request import split_domain_port
from django.http.multipartparser import MultiPartParserError
from django.utils.cache import add_never_cache_headers
from django.utils.log import log_response

from common.ratelimit import client_address
from drive.access import TooManyCodes


def _refusal(exc: Exception) -> tuple[int, str]:
    """The status and the message for a form Django would not read."""
    if isinstance(exc, RequestDataTooBig):
        return 413, f"This form is too large: the limit is {settings.DATA_UPLOAD_MAX_MEMORY_SIZE // 1024} KB."
    if isinstance(exc, TooManyFieldsSent):
        return 400, f"This form has too many fields: the limit is {settings.DATA_UPLOAD_MAX_NUMBER_FIELDS}."
    if isinstance(exc, TooManyFilesSent):
        return 400, "No form here takes a file."
    if isinstance(exc, MultiPartParserError):
        return 400, f"This form could not be read ({str(exc)[:80]})."  # (it may quote what was sent)
    if isinstance(exc, (LookupError, UnicodeError)):  # a multipart form in a charset that is no text's
        return 400, "This form could not be read: its charset is not a text encoding."
    return 400, str(exc)


class KnownMethods:
    """Every page here answers GET (and HEAD) or takes a POST: any other method (PUT, DELETE,
    PATCH, OPTIONS, TRACE…) gets 405 with the methods allowed and one line in the log, where the
    views would have answered it as a GET, with the page."""

    ALLOWED = ("GET", "HEAD", "POST")

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if request.method not in self.ALLOWED:
            response = _refused(request, f"This address does not answer {request.method[:20]}.", 405,
                                "Refused a method")
            response["Allow"] = ", ".join(self.ALLOWED)
            return response
        return self.get_response(request)


class PrivatePages:
    """Every page is the drive as it is now, and many hold secrets (the Phones page's private
    links, a player's page, the organiser's exports): a browser or a proxy keeps none of them
    (``Cache-Control: no-store, private``), so Back after signing out of a borrowed laptop shows
    nothing of them. Static files are answered before this (WhiteNoise) and keep their caching;
    a view that says how it may be cached keeps that."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        if not response.has_header("Cache-Control"):
            add_never_cache_headers(response)
        return response


class HostPort:
    """A Host header's port must be a port (1-65535): Django checks the name against
    ALLOWED_HOSTS, not the port, and the pages build the phones' join address, and its QR code,
    from the Host as sent (a port of 3,000 digits: no QR code holds it, a server error). Any
    other gets 400 and one line in the log, as a forged name does."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        port = split_domain_port(request.get_host())[1]  # (the name is checked: DisallowedHost)
        if port and (len(port) > 5 or not 1 <= int(port) <= 65535):  # (ASCII digits: Django's check)
            return _refused(request, "The Host header's port is not a port.", 400, "Refused a Host")
        return self.get_response(request)


class UnreadableForm:
    """An address with more parameters than DATA_UPLOAD_MAX_NUMBER_FIELDS (any method), or a
    POSTed form that Django refuses to read gets a plain 4xx here and one line in the log
    (logger ``django.request``), never a traceback: a body over DATA_UPLOAD_MAX_MEMORY_SIZE (413;
    the server refuses a bigger body before reading it, config/server.py), more fields than
    DATA_UPLOAD_MAX_NUMBER_FIELDS, a file part (no form takes one: DATA_UPLOAD_MAX_NUMBER_FILES is
    0), a broken multipart body, an urlencoded body that says it is not UTF-8 (``charset=utf8``,
    ``latin-1``…), a multipart body whose charset Python knows as a codec of bytes, not text
    (``charset=hex``, ``rot13``, ``idna``) (400). Left to Django, each is a traceback in the log (twice with DEBUG on),
    and the charset one a server error: Django's error pages read the form again, and fail
    again. First in MIDDLEWARE: before the CSRF middleware, which reads the form, and before
    anything that checks the Host, whose refusal (Django's page for a forged Host) reads the
    form and the parameters too. What it has read, Django keeps: nothing reads it twice."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        try:
            request.GET  # noqa: B018 (read once: Django keeps it)
        except TooManyFieldsSent:
            request.GET = QueryDict()  # read again later (error pages), it is empty
            return _refused(request, f"This address has too many parameters: the limit is "
                                     f"{settings.DATA_UPLOAD_MAX_NUMBER_FIELDS}.", 400, "Refused an address")
        if request.method == "POST":
            try:
                request.POST  # noqa: B018 (read once: Django keeps it)
            except (BadRequest, RequestDataTooBig, TooManyFieldsSent, TooManyFilesSent, MultiPartParserError,
                    LookupError, UnicodeError) as exc:
                if isinstance(exc, LookupError) and type(exc) is not LookupError:
                    raise  # (a KeyError or an IndexError: a bug, not the client's charset)
                request._mark_post_parse_error()  # read again later (error pages), it is empty
                status, message = _refusal(exc)
                return _refused(request, f"{message} Send the form again from its page.", status, "Refused a form")
        return self.get_response(request)


class UnknownCodes:
    """A page asked for by an address that asked for too many codes no drive has
    (``drive.access.TooManyCodes``): 429 with a short message. One line in the log per address
    a minute, not one a guess (each unknown code before it was a "Not Found" line)."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        return self.get_response(request)

    def process_exception(self, request, exception):
        if not isinstance(exception, TooManyCodes):
            return None
        address = client_address(request)
        said = not cache.add(f"said:codes:{address}", True, 60)
        return _refused(request, str(exception), 429, f"Refused codes from {address}", log=not said)


def _refused(request, message: str, status: int, what: str, *, log: bool = True) -> HttpResponse:
    """A plain answer saying why, and one line in the log (``django.request``), no traceback. Not
    to be sniffed as anything but text (it may quote what was sent): ``UnreadableForm`` answers
    before SecurityMiddleware would say so."""
    response = HttpResponse(f"{message}\n", status=status, content_type="text/plain; charset=utf-8")
    response["X-Content-Type-Options"] = "nosniff"
    if log:
        log_response("%s (%s): %s %s", what, message, request.method, request.path, response=response, request=request)
    else:
        response._has_been_logged = True  # (Django would log it: a line a request)
    return response


class SyncChain:
    """Last in MIDDLEWARE, sync only: under ASGI every middleware above it then runs in sync
    mode, called directly in the request's thread.

    Django runs a middleware that can be either in the mode of the one after it, the view's
    handler being async under ASGI. WhiteNoise, ``KnownMethods`` and ``UnreadableForm`` are sync
    only, so without this the middleware after them (CSRF, authentication, messages, clickjacking) ran in async
    mode, and each of their hooks was handed to the request's thread and back: some ten hops
    between the event loop and a thread for every request. Measured: 5.8 ms of the server's CPU
    for a page (GET /login/) with it, 7.1-9.2 without (docs/benchmarks.md). The URL is still
    resolved on the loop, between two hops: the whole request in its thread saved 0.7 ms a page
    but let a request's Python hold the interpreter in one stretch, and a 1,000-phone hall's
    result messages, sent by the loop, waited behind it (docs/benchmarks.md, "Alternatives
    measured"). Tested by tests/test_foundation.py."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        return self.get_response(request)
