"""Sign-ins check passwords beside the pages, not in their place (config/http_handler.py,
drive.sign_in.SignInView): a guesser's wrong passwords, each a third of a second of hashing, held
every page behind them (10 tries from each of 6 addresses: a board waited 13.6 s).

The password check here is a hasher that waits for the test to let it go, so "a sign-in is being
checked" is a fact, not a guess about timing: a page is answered while sign-ins are provably
still in their check, however slow the machine."""

from __future__ import annotations

import asyncio
import threading
import urllib.parse

import pytest
from asgiref.sync import sync_to_async
from asgiref.testing import ApplicationCommunicator
from django.contrib.auth.hashers import MD5PasswordHasher
from django.test import Client

from common.ratelimit import Turns
from config.http_handler import SIGN_IN_PATHS, KeptThreadsASGIHandler
from drive import sign_in

PASSWORD = "organiser-pass-123"
CSRF = "a" * 32  # a CSRF secret: the cookie and the form's token


class HeldHasher(MD5PasswordHasher):
    """MD5 (fast, for the tests), whose check, once ``armed``, says it has begun and waits to be
    let go."""

    armed = False
    checking = threading.Semaphore(0)  # released by each check that begins
    let_go = threading.Event()
    checks = 0

    def verify(self, password, encoded):
        if HeldHasher.armed:
            HeldHasher.checks += 1
            HeldHasher.checking.release()
            HeldHasher.let_go.wait(60)  # (a backstop: the test lets go)
        return super().verify(password, encoded)


@pytest.fixture
def held(settings, django_user_model):
    settings.PASSWORD_HASHERS = [f"{__name__}.HeldHasher"]
    HeldHasher.checking = threading.Semaphore(0)
    HeldHasher.let_go = threading.Event()
    HeldHasher.checks = 0
    HeldHasher.armed = True
    yield HeldHasher
    HeldHasher.armed = False
    HeldHasher.let_go.set()


async def _ask(handler, method: str, path: str, address: str, form: dict | None = None) -> tuple[int, str, list]:
    body = urllib.parse.urlencode({**(form or {}), "csrfmiddlewaretoken": CSRF}).encode() if form is not None else b""
    headers = [(b"host", b"localhost"), (b"cookie", f"csrftoken={CSRF}".encode())]
    if form is not None:
        headers.append((b"content-type", b"application/x-www-form-urlencoded"))
    scope = {"type": "http", "http_version": "1.1", "method": method, "path": path, "raw_path": path.encode(),
             "query_string": b"", "root_path": "", "scheme": "http", "headers": headers,
             "client": [address, 50000], "server": ["10.0.0.1", 8000]}
    app = ApplicationCommunicator(handler, scope)
    await app.send_input({"type": "http.request", "body": body, "more_body": False})
    start = await app.receive_output(timeout=60)
    answer = await app.receive_output(timeout=60)
    await app.wait(timeout=60)
    return start["status"], answer["body"].decode(), start["headers"]


def _sign_in(handler, address: str, password: str):
    return _ask(handler, "POST", "/login/", address, {"username": "olive", "password": password})


def _until(condition, what: str) -> None:
    """Wait until ``condition()`` holds: another thread's progress (a backstop of a minute)."""
    pause = threading.Event()
    for _ in range(6000):
        if condition():
            return
        pause.wait(0.01)
    raise AssertionError(f"never: {what}")


def test_the_sign_in_paths_are_the_urls_of_the_sign_in_pages():
    from django.urls import reverse

    assert SIGN_IN_PATHS == {reverse("login"), reverse("admin-login")}


@pytest.mark.django_db(transaction=True)
async def test_pages_are_answered_while_sign_ins_are_being_checked_and_the_organiser_signs_in_after(
        settings, held, django_user_model):
    settings.REQUEST_THREADS = 1  # one place for the pages, as on SQLite
    await sync_to_async(django_user_model.objects.create_user)(username="olive", password=PASSWORD)
    handler = KeptThreadsASGIHandler()
    guesses = [asyncio.ensure_future(_sign_in(handler, f"10.0.0.{n}", "wrong-password")) for n in (1, 2, 3)]
    try:
        assert await asyncio.to_thread(held.checking.acquire, timeout=60)  # one password in its check
        await asyncio.to_thread(_until, lambda: sign_in.SIGN_IN_TURNS.in_line == 3, "three sign-ins in line")
        # The pages' one place is free: a page is answered now, the sign-ins all still in line.
        status, page, _ = await _ask(handler, "GET", "/login/", "10.0.0.9")
        assert status == 200 and "Organiser sign-in" in page
        status, page, _ = await _ask(handler, "GET", "/join", "10.0.0.9")
        assert status == 200
        assert not any(g.done() for g in guesses) and held.checks == 1
    finally:
        held.let_go.set()
    answers = [await g for g in guesses]
    assert [a[0] for a in answers] == [200] * 3 and all("Wrong user name or password" in a[1] for a in answers)
    assert held.checks == 3  # one after another
    status, _, headers = await _sign_in(handler, "10.0.0.4", PASSWORD)
    assert status == 302 and any(k == b"Set-Cookie" and v.startswith(b"sessionid=") for k, v in headers)


@pytest.mark.django_db(transaction=True)
def test_sign_ins_beyond_those_in_line_are_refused_at_once_and_the_laptop_always_gets_in_line(
        settings, held, django_user_model, monkeypatch):
    """Beyond the few in line a sign-in is answered 429 at once, unchecked, and the try is not
    counted against its address; the server's own machine waits its turn instead."""
    import datetime

    from common import ratelimit

    now = datetime.datetime(2026, 12, 2, 9, 0, 30, tzinfo=datetime.timezone.utc)  # mid-minute, held there
    monkeypatch.setattr(ratelimit.timezone, "now", lambda: now)
    django_user_model.objects.create_user(username="olive", password=PASSWORD)
    held.let_go.set()  # checks go through; the turn is held by the test itself
    turns = Turns(1)
    monkeypatch.setattr(sign_in, "SIGN_IN_TURNS", turns)
    phone = Client(REMOTE_ADDR="10.0.0.7")
    laptop: list = []
    with turns.turn() as mine:
        assert mine
        refused = phone.post("/login/", {"username": "olive", "password": PASSWORD})
        assert refused.status_code == 429 and "Too many people are signing in at once" in refused.content.decode()
        assert "_auth_user_id" not in phone.session and held.checks == 0
        waiting = threading.Thread(target=lambda: laptop.append(
            Client(REMOTE_ADDR="127.0.0.1").post("/login/", {"username": "olive", "password": PASSWORD})))
        waiting.start()
        _until(lambda: turns.in_line == 2, "the laptop's sign-in in line")
        assert not laptop
    waiting.join(60)
    assert laptop[0].status_code == 302 and held.checks == 1
    # The refused try was not counted: the phone still has all its tries.
    for _ in range(sign_in.SIGN_IN_ATTEMPTS_PER_MINUTE - 1):
        assert phone.post("/login/", {"username": "olive", "password": "nope"}).status_code == 200
    assert phone.post("/login/", {"username": "olive", "password": PASSWORD}).status_code == 302
