"""Logging filters for the server's log."""

from __future__ import annotations

import logging


class WithoutTraceback(logging.Filter):
    """Keep the record's message, drop its traceback: for refusals that are the client's doing
    (a forged Host header is answered 400 and logged; its traceback says nothing about the
    server and buried the log under 30 lines a request)."""

    def filter(self, record: logging.LogRecord) -> bool:
        record.exc_info = None
        record.exc_text = None
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
