"""Logging filters for the server's log."""

from __future__ import annotations

import logging
import re

# A phone's private link (``/<CODE>/p/<token>``): its token is the player's cookie, so nothing the
# server writes shows it (a log pasted into a bug report would hand the players out). Unanchored:
# daphne writes a path it cannot decode as ``b'/…'``, and Django's lines quote it mid-sentence.
# The server decodes a path before routing it, so a link typed percent-encoded (``/ABCDE/%70/…``,
# ``p%2F…``) opens the page all the same: the pattern reads an encoded character wherever a plain
# one may stand. The line itself is written as it came (decoding it would let a ``%0A`` in a
# path start a forged line of the log).
# The code before ``/p/`` is read as anything up to the next slash (a code padded with spaces,
# ``/%20%20ABCDE/p/…``, is a link to leave out too, whether or not it opens a page).
_SLASH = r"(?:/|%2[fF])"
PRIVATE_LINK = re.compile(
    rf"({_SLASH}(?:(?!%2[fF])[^/]){{1,64}}{_SLASH}(?:p|%70){_SLASH})"
    r"(?:[^/?#%\s'\"]|%(?!2[fF]|3[fF]|23)[0-9A-Fa-f]{2})+")


def without_private_links(text: str) -> str:
    """``text`` with every private link's token left out, percent-encoded or not."""
    return PRIVATE_LINK.sub("\\1…", text)


class WithoutTraceback(logging.Filter):
    """Keep the record's message, drop its traceback: for refusals that are the client's doing
    (a forged Host header is answered 400 and logged; its traceback says nothing about the
    server and buried the log under 30 lines a request)."""

    def filter(self, record: logging.LogRecord) -> bool:
        record.exc_info = None
        record.exc_text = None
        return True


class WithoutPrivateLinks(logging.Filter):
    """On the server's log handler: every line with a private link's token left out (Django's
    "Not Found: /ABCDE/p/…", a refused method's or form's line; daphne's access log is
    ``config.server.AccessLog``)."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        if "/p" in message or "%" in message:
            cleaned = without_private_links(message)
            if cleaned != message:
                record.msg, record.args = cleaned, None
        return True


class ClientErrorWithoutTraceback(WithoutTraceback):
    """``WithoutTraceback`` for a request answered 4xx (Django's ``django.request`` logs a
    permission denied or a bad request with its exception: an admin page an organiser may not
    open, a lookup the admin refuses); a server error (5xx) keeps its traceback."""

    def filter(self, record: logging.LogRecord) -> bool:
        status = getattr(record, "status_code", None)
        if isinstance(status, int) and 400 <= status < 500:
            return super().filter(record)
        return True
