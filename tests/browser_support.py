"""Reusable pieces for browser tests: a real daphne server on a fresh SQLite file, manage.py in
a subprocess against it, and Debian's Chromium through Playwright.

    with live_server(tmp_path) as server:          # server.url, server.env, server.manage(...)
        data = server.shell_json("print(json.dumps(...))")
        with chromium() as browser: ...

A module whose tests share one server and one browser asks for the fixtures ``module_server``
and ``browser`` (tests/conftest.py: these two, started once for the module).
"""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import shutil
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking"]
PHONE = {"width": 360, "height": 740}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass
class LiveServer:
    url: str
    env: dict
    data_dir: Path

    def manage(self, *args: str, timeout: float = 120) -> str:
        """``manage.py`` against the server's database. Its live updates go nowhere (its own
        channel layer, in memory, has no listener: the pages see the change on their next load
        or the server's own update), so they are built in its own process: starting a render
        process (``LIVE_RENDER_PROCESS``) for them made a command that closes a hand take ten
        seconds instead of two. The server keeps its render process."""
        env = {**self.env, "LIVE_RENDER_PROCESS": "0"}
        done = subprocess.run([sys.executable, str(ROOT / "manage.py"), *args], env=env, cwd=ROOT,
                              check=True, timeout=timeout, capture_output=True, text=True)
        return done.stdout

    def shell_json(self, code: str) -> object:
        """Run Python in ``manage.py shell`` against the server's database; its last output line is JSON."""
        out = self.manage("shell", "-c", "import json\n" + code)
        return json.loads(out.strip().splitlines()[-1])


_migrated: list[Path] = []  # the process's migrated empty database, made once (``fresh_database``)


def fresh_database(path: Path, env: dict) -> None:
    """A fresh, migrated SQLite database at ``path``: a copy of one ``manage.py migrate`` made
    once for the test process (in a folder of its own, removed at exit), as every server's
    own migrate would make it; a migrate is several seconds of a busy machine's time."""
    if not _migrated:
        folder = Path(tempfile.mkdtemp(prefix="migrated-"))
        atexit.register(shutil.rmtree, folder, ignore_errors=True)
        template = LiveServer("", {**env, "DATA_DIR": str(folder), "DATABASE_URL": f"sqlite:///{folder / 'drive.sqlite3'}"},
                              folder)
        template.manage("migrate", "-v0", timeout=300)
        _migrated.append(folder / "drive.sqlite3")
    with contextlib.closing(sqlite3.connect(_migrated[0])) as source, contextlib.closing(sqlite3.connect(path)) as copy:
        source.backup(copy)


@contextlib.contextmanager
def live_server(tmp_path: Path, **env_extra: str):
    """daphne on 127.0.0.1:<free port> with DATABASE_URL pointing at a fresh, migrated SQLite file."""
    data = Path(tmp_path) / "server"
    data.mkdir(parents=True, exist_ok=True)
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL")}
    env.update({"DATA_DIR": str(data), "DATABASE_URL": f"sqlite:///{data / 'drive.sqlite3'}", "PORT": str(port),
                "DEBUG": "1", "BOT_DELAY_SECONDS": "0", **env_extra})
    server = LiveServer(f"http://127.0.0.1:{port}", env, data)
    fresh_database(data / "drive.sqlite3", env)
    log = open(data / "daphne.log", "w")
    proc = subprocess.Popen([sys.executable, "-m", "config.server", "-b", "127.0.0.1", "-p", str(port),
                             "config.asgi:application"], env=env, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 90  # (a busy machine's start)
        while True:
            try:
                urllib.request.urlopen(server.url + "/healthz", timeout=5)
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise RuntimeError("daphne did not start: " + (data / "daphne.log").read_text()) from None
                time.sleep(0.2)
        yield server
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()


def chromium_path() -> str | None:
    return os.environ.get("CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")


# How long an action (a click, a fill) waits for its element: Playwright's 30 s was outrun on a
# busy two-core machine, where a page after a POST took longer to come (a wait for an event, with
# a bound no loaded CI reaches; a test that passes never waits it).
ACTION_TIMEOUT_MS = 90_000


def _patient(make):
    """``browser.new_page`` or ``new_context``, whose context waits ``ACTION_TIMEOUT_MS``."""
    def made(*args, **kwargs):
        thing = make(*args, **kwargs)
        getattr(thing, "context", thing).set_default_timeout(ACTION_TIMEOUT_MS)
        return thing
    return made


@contextlib.contextmanager
def chromium():
    """A headless Debian Chromium driven by Playwright; its pages' actions wait ``ACTION_TIMEOUT_MS``."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_ARGS, headless=True)
        browser.new_page, browser.new_context = _patient(browser.new_page), _patient(browser.new_context)
        try:
            yield browser
        finally:
            browser.close()


# The password of the organiser accounts the browser tests create (``create_user(username=…,
# password=ORGANISER_TEST_PASSWORD)`` in a server's shell).
ORGANISER_TEST_PASSWORD = "organiser-pass-123"


def demo_drives(server, games, *, players: int, hands: int, seed: int, organiser: str = "olive") -> None:
    """The organiser ``organiser`` and, for each of ``games`` (a slug; None: the default game), a
    demo drive of hers (``manage.py demo_drive``): in one shell, one start of Django."""
    drives = [{"players": players, "hands": hands, "seed": seed, "organiser": organiser,
               **({"game": game} if game else {})} for game in games]
    server.shell_json("from django.contrib.auth import get_user_model\n"
                      "from django.core.management import call_command\n"
                      f"get_user_model().objects.create_user(username={organiser!r}, password={ORGANISER_TEST_PASSWORD!r})\n"
                      f"for options in {drives!r}:\n"
                      "    call_command('demo_drive', **options)\n"
                      'print("{}")')


def sign_in(page, url: str, username: str, password: str = ORGANISER_TEST_PASSWORD) -> None:
    """``username`` signs in on the server at ``url``; returns once the sign-in form has gone."""
    from playwright.sync_api import expect

    page.goto(url + "/login/")
    page.fill("input[name=username]", username)
    page.fill("input[name=password]", password)
    page.get_by_role("button", name="Sign in").click()
    expect(page.locator("input[name=password]")).to_have_count(0)


# Every frame a page's websockets receive is counted (window.framesIn) before the page's own
# script reads it: ``page.add_init_script(COUNT_FRAMES)``, then ``page.evaluate("window.framesIn")``.
COUNT_FRAMES = """(() => {
  window.framesIn = 0;
  const Real = window.WebSocket;
  window.WebSocket = class extends Real {
    constructor(...args) { super(...args); this.addEventListener("message", () => { window.framesIn += 1; }); }
  };
})();"""


LIST_NUMBERS = """selector => {
  const ol = document.querySelector(selector), li = ol.querySelector('li');
  const ctx = document.createElement('canvas').getContext('2d');
  ctx.font = getComputedStyle(li).font;
  return {count: ol.children.length, pad: parseFloat(getComputedStyle(ol).paddingLeft),
          widest: ctx.measureText('100. ').width};
}"""


def list_numbers_room(page, selector: str) -> dict:
    """A numbered list's items (``count``), the room left of them for their numbers (``pad``, px)
    and the width of the widest number a game's log shows (``widest``: "100. ", a view keeping the
    newest 100 entries). A list that scrolls clips numbers wider than its room."""
    return page.evaluate(LIST_NUMBERS, selector)
