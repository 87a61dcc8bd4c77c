"""The flashed messages' storage: Django's (the cookie, and the session for what does not fit
it), each message said once.

A message already waiting to be shown is not added again: a client that asks again and again
for a page that flashes one, and never follows the redirect to where it is shown, would grow
the cookie by a copy a request until it overflowed into the session, which would then write a
row of the database for each such request of a visitor with none, and every page it opened
would show some 2,000 copies of one sentence. And at most ``MOST`` wait, the newest: a client
that sends a form again and again, each time with another value that its refusal quotes (a
confirmation of hand 1, 2, 3…), would grow them as much, each sentence new.
"""

from __future__ import annotations

from django.contrib.messages.storage.fallback import FallbackStorage


class SaidOnce(FallbackStorage):
    MOST = 5  # far more than a page shows at once

    def add(self, level, message, extra_tags=""):
        text = str(message)
        if any(str(m.message) == text for m in (*self._loaded_messages, *self._queued_messages)):
            return  # (waiting to be shown already: once is enough)
        super().add(level, message, extra_tags)

    def _store(self, messages, response, *args, **kwargs):
        return super()._store(messages[-self.MOST:], response, *args, **kwargs)
