"""A real server for browser tests: daphne in a subprocess on a fresh SQLite file, and Chromium.

The server is a separate process (as in production), so these tests see exactly what a phone
sees: real websockets, real cookies, real static files. Both are started once for the module:
the server here (tests.browser_support.live_server, with an organiser account), the browser in
tests/conftest.py.
"""

from __future__ import annotations

import pytest

from tests.browser_support import live_server

ORGANISER_PASSWORD = "browser-test-password-42"


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """Base URL of a fresh server with an organiser account ``organiser``."""
    with live_server(tmp_path_factory.mktemp("server-data"), BOT_DELAY_SECONDS="0.05",
                     DJANGO_SUPERUSER_PASSWORD=ORGANISER_PASSWORD) as s:
        s.manage("createsuperuser", "--noinput", "--username", "organiser", "--email", "o@example.com", timeout=60)
        yield s.url


@pytest.fixture
def phone_page(browser):
    """New phone-sized pages, each in its own context (its own cookies)."""
    contexts = []

    def make():
        ctx = browser.new_context(viewport={"width": 360, "height": 740}, is_mobile=True, has_touch=True)
        contexts.append(ctx)
        return ctx.new_page()

    yield make
    for ctx in contexts:
        ctx.close()
