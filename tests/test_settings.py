"""The settings: read from the environment through config/env.py, a bad value stopping start-up
or a command with its name and no traceback; the embedded defaults and the deployment checks."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.exceptions import ImproperlyConfigured

from config import env


def test_env_bool_accepts_the_usual_spellings(monkeypatch):
    for raw, expected in [("1", True), ("yes", True), ("ON", True), ("0", False), ("false", False), ("", False)]:
        monkeypatch.setenv("X_FLAG", raw)
        assert env.env_bool("X_FLAG", not expected) is expected


def test_env_bool_refuses_nonsense_and_names_the_variable(monkeypatch):
    monkeypatch.setenv("X_FLAG", "maybe")
    with pytest.raises(ImproperlyConfigured, match="X_FLAG"):
        env.env_bool("X_FLAG", False)


def test_env_int_refuses_out_of_range(monkeypatch):
    monkeypatch.setenv("X_PORT", "70000")
    with pytest.raises(ImproperlyConfigured, match="X_PORT"):
        env.env_int("X_PORT", 8000, minimum=1, maximum=65535)
    monkeypatch.setenv("X_PORT", "eighty")
    with pytest.raises(ImproperlyConfigured, match="X_PORT"):
        env.env_int("X_PORT", 8000)


def test_a_bad_setting_stops_a_command_with_its_message_and_no_traceback():
    """Found from outside: ``PORT=abc manage.py banner`` printed thirty lines of traceback
    before the message that names the variable."""
    root = Path(__file__).resolve().parent.parent
    run = subprocess.run([sys.executable, str(root / "manage.py"), "banner"], capture_output=True, text=True,
                         env={**os.environ, "PORT": "abc"}, cwd=root, timeout=120)
    assert run.returncode == 1
    assert run.stderr.strip() == "Not started: PORT must be a whole number; got 'abc'."


def test_a_data_folder_that_cannot_be_one_stops_a_command_with_its_message(tmp_path):
    """Found from outside: DATA_DIR naming a file, or a folder that cannot be made, printed a
    traceback; set but empty, it put a fresh database in the current folder."""
    root = Path(__file__).resolve().parent.parent
    afile = tmp_path / "afile"
    afile.write_text("")
    for value in (str(afile), str(afile / "sub")):
        run = subprocess.run([sys.executable, str(root / "manage.py"), "banner"], capture_output=True, text=True,
                             env={**os.environ, "DATA_DIR": value}, cwd=root, timeout=120)
        assert run.returncode == 1
        assert run.stderr.strip().startswith(f"Not started: DATA_DIR must be a folder this user may write in; {value!r}: ")
        assert "Traceback" not in run.stderr
    run = subprocess.run([sys.executable, "-c", "import django; from django.conf import settings; django.setup(); "
                          "print(settings.DATA_DIR)"], capture_output=True, text=True, cwd=tmp_path, timeout=120,
                         env={**os.environ, "DATA_DIR": " ", "DJANGO_SETTINGS_MODULE": "config.settings",
                              "PYTHONPATH": str(root)})
    assert run.stdout.strip() == str(root / "data")
    assert [p for p in tmp_path.iterdir() if p != afile] == []  # nothing made in the current folder


def test_a_database_url_that_would_lose_the_evening_or_cannot_open_stops_a_command(tmp_path):
    """Found by probing: ``DATABASE_URL=sqlite://`` (in memory) ran a whole server that lost
    everything when it stopped, and a file in a missing folder failed with a traceback."""
    root = Path(__file__).resolve().parent.parent
    for url, said in (("sqlite://", "DATABASE_URL must name a SQLite file (sqlite:////path/to/drive.sqlite3), not "
                                    "an in-memory database, which loses every drive when the server stops."),
                      (f"sqlite:///{tmp_path}/nowhere/x.db", "DATABASE_URL names a SQLite file in a folder that does "
                                                             f"not exist: '{tmp_path}/nowhere/x.db'.")):
        run = subprocess.run([sys.executable, str(root / "manage.py"), "banner"], capture_output=True, text=True,
                             env={**os.environ, "DATABASE_URL": url}, cwd=root, timeout=120)
        assert run.returncode == 1 and run.stderr.strip() == f"Not started: {said}", run.stderr


def test_a_command_that_changes_a_drive_ends_without_a_traceback(tmp_path):
    """Found by probing: ``manage.py shell -c`` adding a player printed two tracebacks at its exit
    (the live update it queued, failed by the interpreter's shutdown)."""
    root = Path(__file__).resolve().parent.parent
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL")}
    env["DATA_DIR"] = str(tmp_path)
    manage = [sys.executable, str(root / "manage.py")]
    subprocess.run([*manage, "migrate", "--noinput"], env=env, cwd=root, check=True, capture_output=True, timeout=300)
    code = ("from django.contrib.auth import get_user_model\nfrom drive import services\nfrom drive.models import Drive\n"
            "u = get_user_model().objects.create_user(username='olive')\n"
            "services.add_players(Drive.objects.create(organiser=u, name='Probe'), ['Zed'])\nprint('done')")
    run = subprocess.run([*manage, "shell", "-c", code], env=env, cwd=root, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0 and run.stdout.strip().endswith("done"), run.stderr
    assert "Traceback" not in run.stderr and "never awaited" not in run.stderr, run.stderr


def test_env_int_names_the_one_bound_it_has(monkeypatch):
    monkeypatch.setenv("X_SECONDS", "-5")
    with pytest.raises(ImproperlyConfigured, match=r"^X_SECONDS must be at least 0; got -5\.$"):
        env.env_int("X_SECONDS", 0, minimum=0)
    monkeypatch.setenv("X_SECONDS", "99")
    with pytest.raises(ImproperlyConfigured, match=r"^X_SECONDS must be at most 10; got 99\.$"):
        env.env_int("X_SECONDS", 0, maximum=10)


def test_env_url_refuses_wrong_scheme(monkeypatch):
    monkeypatch.setenv("X_URL", "mysql://localhost/db")
    with pytest.raises(ImproperlyConfigured, match="X_URL"):
        env.env_url("X_URL", {"postgres"})


def test_env_time_zone_takes_a_zone_name_and_refuses_others(monkeypatch):
    monkeypatch.setenv("X_TZ", " America/New_York ")
    assert env.env_time_zone("X_TZ", "Europe/London") == "America/New_York"
    monkeypatch.setenv("X_TZ", "")
    assert env.env_time_zone("X_TZ", "Europe/London") == "Europe/London"
    for bad in ("Mars/Olympus", "GMT+25", "../etc/passwd"):
        monkeypatch.setenv("X_TZ", bad)
        with pytest.raises(ImproperlyConfigured, match="X_TZ must be a time zone name"):
            env.env_time_zone("X_TZ", "Europe/London")


def _start_settings(extra_env: dict[str, str]) -> subprocess.CompletedProcess:
    import os

    environment = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL", "SECRET_KEY", "DEBUG")}
    environment.update(extra_env)
    return subprocess.run(
        [sys.executable, "manage.py", "check"], env=environment, capture_output=True, text=True, timeout=120
    )


def test_bad_setting_stops_start_up_with_its_name():
    result = _start_settings({"DEBUG": "perhaps"})
    assert result.returncode != 0
    assert "DEBUG must be one of" in result.stderr


def test_a_bad_log_level_stops_start_up_with_its_name():
    result = _start_settings({"LOG_LEVEL": "loud"})
    assert result.returncode != 0
    assert "LOG_LEVEL must be one of DEBUG, INFO, WARNING, ERROR; got 'loud'." in result.stderr


def test_a_bad_time_zone_stops_start_up_with_its_name():
    result = _start_settings({"TIME_ZONE": "Europe/Lundun"})
    assert result.returncode != 0
    assert "TIME_ZONE must be a time zone name" in result.stderr


def test_the_embedded_defaults_serve_with_debug_off_and_a_secret_key_kept_in_the_data_directory(tmp_path):
    """`make run` serves the hall's Wi-Fi: no debug page for anyone there, and with no SECRET_KEY
    set, one generated at the first start, readable by this user only, and the same at the next."""
    show = "from django.conf import settings; print('SETTINGS', settings.DEBUG, settings.SECRET_KEY)"

    def start() -> list[str]:
        import os

        environment = {k: v for k, v in os.environ.items()
                       if k not in ("DATABASE_URL", "REDIS_URL", "SECRET_KEY", "DEBUG", "DJANGO_SETTINGS_MODULE")}
        result = subprocess.run([sys.executable, "manage.py", "shell", "-c", show], capture_output=True, text=True,
                                env={**environment, "DATA_DIR": str(tmp_path)}, timeout=120)
        assert result.returncode == 0, result.stderr
        return next(line for line in result.stdout.splitlines() if line.startswith("SETTINGS")).split()[1:]

    debug, key = start()
    assert debug == "False" and len(key) >= 50
    assert (tmp_path / "secret_key").stat().st_mode & 0o777 == 0o600
    assert start() == ["False", key]


def test_check_deploy_is_clean_with_production_settings():
    result = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        env={
            **{k: v for k, v in __import__("os").environ.items() if k not in ("DATABASE_URL", "REDIS_URL")},
            "DEBUG": "0", "HTTPS": "1", "ALLOWED_HOSTS": "drive.example",
            "SECRET_KEY": "x" * 20 + "a-much-longer-secret-key-with-variety-0123456789-!@#$%",
        },
        capture_output=True, text=True, timeout=120,
    )
    assert result.returncode == 0, result.stderr
