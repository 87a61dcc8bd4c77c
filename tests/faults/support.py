"""Real servers for fault tests: daphne (and a private redis-server) in subprocesses.

Like tests/browser/conftest.py, each server runs on a fresh SQLite file in a temporary data
directory, so these tests see what a phone sees: real HTTP, real cookies, real CSRF, real sockets.
The system Redis on 6379 is never touched: a private redis-server runs on a free port.
"""

from __future__ import annotations

import http.cookies
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

from tests.browser_support import fresh_database
from tests.factories import shown_on

ROOT = Path(__file__).resolve().parents[2]
PYTHON = sys.executable
SERVE = [PYTHON, "-m", "config.server"]  # daphne as `make run` starts it


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for(predicate, timeout: float = 30, every: float = 0.1, what: str = "condition"):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(every)
    raise AssertionError(f"timed out waiting for {what}")


class Server:
    """daphne serving config.asgi on ``port`` with data (SQLite, secret key) in ``data``."""

    def __init__(self, data: Path, redis_url: str | None = None):
        self.data = data
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.proc: subprocess.Popen | None = None
        self.env = {
            **{k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL", "REQUIRE_SERVICES")},
            "DATA_DIR": str(data), "PORT": str(self.port), "DEBUG": "1", "BOT_DELAY_SECONDS": "0.05",
            "PYTHONUNBUFFERED": "1",  # its log read as it is written (daphne's access log is stdout's)
            "ALLOWED_HOSTS": "127.0.0.1,localhost",
        }
        if redis_url:
            self.env["REDIS_URL"] = redis_url
        fresh_database(data / "drive.sqlite3", self.env)

    def manage(self, *args: str, timeout: float = 120) -> str:
        result = subprocess.run([PYTHON, str(ROOT / "manage.py"), *args], env=self.env, cwd=ROOT,
                                capture_output=True, text=True, timeout=timeout)
        assert result.returncode == 0, result.stderr[-3000:]
        return result.stdout

    def shell(self, code: str) -> dict:
        """Run Python in ``manage.py shell``; it prints one JSON object as its last line."""
        out = self.manage("shell", "-c", code)
        return json.loads(out.strip().splitlines()[-1])

    def start(self) -> None:
        self.log = open(self.data / "daphne.log", "a")
        self.proc = subprocess.Popen([*SERVE, "-b", "127.0.0.1", "-p", str(self.port), "config.asgi:application"],
                                     env=self.env, cwd=ROOT, stdout=self.log, stderr=subprocess.STDOUT)

        def up():
            if self.proc.poll() is not None:
                raise AssertionError("daphne exited: " + (self.data / "daphne.log").read_text()[-3000:])
            try:
                urllib.request.urlopen(self.url + "/healthz", timeout=1)
                return True
            except urllib.error.HTTPError:
                return True  # it answers (e.g. 503 while the channel layer is down)
            except OSError:
                return False

        wait_for(up, timeout=30, what="daphne to answer")

    def kill9(self) -> None:
        os.kill(self.proc.pid, signal.SIGKILL)
        self.proc.wait(timeout=10)
        self.log.close()

    def stop(self) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=10)
        if getattr(self, "log", None) and not self.log.closed:
            self.log.close()


class Phone:
    """A player's phone over plain HTTP: its cookies, CSRF token from the pages, as entry.js sends."""

    def __init__(self, server: Server, code: str, token: str):
        self.server, self.code = server, code
        self.cookies = {f"ff_{code}": token}

    def _open(self, method: str, path: str, data: dict | None = None, headers: dict | None = None):
        body = urllib.parse.urlencode(data).encode() if data is not None else None
        request = urllib.request.Request(self.server.url + path, data=body, method=method)
        request.add_header("Cookie", "; ".join(f"{k}={v}" for k, v in self.cookies.items()))
        for k, v in (headers or {}).items():
            request.add_header(k, v)
        opener = urllib.request.build_opener(NoRedirect)
        try:
            response = opener.open(request, timeout=20)
        except urllib.error.HTTPError as exc:
            response = exc
        for header in response.headers.get_all("Set-Cookie") or []:
            for name, morsel in http.cookies.SimpleCookie(header).items():
                self.cookies[name] = morsel.value
        return response.status, response.read().decode(), response.headers

    def get(self, path: str):
        return self._open("GET", path)

    def post(self, path: str, data: dict, json_answer: bool = False):
        if "csrftoken" not in self.cookies:
            self.get(f"/{self.code}/me")
        headers = {"X-CSRFToken": self.cookies.get("csrftoken", ""), "Origin": self.server.url}
        if json_answer:
            headers["Accept"] = "application/json"
        return self._open("POST", path, data, headers)

    def judging(self) -> dict:
        """What the confirm form on the phone's home page carries: the revision it shows, and what
        it was shown for (the hand, the table, the player)."""
        status, page, _ = self.get(f"/{self.code}/me")
        revision = re.search(r'name="seen_revision" value="(\d+)"', page)
        return {**({"seen_revision": revision.group(1)} if revision else {}), **shown_on(page)}

    def entry(self, players: int, declarer: int, key: str, seen: int = 0) -> dict:
        """An entry form's answers, with what this phone's entry page says it was shown for."""
        status, page, _ = self.get(f"/{self.code}/enter")
        data = {"declarer": str(declarer), "nine_card": "False", "dealer": "0", "client_key": key,
                "seen_revision": str(seen), **shown_on(page)}
        for i in range(players):
            data[f"seat{i}_sets"] = "0"
            data[f"seat{i}_ice"] = "none"
        return data


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


SETUP_DRIVE = """
import json, random
from django.contrib.auth import get_user_model
from drive import services
from drive.models import Drive
User = get_user_model()
user = User.objects.filter(username="organiser").first() or User.objects.create_user("organiser", password="fault-pass-123")
drive = Drive.objects.create(organiser=user, name="Fault drive", seed=1, play_mode="{mode}", preferred_table_size=4)
services.add_players(drive, [f"P{{i}}" for i in range(1, {players} + 1)])
services.draw_seating(drive, random.Random(7))
services.start_hand(drive)
tables = [[s.player.token for s in t.seats.select_related("player").order_by("position")]
          for t in drive.hands.get().tables.order_by("number")]
print(json.dumps({{"code": drive.join_code, "id": drive.pk, "tables": tables}}))
"""


def setup_drive(server: Server, players: int = 8, mode: str = "physical") -> dict:
    return server.shell(SETUP_DRIVE.format(players=players, mode=mode))


STATE = """
import json
from drive import selectors
from drive.models import Drive
from scoring.models import Result
from tables.models import TableHand
drive = Drive.objects.get(pk={id})
print(json.dumps({{
    "results": sorted([r.table.number, r.status, r.revision, r.client_key] for r in Result.objects.filter(drive=drive)),
    "standings": [[r.name, r.total] for r in selectors.standings(drive)],
    "tables": sorted([t.number, t.status, t.version] for t in TableHand.objects.filter(hand__drive=drive)),
}}))
"""


def state_of(server: Server, drive_id: int) -> dict:
    return server.shell(STATE.format(id=drive_id))


class Redis:
    """A private redis-server on a free port (no persistence); never the system one."""

    def __init__(self):
        binary = shutil.which("redis-server")
        if binary is None:
            raise AssertionError("redis-server is not installed (apt-get install redis-server): "
                                 "the Redis fault test needs the binary, not a running service")
        self.binary = binary
        self.port = free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.proc: subprocess.Popen | None = None

    def start(self) -> None:
        self.proc = subprocess.Popen(
            [self.binary, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
             "--daemonize", "no"], stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)

        def up():
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.5) as s:
                    s.sendall(b"PING\r\n")
                    return s.recv(16).startswith(b"+PONG")
            except OSError:
                return False

        wait_for(up, timeout=30, what="redis-server")

    def stop(self) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(timeout=10)
