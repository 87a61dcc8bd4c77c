"""drive/render.py: full live updates are built in a child process of the server, and in the
server's own thread when that child cannot be used."""

from __future__ import annotations

import os

import pytest

from drive import broadcast, live, pages, render


@pytest.fixture
def render_process(settings):
    settings.LIVE_RENDER_PROCESS = True
    settings.LIVE_UPDATES_INLINE = False
    yield
    render.stop()


def test_a_build_runs_in_the_render_process(render_process):
    assert render.start() is True
    child = render.run(os.getpid)
    assert isinstance(child, int) and child != os.getpid()
    assert render.run(os.getpid) == child  # one child, kept between builds
    assert render.run(os.nice, 0) == min(19, os.nice(0) + render.NICE)  # background priority


def test_a_dead_render_process_is_replaced_and_the_build_still_happens(render_process):
    first = render.run(os.getpid)
    os.kill(first, 9)
    assert render.run(os.getpid) == os.getpid()  # this build: in the server, nothing lost
    second = render.run(os.getpid)
    assert second not in (first, os.getpid())  # the next: a new child


def test_an_error_in_a_build_is_raised_to_the_caller_and_the_child_stays(render_process):
    child = render.run(os.getpid)
    with pytest.raises(FileNotFoundError):
        render.run(os.stat, "/no/such/file")
    assert render.run(os.getpid) == child


def test_without_the_render_process_builds_run_here(settings):
    settings.LIVE_RENDER_PROCESS = False
    settings.LIVE_UPDATES_INLINE = False
    assert render.start() is False
    assert render.run(os.getpid) == os.getpid()


@pytest.mark.django_db(transaction=True)
def test_the_render_process_builds_a_drives_update_from_the_same_database(render_process, organiser):
    from tests.factories import seated_drive

    drive = seated_drive(organiser, 8)  # its changes are published by the worker, through the child
    assert live.wait_idle(120)  # the first build starts the render process: niced, slow on a busy machine
    phones, screens = render.run_in_order([(live.build_phones, drive.pk), (live.build_screens, drive.pk)])
    assert [(g, m["audience"]) for g, m in screens] == [
        (broadcast.drive_group(drive.pk, "organiser"), "organiser"), (broadcast.drive_group(drive.pk, "board"), "board")]
    assert "0 of 2 tables done" in screens[1][1]["parts"]["board"] and screens[1][1]["read"] > 0
    everyone = sorted(str(p.pk) for p in drive.players.all())
    if not broadcast.several_processes():  # one process: it knows every phone socket
        # No phone's live page is open: the worker's builds sent none, so a build for all
        # phones sends all; then only what changed goes; a build for none sends none.
        assert phone_ids(phones) == everyone
        assert render.run(live.build_phones, drive.pk) == []
        assert render.run(live.build_phones, drive.pk, frozenset()) == []
    render.stop()
    phones = render.run(live.build_phones, drive.pk)  # a new child has sent nothing yet
    assert phone_ids(phones) == everyone


def phone_ids(messages):
    """Whose fragments the phones' messages carry: one group per phone (in memory), or one
    message for every phone whose parts are keyed by player (Redis)."""
    ids = []
    for group, msg in messages:
        ids += [group.split("-", 1)[1]] if group.startswith("player-") else list(msg["parts"])
    return sorted(ids)


SERVER = """
import os, sys, time
import django
django.setup()
from django.conf import settings
settings.LIVE_RENDER_PROCESS = True
from drive import render
print(render.run(os.getpid), flush=True)
time.sleep(60)
"""


def _gone(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/status") as f:
            return any(line.startswith("State:") and "Z" in line for line in f)  # a zombie has ended
    except FileNotFoundError:
        return True


def test_the_render_process_ends_when_its_server_is_killed(tmp_path):
    import signal
    import subprocess
    import sys
    import time

    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings", "DATA_DIR": str(tmp_path),
           "LIVE_RENDER_PROCESS": "1"}
    env.pop("DATABASE_URL", None)
    server = subprocess.Popen([sys.executable, "-c", SERVER], env=env, stdout=subprocess.PIPE, text=True,
                              cwd=os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
    try:
        child = int(server.stdout.readline())
        assert child != server.pid and not _gone(child)
        server.send_signal(signal.SIGKILL)
        server.wait(30)
        deadline = time.monotonic() + 30
        while not _gone(child) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert _gone(child)
    finally:
        server.kill()


@pytest.mark.django_db
def test_the_screens_come_from_the_views_read_for_the_phones(settings, monkeypatch, organiser):
    """One update reads the drive once for both halves: the phones' (the public view, during
    suspense) and the screens' (the dashboard's private view, the board's public one)."""
    from drive import selectors
    from tests.factories import seated_drive

    settings.LIVE_RENDER_PROCESS = False
    drive = seated_drive(organiser, 4, suspense_hands=1)
    reads = []
    monkeypatch.setattr(selectors, "drive_view", lambda drive, public=False: reads.append(public) or (
        "public" if public else "private"))
    monkeypatch.setattr(live, "phone_messages", lambda view, listening=None, read=None: [("player-1", {"view": view})])
    monkeypatch.setattr(pages, "dashboard_parts", lambda view: {"dashboard": view})
    monkeypatch.setattr(pages, "board_parts", lambda view: {"board": view})
    phones, screens = render.run_in_order([(live.build_phones, drive.pk), (live.build_screens, drive.pk)])
    assert phones == [("player-1", {"view": "public"})]
    assert [(g, m["parts"]) for g, m in screens] == [
        (broadcast.drive_group(drive.pk, "organiser"), {"dashboard": "private"}),
        (broadcast.drive_group(drive.pk, "board"), {"board": "public"})]
    assert screens[0][1]["read"] == screens[1][1]["read"] > 0
    assert sorted(reads) == [False, True]  # one read for both halves
    live.build_screens(drive.pk)  # without its phones' half first: it reads for itself
    assert sorted(reads) == [False, False, True, True]


@pytest.mark.django_db(transaction=True)
def test_a_fallback_build_forgets_what_this_process_remembered(settings, monkeypatch, organiser):
    """A build the render process cannot make in time runs here; what this process remembers
    of an earlier fallback (the phones it sent, a view read for the screens) is older than what
    the render process may have sent since: forgotten, so every phone gets its fragment and the
    screens show the drive as it is now."""
    from drive import services
    from tests.factories import declared, seated_drive

    drive = seated_drive(organiser, 8)
    everyone = sorted(str(p.pk) for p in drive.players.all())
    settings.LIVE_RENDER_PROCESS, settings.LIVE_UPDATES_INLINE = True, False
    monkeypatch.setattr(render, "TIMEOUT", 0)  # no build is ever ready in time: each one falls back
    monkeypatch.setattr(live, "drive_changed", lambda *args, **kwargs: None)  # only the builds made here
    try:
        assert phone_ids(render.run(live.build_phones, drive.pk)) == everyone  # here: its phones and view kept
        table = drive.hands.get().tables.get(number=1)
        services.organiser_result(drive, table, declared(4, 0), organiser)
        screens = render.run(live.build_screens, drive.pk)  # here again
        assert "1 of 2 tables done" in screens[1][1]["parts"]["board"]  # read now, not the view kept
        if not broadcast.several_processes():  # one process: it remembers what it sent
            assert phone_ids(render.run(live.build_phones, drive.pk)) == everyone  # all again, not the changed only
    finally:
        render.stop()
