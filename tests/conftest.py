"""Shared fixtures and the rule for tests that need a service.

Tests marked ``postgres``, ``redis`` or ``browser`` run only where that service is available
(``DATABASE_URL`` / ``REDIS_URL`` set, Chromium installed); ``sqlite`` ones only on the embedded
database (among them the browser tests, whose servers use SQLite whatever the suite runs on, and
the 200-hand privacy test: run once, on the run over the embedded defaults, which .ci/run makes
with Chromium required). Elsewhere they are deselected and the
run says so plainly at the end. With ``REQUIRE_SERVICES=1`` (set by .ci/run) a missing service
is an error instead, so CI can never pass without running them.
"""

from __future__ import annotations

import os
import time
import warnings

import pytest

from tests import browser_support
from tests.browser_support import chromium_path
from tests.personas import *  # noqa: F401,F403  (fixtures: organiser, drive, players…)


def _no_connection_pool_in_tests() -> None:
    """Tests start a new event loop (and its executor threads) for every async test and every
    hypothesis example; a pooled PostgreSQL connection left in a finished thread would never go
    back to the pool. Without the pool each thread's connection simply closes with it. Servers
    (daphne subprocesses in the browser, fault and multi-process tests) keep the pool."""
    from django.conf import settings

    settings.DATABASES["default"].get("OPTIONS", {}).pop("pool", None)


_no_connection_pool_in_tests()


def _quick_password_hashes() -> None:
    """Django's advice for tests: a cheap hasher. Every test with an organiser hashes a
    password (``tests.personas.organiser``), a third of a second each with the production
    hasher (PBKDF2), minutes over the suite. The servers the browser tests start keep theirs;
    a test about password checking sets its own (tests/security/test_signing_in_under_load.py)."""
    from django.conf import settings

    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


_quick_password_hashes()


PATIENT_SECONDS = 30  # the default wait of a browser check, a test communicator, a test's start


def _patient_browser_checks() -> None:
    """Playwright's ``expect`` waits 5 s by default; on a busy CI machine a page that answers at
    once here has taken several. A longer wait only delays a failure, never hides one."""
    from playwright.sync_api import expect

    expect.set_options(timeout=PATIENT_SECONDS * 1000)


_patient_browser_checks()


def _patient_sockets() -> None:
    """Channels' test communicators wait 1 s by default for a consumer (its connect, a frame, its
    end after a close); on a busy CI machine a consumer's database read has taken longer. As for
    the browser checks, the default wait becomes 30 s: a longer wait only delays a failure. (A
    wait for nothing to arrive, ``receive_nothing``, keeps its own short window.)"""
    from asgiref.testing import ApplicationCommunicator
    from channels.testing import HttpCommunicator, WebsocketCommunicator

    for cls, name in ((WebsocketCommunicator, "connect"), (WebsocketCommunicator, "receive_from"),
                      (WebsocketCommunicator, "receive_json_from"), (WebsocketCommunicator, "disconnect"),
                      (HttpCommunicator, "get_response"), (ApplicationCommunicator, "receive_output"),
                      (ApplicationCommunicator, "wait")):
        method = getattr(cls, name)
        *others, timeout = method.__defaults__
        assert timeout == 1, (cls, name, method.__defaults__)  # (channels' default, read from its signature)
        method.__defaults__ = (*others, PATIENT_SECONDS)


_patient_sockets()


def _no_hypothesis_deadline() -> None:
    """Hypothesis fails an example slower than 200 ms by default (and data slow to generate): a
    timing, not what the property says, and on a busy CI machine a pure function's example has
    taken 330 ms. No deadline, no check of the time taken."""
    from hypothesis import HealthCheck, settings

    settings.register_profile("no-deadline", deadline=None, suppress_health_check=[HealthCheck.too_slow])
    settings.load_profile("no-deadline")


_no_hypothesis_deadline()


def _no_render_process_in_tests() -> None:
    """Tests build live updates in the committing thread; the servers they start (daphne
    subprocesses) build them in their render process, as in production (drive/render.py)."""
    from django.conf import settings

    settings.LIVE_RENDER_PROCESS = False


_no_render_process_in_tests()


def _available() -> dict[str, str | None]:
    """For each service marker: None when available, else why not."""
    url = os.environ.get("DATABASE_URL", "")
    return {
        "postgres": None if url.startswith(("postgres://", "postgresql://")) else "DATABASE_URL is not a PostgreSQL URL",
        "redis": None if os.environ.get("REDIS_URL") else "REDIS_URL is not set",
        "browser": None if chromium_path() else "Chromium is not installed (apt-get install chromium)",
        # The embedded database's own behaviour: the run on the embedded defaults has it.
        "sqlite": None if not url.startswith(("postgres://", "postgresql://")) else "the database is PostgreSQL",
    }


_not_run: dict[str, int] = {}


def pytest_collection_modifyitems(config, items):
    available = _available()
    required = [s.strip() for s in os.environ.get("REQUIRE_SERVICES", "").split(",") if s.strip()]
    if required == ["1"]:
        required = [m for m in available if m != "sqlite"]  # every service (SQLite is no service)
    missing_required = [f"{s}: {available[s]}" for s in required if available.get(s)]
    if missing_required:
        raise pytest.UsageError("REQUIRE_SERVICES is set but a service is missing: " + "; ".join(missing_required))
    keep, drop = [], []
    for item in items:
        reasons = [m for m in available if available[m] and item.get_closest_marker(m)]
        if reasons:
            drop.append(item)
            for r in reasons:
                _not_run[r] = _not_run.get(r, 0) + 1
        else:
            keep.append(item)
    if drop:
        config.hook.pytest_deselected(items=drop)
        items[:] = keep


def pytest_terminal_summary(terminalreporter):
    if not _not_run:
        return
    available = _available()
    terminalreporter.section("tests that did not run")
    for marker, count in sorted(_not_run.items()):
        terminalreporter.write_line(f"{count} {marker} test(s) did NOT run: {available[marker]}.")


@pytest.fixture(autouse=True)
def _live_updates_inline(settings):
    """In tests, live updates are built in the committing thread (``LIVE_UPDATES_INLINE``)."""
    settings.LIVE_UPDATES_INLINE = True
    from drive import live

    live.forget_phones()  # ids repeat between tests: no phone fragment counts as already sent
    yield


_outlived: set = set()  # bots' tasks waited for in vain once: not waited for again


@pytest.fixture(autouse=True)
def _no_background_work_of_an_earlier_test():
    """Each test begins once the background work earlier tests left in this process is over: its
    bots' tasks (tables.bots: a task outlives its test in the bots' own thread, and ends at its
    next look, its table gone with that test's database) and its queued live updates
    (drive.live). Else a fake of a module's function (a failing ``bots.bot_step``, a counting
    ``live.publish``) could be called by another test's leftover first. Waited for here, before
    the test, where the earlier test's database is already gone, not after it, where its tables
    (and their bots) may still be there. Work still going after the wait is warned of, once, and
    the test runs beside it."""
    from drive import live
    from tables import bots

    deadline = time.monotonic() + PATIENT_SECONDS
    while time.monotonic() < deadline and bots.playing_seats() - _outlived:
        time.sleep(0.01)
    if left := bots.playing_seats() - _outlived:
        _outlived.update(left)
        warnings.warn(f"bots of an earlier test still playing after {PATIENT_SECONDS} s: (table, seat) {sorted(left)}")
    if not live.wait_idle(PATIENT_SECONDS):
        warnings.warn(f"live updates of an earlier test still running after {PATIENT_SECONDS} s")
    yield


@pytest.fixture(autouse=True)
def _close_sync_thread_connections(django_db_blocker):
    """Consumers use Django from asgiref's sync thread. Close that thread's connections after
    each test (Django's close: a pooled PostgreSQL connection goes back to its pool), so no test
    meets another's open connection and the pool never runs dry."""
    yield
    from asgiref.sync import SyncToAsync
    from django.db import connections

    with django_db_blocker.unblock():
        SyncToAsync.single_thread_executor.submit(connections.close_all).result(timeout=10)


@pytest.fixture(autouse=True)
def _fresh_rate_limits():
    """The join and private-link limits count per address and minute in the cache: one test's
    tries must not use up another's."""
    from django.core.cache import cache

    cache.clear()
    yield


@pytest.fixture(scope="module")
def module_server(tmp_path_factory, request):
    """A live server (tests.browser_support.live_server: daphne on a fresh SQLite file, bots
    without delay) started once for the module, its tests sharing its database; each test makes
    its own drive. tests/tables calls it ``server`` (tests/tables/conftest.py)."""
    name = request.module.__name__.rpartition(".")[2]
    with browser_support.live_server(tmp_path_factory.mktemp(name)) as server:
        yield server


@pytest.fixture(scope="module")
def browser():
    """A headless Chromium (tests.browser_support.chromium) started once for the module; each
    test opens its own contexts (its own cookies) and closes them."""
    with browser_support.chromium() as b:
        yield b
