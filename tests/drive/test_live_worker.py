"""The live-update worker coalesces a burst of changes into few builds, and never drops the last."""

from __future__ import annotations

import threading
import time

import pytest

from drive import live


@pytest.fixture
def commit(transactional_db):
    """``commit(drive_id, gather=False)``: one transaction that changes the drive
    (``live.drive_changed``), committed."""
    from django.db import transaction

    def committed(drive_id: int, gather: bool = False) -> None:
        with transaction.atomic():
            live.drive_changed(drive_id, gather=gather)

    return committed


def test_burst_of_changes_is_coalesced_and_the_last_one_is_built(settings, monkeypatch, commit):
    settings.LIVE_UPDATES_INLINE = False
    built: list[int] = []
    first_started = threading.Event()
    release = threading.Event()

    def slow_publish(drive_id: int) -> None:
        built.append(drive_id)
        first_started.set()
        release.wait(30)

    monkeypatch.setattr(live, "publish", slow_publish)
    commit(7)
    assert first_started.wait(30)
    for _ in range(20):  # changes committed while the first build runs
        commit(7)
    release.set()
    assert live.wait_idle(30)
    # One build that was running, and exactly one more that includes all 20 later changes.
    assert built == [7, 7]


def test_a_failing_build_does_not_stop_later_ones(settings, monkeypatch, commit):
    settings.LIVE_UPDATES_INLINE = False
    calls: list[int] = []

    def flaky(drive_id: int) -> None:
        calls.append(drive_id)
        if len(calls) == 1:
            raise RuntimeError("channel layer down")

    monkeypatch.setattr(live, "publish", flaky)
    commit(3)
    assert live.wait_idle(30)
    commit(3)
    assert live.wait_idle(30)
    assert calls == [3, 3]


def test_a_shown_result_waits_to_gather_a_burst_and_any_other_change_cuts_the_wait(settings, monkeypatch, commit):
    settings.LIVE_UPDATES_INLINE = False
    settings.LIVE_GATHER_SECONDS = 2.0  # long beside a busy machine's delays, so "no waiting" is clear
    built: list[float] = []
    monkeypatch.setattr(live, "publish", lambda drive_id: built.append(time.monotonic()))

    t0 = time.monotonic()
    for _ in range(10):  # a burst of results, each already shown by its own message
        commit(5, gather=True)
    assert live.wait_idle(30)
    assert len(built) == 1 and built[0] - t0 >= 1.95  # one build, after the gathering wait

    built.clear()
    settings.LIVE_GATHER_SECONDS = 120  # a wait the test does not sit out: built before it, the build did not wait
    commit(5, gather=True)
    commit(5)  # e.g. the organiser closes the hand: no waiting
    assert live.wait_idle(60)
    assert len(built) == 1


@pytest.mark.django_db(transaction=True)
def test_a_digital_tables_result_message_is_read_after_its_commit_off_the_applying_thread(
    settings, monkeypatch, organiser
):
    """The engine records a digital table's result in the thread that applies moves, under the
    table's lock: its result message (several queries) is read after the commit in a thread of
    its own, and says what committed."""
    from drive import services
    from drive.selectors import standings
    from tests.factories import seated_drive

    drive = seated_drive(organiser, 8, start=False)
    services.set_table_mode(drive, 2, "digital")
    services.start_hand(drive)
    settings.LIVE_UPDATES_INLINE = False
    monkeypatch.setattr(live, "drive_changed", lambda *args, **kwargs: None)  # no full updates in this test
    sent: list[tuple[int, dict]] = []
    arrived = threading.Event()

    def spy(delta, *_):
        sent.append((threading.get_ident(), delta))
        arrived.set()

    monkeypatch.setattr(live, "send_result_delta", spy)

    services.close_hand(drive, force=True)  # the bell ends the digital table: the engine records it
    assert arrived.wait(30)  # sent by the message thread

    assert [(delta["table"], delta["status"]) for _thread, delta in sent] == [(2, "confirmed")]
    thread, delta = sent[0]
    assert thread != threading.get_ident()
    assert delta["progress"]["done"] == 2
    table = drive.hands.get(number=1).tables.get(number=2)
    seated = {s.player_id for s in table.seats.all()}
    committed = {str(r.row.player_id): r.total for r in standings(drive) if r.row.player_id in seated}
    assert {pid: t["total"] for pid, t in delta["totals"].items()} == committed
    # Everybody's place, ranked on the server (the pages only apply it).
    assert delta["ranks"] == [[str(r.row.player_id), r.label] for r in standings(drive)]


def test_waiting_for_the_live_updates_waits_for_the_result_messages_too(transactional_db, settings, monkeypatch,
                                                                          organiser):
    """A command that ends as its results' messages are sent (``manage.py demo_drive``) waits
    for them (``wait_idle``): an interpreter that exited meanwhile failed their sends with a
    traceback ("cannot schedule new futures after interpreter shutdown", found by probing)."""
    from drive import services
    from tests.factories import seated_drive

    drive = seated_drive(organiser, 8, start=False)
    services.set_table_mode(drive, 2, "digital")
    services.start_hand(drive)
    settings.LIVE_UPDATES_INLINE = False
    monkeypatch.setattr(live, "drive_changed", lambda *args, **kwargs: None)  # no full updates in this test
    release, sent = threading.Event(), []

    def held(delta, *_):
        release.wait(60)
        sent.append(delta["table"])

    monkeypatch.setattr(live, "send_result_delta", held)
    services.close_hand(drive, force=True)  # the bell ends the digital table: its result message is queued
    assert not live.wait_idle(0.2) and sent == []  # held: not idle, whatever the machine's speed
    release.set()
    assert live.wait_idle(30) and sent == [2]
