"""A real server for browser tests: daphne in a subprocess on a fresh SQLite file, and Chromium.

The server is a separate process (as in production), so these tests see exactly what a phone
sees: real websockets, real cookies, real static files.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from tests.conftest import chromium_path

ROOT = Path(__file__).resolve().parents[2]
ORGANISER_PASSWORD = "browser-test-password-42"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """Base URL of a fresh server with an organiser account ``organiser``."""
    data = tmp_path_factory.mktemp("server-data")
    port = _free_port()
    env = {
        **{k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL")},
        "DATA_DIR": str(data), "PORT": str(port), "DEBUG": "1",
        "DJANGO_SUPERUSER_PASSWORD": ORGANISER_PASSWORD, "BOT_DELAY_SECONDS": "0.05",
    }
    manage = [sys.executable, str(ROOT / "manage.py")]
    subprocess.run([*manage, "migrate", "-v0"], env=env, check=True, cwd=ROOT, timeout=120)
    subprocess.run([*manage, "createsuperuser", "--noinput", "--username", "organiser", "--email", "o@example.com"],
                   env=env, check=True, cwd=ROOT, timeout=60, capture_output=True)
    log = open(data / "daphne.log", "w")
    proc = subprocess.Popen(
        [sys.executable, "-m", "config.server", "-b", "127.0.0.1", "-p", str(port), "config.asgi:application"],
        env=env, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 90  # (a busy machine's first start: migrations run, files compiled)
    while True:
        try:
            urllib.request.urlopen(url + "/healthz", timeout=5)
            break
        except OSError:
            if time.monotonic() > deadline:
                proc.kill()
                raise RuntimeError("daphne did not start: " + (data / "daphne.log").read_text()) from None
            time.sleep(0.2)
    yield url
    proc.terminate()
    try:
        proc.wait(timeout=30)
    except subprocess.TimeoutExpired:  # (a busy machine: the server's own shutdown is not what is tested)
        proc.kill()
        proc.wait(timeout=30)
    log.close()


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(
            executable_path=chromium_path(), headless=True,
            args=["--no-sandbox", "--disable-gpu", "--disable-background-networking"],
        )
        yield b
        b.close()


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
