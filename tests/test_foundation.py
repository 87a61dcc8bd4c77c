"""The foundation: the health check, sign-in, the first pages and the server process (the
settings read from the environment: tests/test_settings.py)."""

from __future__ import annotations

import logging
import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command


@pytest.mark.django_db
def test_healthz_reports_database_and_channel_layer(client):
    response = client.get("/healthz")
    assert response.status_code == 200
    data = response.json()
    assert data["status"] == "ok"
    assert data["database"]["ok"] and data["channel_layer"]["ok"]


@pytest.mark.django_db
def test_first_page_asks_the_organiser_to_sign_in(client):
    response = client.get("/")
    assert response.status_code == 302
    assert response["Location"].startswith("/login/")
    page = client.get(response["Location"])
    assert b"Organiser sign-in" in page.content
    assert b'rel="icon" href="/static/img/icon.svg"' in page.content  # (browsers asked for /favicon.ico: a 404 a visit)
    icon = client.get("/favicon.ico")
    assert icon.status_code == 301 and icon["Location"] == "/static/img/icon.svg"


@pytest.mark.django_db
def test_signed_in_organiser_sees_the_drive_list(organiser_client):
    response = organiser_client.get("/")
    assert response.status_code == 200
    assert b"Your drives" in response.content


@pytest.mark.django_db
def test_wrong_password_is_refused(client, organiser):
    response = client.post("/login/", {"username": "olive", "password": "nope"})
    assert response.status_code == 200
    assert b"Wrong user name or password" in response.content


@pytest.mark.django_db
@pytest.mark.parametrize("data", [{"username": "ol\x00ive", "password": "nope"}, {"username": "olive"}],
                         ids=["a control character", "no password"])
def test_a_sign_in_its_form_refuses_says_so_too(client, organiser, data):
    """Found by probing: a user name with a NUL in it (a field's own error) showed the page again
    with no word of why."""
    response = client.post("/login/", data)
    assert response.status_code == 200 and not response.wsgi_request.user.is_authenticated
    assert b"Wrong user name or password" in response.content


@pytest.mark.django_db
@pytest.mark.parametrize("url", ["/login/", "/admin/login/"])
def test_signing_in_is_rate_limited_per_address(client, organiser, url, monkeypatch):
    """Found by a tester: 30 wrong passwords in 11 s, on the sign-in page and the admin's; each
    try costs a password hash. Ten tries a minute per address; then a clear refusal, even with
    the right password, and no hash; another address is unaffected."""
    import datetime

    from django.test import Client

    from common import ratelimit
    from drive.sign_in import SIGN_IN_ATTEMPTS_PER_MINUTE

    # Mid-minute, held there: ten hashed tries take seconds, and a burst that straddles the turn
    # of a minute is weighed a little under its count (the sliding minute is an estimate).
    now = datetime.datetime(2026, 12, 2, 9, 0, 30, tzinfo=datetime.timezone.utc)
    monkeypatch.setattr(ratelimit.timezone, "now", lambda: now)

    for _ in range(SIGN_IN_ATTEMPTS_PER_MINUTE):
        assert client.post(url, {"username": "olive", "password": "nope"}).status_code == 200
    refused = client.post(url, {"username": organiser.username, "password": "organiser-pass-123"})
    assert refused.status_code == 429 and b"Too many tries to sign in" in refused.content
    assert "_auth_user_id" not in client.session
    other = Client(REMOTE_ADDR="10.0.0.9")
    assert other.post(url, {"username": "olive", "password": "nope"}).status_code == 200
    # The limit is for guessing: a sign-in that succeeds gives its try back (a test suite's, or
    # a helper's, many sign-ins from one laptop are not refused).
    for _ in range(2 * SIGN_IN_ATTEMPTS_PER_MINUTE):
        signer = Client(REMOTE_ADDR="10.0.0.8")
        assert signer.post(url, {"username": organiser.username, "password": "organiser-pass-123"}).status_code == 302


@pytest.mark.django_db
def test_ensure_organiser_prints_password_once(capsys, django_user_model):
    call_command("ensure_organiser")
    first = capsys.readouterr().out
    assert "password:" in first
    call_command("ensure_organiser")
    second = capsys.readouterr().out
    assert "password:" not in second and "organiser" in second
    user = django_user_model.objects.get(username="organiser")
    password = first.split("password:")[1].split()[0]
    assert user.check_password(password)


@pytest.mark.django_db
def test_ensure_organiser_names_the_account_as_it_stores_it(capsys, django_user_model):
    """Full-width letters are stored as plain ones (Django normalises a user name): the command
    looked the typed name up, found nothing, and a second run (or --reset) failed on the unique
    name."""
    call_command("ensure_organiser", "--username", "\uff4f\uff52\uff47\uff41\uff4e\uff49\uff53\uff45\uff52\uff12")
    assert "organiser2" in capsys.readouterr().out
    call_command("ensure_organiser", "--username", "\uff4f\uff52\uff47\uff41\uff4e\uff49\uff53\uff45\uff52\uff12", "--reset")
    assert "New password for the organiser account" in capsys.readouterr().out
    assert list(django_user_model.objects.values_list("username", flat=True)) == ["organiser2"]


@pytest.mark.django_db
@pytest.mark.parametrize("name", ["bad user/<>", "", "x" * 151])
def test_ensure_organiser_refuses_a_user_name_the_sign_in_page_would_not_take(name, django_user_model):
    """Found from outside: "bad user/<>" made a second superuser nobody could sign in as."""
    with pytest.raises(CommandError, match="cannot be a user name"):
        call_command("ensure_organiser", "--username", name)
    assert not django_user_model.objects.exists()


def test_frames_are_json_whatever_orjson_takes():
    """Sockets encode frames with orjson, and with the standard library what orjson refuses."""
    import json

    from common.consumers import dumps

    frame = {"type": "state", "view": {"hand": ["3-2", "J"], "version": 7, "name": "Zoë <b>"}}
    assert json.loads(dumps(frame)) == frame
    odd = {"counts": {1: 4, 2: 5}, "big": 2**70}  # an integer key, an integer beyond 64 bits
    assert json.loads(dumps(odd)) == {"counts": {"1": 4, "2": 5}, "big": 2**70}



@pytest.mark.django_db
def test_json_columns_hold_plain_json_whatever_orjson_takes(organiser):
    """JSON columns are written and read by orjson (``common.jsoncodec``): what they store is
    plain JSON that the standard library reads alike, what orjson refuses (an integer key, an
    integer beyond 64 bits) is stored as before, and what JSON cannot hold is refused as before."""
    import datetime
    import json

    from django.db import connection

    from tests.factories import make_drive

    drive = make_drive(organiser)
    drive.house_rules = {"name": "Zoë <b>", "points": [1, 2.5, None], "counts": {1: 4}, "big": 2**70 + 1,
                         "long": -(10**18) - 1, "digits": "12345678901234567890"}
    drive.save(update_fields=["house_rules"])
    drive.refresh_from_db()
    assert drive.house_rules == {"name": "Zoë <b>", "points": [1, 2.5, None], "counts": {"1": 4}, "big": 2**70 + 1,
                                 "long": -(10**18) - 1, "digits": "12345678901234567890"}
    assert type(drive.house_rules["big"]) is int and type(drive.house_rules["long"]) is int  # (orjson: floats)
    with connection.cursor() as cursor:
        cursor.execute("SELECT house_rules FROM drive_drive WHERE id = %s", [drive.pk])
        stored = cursor.fetchone()[0]
    assert (json.loads(stored) if isinstance(stored, str) else stored) == drive.house_rules
    from common.jsoncodec import Decoder  # what PostgreSQL's jsonb refuses to store, read as before
    assert Decoder().decode('["\\ud800", "\ud800", 12345678901234567890123]') == ["\ud800", "\ud800", 12345678901234567890123]
    drive.house_rules = {"when": datetime.datetime(2026, 12, 5)}
    with pytest.raises(TypeError, match="not JSON serializable"):
        drive.save(update_fields=["house_rules"])

def test_a_server_process_freezes_its_startup_objects_and_collects_young_ones_less_often():
    """Checked in a fresh interpreter that loads the ASGI application as daphne does (this test
    process has loaded it already)."""
    import json
    import os

    from config import gc_tuning

    code = ("import gc, json; before = gc.get_threshold(); import config.asgi; "
            "print(json.dumps([before, gc.get_threshold(), gc.get_freeze_count()]))")
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings", "LIVE_RENDER_PROCESS": "0"}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120, check=True)
    before, after, frozen = json.loads(out.stdout.strip().splitlines()[-1])
    assert before == [700, 10, 10]  # Python's own, before the application
    assert after == [gc_tuning.YOUNG, *gc_tuning.OLDER]
    assert frozen > 10_000  # Django and the application, out of the collector's walk


def test_make_run_trusts_no_forwarded_address():
    """`make run` serves phones directly (no proxy in front): daphne must not take the client's
    address from X-Forwarded-For, or any phone could choose the address that the join limit
    counts (and lock another phone out). Behind nginx, docs/operations.md adds --proxy-headers."""
    from pathlib import Path

    makefile = (Path(__file__).resolve().parent.parent / "Makefile").read_text()
    run = makefile.split("\nrun:", 1)[1].split("\n\n", 1)[0]
    serve = next(line for line in run.splitlines() if "config.server" in line and not line.strip().startswith("@#"))
    assert "--proxy-headers" not in serve and "-b 0.0.0.0" in serve


def test_no_template_comment_runs_over_a_line():
    """Django's {# … #} comment is one line only: one that runs on shows its text on the page
    (a note in the game screen's template did, on every phone)."""
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent / "templates"
    broken = [f"{path.relative_to(root)}:{n}" for path in root.rglob("*.html")
              for n, line in enumerate(path.read_text().splitlines(), 1)
              if "{#" in line and "#}" not in line.split("{#", 1)[1]]
    assert broken == []


@pytest.mark.django_db
def test_a_forged_host_is_refused_and_logged_in_one_line_without_its_traceback(client, caplog):
    """Found by a tester: every request with a Host header that is not ours logged a full
    traceback (DEBUG off), burying the server's log."""
    with caplog.at_level(logging.WARNING, logger="django.security.DisallowedHost"):
        response = client.get("/", HTTP_HOST="evil.example")
    assert response.status_code == 400
    records = [r for r in caplog.records if r.name == "django.security.DisallowedHost"]
    assert records and "evil.example" in records[0].getMessage()
    assert all(r.exc_info is None and not r.exc_text for r in records)


@pytest.mark.django_db
def test_pages_an_organiser_may_not_open_are_logged_in_one_line_without_a_traceback(organiser, organiser_client,
                                                                                   caplog):
    """Found by probing: admin pages an organiser may not open (403), and lookups or fields the
    admin refuses in an address (400), logged a full traceback each, DEBUG off. A client's
    mistake is one line; a server error keeps its traceback."""
    urls = ["/admin/drive/drive/add/", "/admin/drive/player/?_to_field=token",
            "/admin/drive/player/?drive__organiser__password__startswith=p", "/admin/autocomplete/?app_label=x"]
    organiser.is_staff = organiser.is_superuser = True  # as `manage.py ensure_organiser` makes them
    organiser.save()
    with caplog.at_level(logging.WARNING):
        statuses = [organiser_client.get(url).status_code for url in urls]
    assert all(400 <= s < 500 for s in statuses), statuses
    records = [r for r in caplog.records if r.name == "django.request" or r.name.startswith("django.security.")]
    assert len(records) >= len(urls)
    assert all(r.exc_info is None and not r.exc_text for r in records), [r.name for r in records if r.exc_info]
    # A server error (5xx) keeps its traceback.
    from config.log_filters import ClientErrorWithoutTraceback

    try:
        raise RuntimeError("a bug")
    except RuntimeError:
        import sys

        failed = logging.LogRecord("django.request", logging.ERROR, __file__, 1, "Internal Server Error", None,
                                   sys.exc_info())
    failed.status_code = 500
    assert ClientErrorWithoutTraceback().filter(failed) and failed.exc_info is not None


class _ModeProbe:
    """A middleware that can run either way (as Django's own), recording the mode Django gave it."""

    modes: list[str] = []

    sync_capable = True
    async_capable = True

    def __init__(self, get_response):
        from asgiref.sync import iscoroutinefunction, markcoroutinefunction

        self.get_response = get_response
        self.is_async = iscoroutinefunction(get_response)
        if self.is_async:
            markcoroutinefunction(self)
        _ModeProbe.modes.append("async" if self.is_async else "sync")

    def __call__(self, request):
        return self._acall(request) if self.is_async else self.get_response(request)

    async def _acall(self, request):
        return await self.get_response(request)


@pytest.mark.django_db
async def test_under_asgi_every_middleware_runs_in_the_request_s_thread(settings):
    """``config.middleware.SyncChain``, last: a middleware that can run either way, placed just
    above it, runs in sync mode under ASGI (in async mode each of its hooks would be a hop
    between the event loop and a thread), and the page is served."""
    from django.test import AsyncClient

    assert settings.MIDDLEWARE[-1] == "config.middleware.SyncChain"
    settings.MIDDLEWARE = [*settings.MIDDLEWARE[:-1], "tests.test_foundation._ModeProbe", settings.MIDDLEWARE[-1]]
    _ModeProbe.modes.clear()
    response = await AsyncClient().get("/login/")
    assert response.status_code == 200
    assert _ModeProbe.modes == ["sync"]


def test_make_password_on_a_fresh_machine_sets_up_the_database_first(tmp_path):
    """Found by a tester: `make password` before any `make run` failed with a traceback (no
    such table: auth_user), leaving an empty database behind."""
    import os
    import subprocess
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL", "MAKEFLAGS", "MAKELEVEL")}
    done = subprocess.run(["make", "-s", "-o", ".venv/.installed", "password"], cwd=root, capture_output=True,
                          text=True, env={**env, "DATA_DIR": str(tmp_path)}, timeout=300)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert "Traceback" not in done.stderr and "password" in done.stdout.lower()


def test_the_server_raises_its_open_file_limit_to_the_hard_limit_at_start_and_says_so(tmp_path):
    """Found from outside: under the usual soft limit of 1,024 open files, about 1,000 idle
    connections (or 990 boards' sockets) and the server stopped accepting, without a word. A
    server started under a soft limit of 256 runs with its hard limit, and its log says so."""
    import resource
    import threading
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    low = 256

    def start_low():
        resource.setrlimit(resource.RLIMIT_NOFILE, (low, hard))

    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL")}
    env.update({"DATA_DIR": str(tmp_path), "LIVE_RENDER_PROCESS": "0", "SECRET_KEY": "open-files-" + "k" * 50})
    server = subprocess.Popen([sys.executable, "-m", "config.server", "-b", "127.0.0.1", "-p", "0",
                               "config.asgi:application"], cwd=root, env=env, preexec_fn=start_low,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    backstop = threading.Timer(120, server.kill)  # (a server that never says it: the test fails, not hangs)
    backstop.start()
    try:
        said = next((line.strip() for line in server.stdout if "Open files" in line or "Traceback" in line), "")
        limits = Path(f"/proc/{server.pid}/limits").read_text()
    finally:
        backstop.cancel()
        server.terminate()
        server.wait(60)
    shown = "unlimited" if hard == resource.RLIM_INFINITY else f"{hard:,}"
    assert said == f"Open files: at most {shown} at once, raised from {low:,}", said
    row = next(line for line in limits.splitlines() if line.startswith("Max open files")).split()
    assert row[3] == row[4] == ("unlimited" if hard == resource.RLIM_INFINITY else str(hard)), row


def test_an_unlimited_hard_limit_gives_the_largest_soft_one_the_kernel_takes_and_a_low_one_is_warned_of(
        monkeypatch, caplog):
    """macOS says "unlimited" for the hard limit and refuses it as a soft limit; a hard limit of
    a few hundred leaves the hall few connections, and the start says so."""
    from config import server

    limits = {"now": (1024, server.resource.RLIM_INFINITY)}

    def setrlimit(which, wanted):
        if wanted[0] > 10_240:  # (macOS: kern.maxfilesperproc)
            raise ValueError("current limit exceeds maximum limit")
        limits["now"] = wanted

    monkeypatch.setattr(server.resource, "getrlimit", lambda which: limits["now"])
    monkeypatch.setattr(server.resource, "setrlimit", setrlimit)
    with caplog.at_level(logging.INFO, logger="config.server"):
        assert server.raise_open_file_limit() == 10_240
        limits["now"] = (256, 512)
        assert server.raise_open_file_limit() == 512
    assert [(r.levelname, r.getMessage()) for r in caplog.records if r.name == "config.server"] == [
        ("INFO", "Open files: at most 10,240 at once, raised from 1,024"),
        ("WARNING", "Open files: at most 512 at once, raised from 256: each connection is one, so about that many "
                    "phones' pages and sockets; raise the hard limit (ulimit -Hn) for more")]


@pytest.mark.django_db
@pytest.mark.parametrize("url", ["/login/?next=/login/", "/admin/login/?next=/admin/login/", "/login/?next=/admin/login/%3Fx%3D1"])
def test_a_signed_in_organiser_sent_back_to_a_sign_in_page_goes_to_the_drives(organiser_client, url):
    """Found by probing: ``/login/?next=/login/`` opened by a signed-in organiser (a link, no
    form) was a server error with a traceback: Django's sign-in found it would redirect to itself."""
    response = organiser_client.get(url)
    assert response.status_code == 302 and response["Location"] == "/"


@pytest.mark.django_db
def test_an_organiser_the_admin_does_not_let_in_is_not_sent_round_between_it_and_its_sign_in(organiser_client, organiser):
    """Found by probing: an organiser made for their own drives (not staff) saw "Raw data" on the
    dashboard, and the admin and its sign-in sent them to each other for ever. No link; the admin's
    sign-in sends them to their drives. The laptop's organiser (staff) has both."""
    from drive.models import Drive

    drive = Drive.objects.create(organiser=organiser, name="Friday")
    assert "Raw data" not in organiser_client.get(f"/drives/{drive.pk}/").content.decode()
    to_sign_in = organiser_client.get("/admin/")
    assert to_sign_in.status_code == 302 and to_sign_in["Location"] == "/admin/login/?next=/admin/"
    response = organiser_client.get(to_sign_in["Location"])
    assert response.status_code == 302 and response["Location"] == "/"
    assert "organiser account only" in organiser_client.get("/").content.decode()
    assert organiser_client.get("/admin")["Location"] == "/admin/"  # (not a drive's code)
    organiser.is_staff = organiser.is_superuser = True
    organiser.save()
    assert "Raw data (admin)" in organiser_client.get(f"/drives/{drive.pk}/").content.decode()
    assert organiser_client.get("/admin/").status_code == 200
    back = organiser_client.get("/admin/login/?next=/admin/")
    assert back.status_code == 302 and back["Location"] == "/admin/"
