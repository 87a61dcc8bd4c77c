"""The live-update worker coalesces a burst of changes into few builds, and never drops the last."""

from __future__ import annotations

import threading
import time

import pytest

from drive import live


def test_burst_of_changes_is_coalesced_and_the_last_one_is_built(settings, monkeypatch):
    settings.LIVE_UPDATES_INLINE = False
    built: list[int] = []
    first_started = threading.Event()
    release = threading.Event()

    def slow_publish(drive_id: int) -> None:
        built.append(drive_id)
        first_started.set()
        release.wait(5)

    monkeypatch.setattr(live, "publish", slow_publish)
    live._schedule(7)
    assert first_started.wait(5)
    for _ in range(20):  # changes committed while the first build runs
        live._schedule(7)
    release.set()
    assert live.wait_idle(5)
    # One build that was running, and exactly one more that includes all 20 later changes.
    assert built == [7, 7]


def test_a_failing_build_does_not_stop_later_ones(settings, monkeypatch):
    settings.LIVE_UPDATES_INLINE = False
    calls: list[int] = []

    def flaky(drive_id: int) -> None:
        calls.append(drive_id)
        if len(calls) == 1:
            raise RuntimeError("channel layer down")

    monkeypatch.setattr(live, "publish", flaky)
    live._schedule(3)
    assert live.wait_idle(5)
    live._schedule(3)
    assert live.wait_idle(5)
    time.sleep(0.05)
    assert calls == [3, 3]


def test_a_shown_result_waits_to_gather_a_burst_and_any_other_change_cuts_the_wait(settings, monkeypatch):
    settings.LIVE_UPDATES_INLINE = False
    settings.LIVE_GATHER_SECONDS = 2.0  # long beside a busy machine's delays, so "no waiting" is clear
    built: list[float] = []
    monkeypatch.setattr(live, "publish", lambda drive_id: built.append(time.monotonic()))

    t0 = time.monotonic()
    for _ in range(10):  # a burst of results, each already shown by its own message
        live._schedule(5, True)
    assert live.wait_idle(5)
    assert len(built) == 1 and built[0] - t0 >= 1.95  # one build, after the gathering wait

    built.clear()
    t0 = time.monotonic()
    live._schedule(5, True)
    live._schedule(5)  # e.g. the organiser closes the hand: no waiting
    assert live.wait_idle(5)
    assert len(built) == 1 and built[0] - t0 < 1.5


def test_phones_get_only_the_fragments_that_changed(monkeypatch):
    monkeypatch.setattr(live.broadcast, "several_processes", lambda: False)  # one process
    live.forget_phones()
    assert live._changed_only(4, {"1": "<p>a</p>", "2": "<p>b</p>"}) == {"1": "<p>a</p>", "2": "<p>b</p>"}
    assert live._changed_only(4, {"1": "<p>a</p>", "2": "<p>B</p>"}) == {"2": "<p>B</p>"}
    assert live._changed_only(4, {"1": "<p>a</p>", "2": "<p>B</p>"}) == {}
    assert live._changed_only(5, {"1": "<p>a</p>"}) == {"1": "<p>a</p>"}  # per drive
    live.forget_phones(4)
    assert live._changed_only(4, {"1": "<p>a</p>"}) == {"1": "<p>a</p>"}


def test_a_phone_not_listening_is_forgotten_and_gets_its_next_fragment(monkeypatch):
    """A phone built for, then gone (its owner on a game screen), then back: its snapshot on
    connecting may differ from what it was last sent, so its next fragment goes, even if it
    equals that."""
    monkeypatch.setattr(live.broadcast, "several_processes", lambda: False)
    live.forget_phones()
    assert live._changed_only(4, {"1": "<p>a</p>", "2": "<p>b</p>"}, frozenset({1, 2})) == {
        "1": "<p>a</p>", "2": "<p>b</p>"}
    assert live._changed_only(4, {"1": "<p>a</p>"}, frozenset({1})) == {}  # 2 went away
    assert live._changed_only(4, {"1": "<p>a</p>", "2": "<p>b</p>"}, frozenset({1, 2})) == {"2": "<p>b</p>"}


def test_with_several_processes_every_phone_gets_its_fragment(monkeypatch):
    """Through Redis each process would remember only its own sends: nothing is skipped."""
    monkeypatch.setattr(live.broadcast, "several_processes", lambda: True)
    live.forget_phones()
    parts = {"1": "<p>a</p>", "2": "<p>b</p>"}
    assert live._changed_only(4, parts) == parts
    assert live._changed_only(4, parts) == parts


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
    monkeypatch.setattr(live, "_schedule", lambda *args: None)  # no full updates in this test
    sent: list[tuple[int, dict]] = []
    monkeypatch.setattr(live, "send_result_delta", lambda delta, *_: sent.append((threading.get_ident(), delta)))

    services.close_hand(drive, force=True)  # the bell ends the digital table: the engine records it
    live._messages.submit(lambda: None).result(5)  # the message thread has done what was queued

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
