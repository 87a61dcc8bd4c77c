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
