"""A phone offline for a while: its queued entry (static/js/entry.js keeps the form with its
client key in localStorage and re-sends it every 10 s and on 'online') arrives exactly once.

Server side: the same client key sent again later, even after another player has confirmed the
entry, is recorded once and answered as already received. The browser-side replay (Playwright
set_offline) is not automated here; see docs/security.md."""

from __future__ import annotations

import pytest
from django.test import Client

from scoring.models import Result, Score
from tests.factories import seated_drive, shown_for

pytestmark = pytest.mark.django_db


def phone(drive, player) -> Client:
    client = Client()
    client.cookies[f"ff_{drive.join_code}"] = player.token
    return client


def entry(key: str, by, seen: int = 0) -> dict:
    """An entry form's answers as shown to ``by`` for Table 1 of hand 1."""
    data = {"declarer": "2", "nine_card": "False", "dealer": "0", "client_key": key, "seen_revision": str(seen),
            **shown_for(by)}
    for i in range(4):
        data[f"seat{i}_sets"] = "0"
        data[f"seat{i}_ice"] = "none"
    return data


def test_a_queued_entry_resent_after_a_confirm_is_recorded_once(organiser):
    drive = seated_drive(organiser, 4)
    seats = [s.player for s in drive.hands.get().tables.get().seats.order_by("position")]
    ann, bob = phone(drive, seats[0]), phone(drive, seats[1])
    # The first send reached the server, but the answer was lost (the phone went offline).
    assert ann.post(f"/{drive.join_code}/enter", entry("queued-1", seats[0]), HTTP_ACCEPT="application/json").json()["ok"]
    bob.post(f"/{drive.join_code}/confirm", {"seen_revision": "1", **shown_for(seats[1])})
    # Back online a minute later: entry.js sends the same body again, as often as it must.
    for _ in range(3):
        answer = ann.post(f"/{drive.join_code}/enter", entry("queued-1", seats[0]), HTTP_ACCEPT="application/json").json()
        assert answer == {"ok": True, "message": "Already received.", "repeated": True}
    result = Result.objects.get()
    assert result.status == "confirmed" and result.revision == 1 and result.confirmed_by == seats[1]
    assert Score.objects.count() == 4 and Score.objects.filter(counted=True).count() == 4


def test_a_queued_key_from_another_phone_is_not_taken_as_its_own(organiser):
    drive = seated_drive(organiser, 4)
    seats = [s.player for s in drive.hands.get().tables.get().seats.order_by("position")]
    phone(drive, seats[0]).post(f"/{drive.join_code}/enter", entry("queued-2", seats[0]))
    answer = phone(drive, seats[2]).post(f"/{drive.join_code}/enter", entry("queued-2", seats[2], seen=1),
                                         HTTP_ACCEPT="application/json")
    assert answer.status_code == 200 and answer.json()["ok"] is False and "already used" in answer.json()["message"]
    assert Result.objects.get().entered_by == seats[0]


def test_a_resend_with_other_answers_is_refused_not_taken_as_a_repeat(organiser):
    """The answer to Ann's send was lost; she changed an answer and sent the form again, with its
    client key unchanged. Answered "Already received.", her change was lost without a word and
    the table confirmed the first answers. Now she is told to look at the result as it stands,
    before the close and after it (when the form is for a hand no longer played); the same
    answers sent again are still a repeat."""
    from drive import services

    drive = seated_drive(organiser, 4)
    seats = [s.player for s in drive.hands.get().tables.get().seats.order_by("position")]
    ann = phone(drive, seats[0])
    sent, changed = entry("queued-3", seats[0]), {**entry("queued-3", seats[0]), "declarer": "3"}
    assert ann.post(f"/{drive.join_code}/enter", sent, HTTP_ACCEPT="application/json").json()["ok"]
    for moment, then in (("before the close", "correct it there"), ("after the close", "ask the organiser")):
        answer = ann.post(f"/{drive.join_code}/enter", changed, HTTP_ACCEPT="application/json")
        assert answer.status_code == 200 and answer.json()["ok"] is False, moment
        message = answer.json()["message"]
        assert message.startswith("This form was sent before, with other answers than these") and then in message
        again = ann.post(f"/{drive.join_code}/enter", sent, HTTP_ACCEPT="application/json").json()
        assert again == {"ok": True, "message": "Already received.", "repeated": True}, moment
        result = Result.objects.get()
        assert result.winner == seats[2] and result.revision == 1, moment
        if moment == "before the close":
            services.close_hand(drive, force=True)


def test_an_entry_resent_as_the_last_close_ended_the_drive_is_answered_as_received(organiser):
    """The entry reached the server, its answer did not; the organiser's close of the last hand
    then accepted it and ended the drive. The resend is told "Already received.", not that no
    result can be entered any more (which said it was lost)."""
    from drive import results, services

    drive = seated_drive(organiser, 4, target="hands", target_hands=1)
    seats = [s.player for s in drive.hands.get().tables.get().seats.order_by("position")]
    ann = phone(drive, seats[0])
    assert ann.post(f"/{drive.join_code}/enter", entry("queued-4", seats[0]), HTTP_ACCEPT="application/json").json()["ok"]
    services.close_hand(drive, force=True)
    drive.refresh_from_db()
    assert drive.is_finished
    answer = ann.post(f"/{drive.join_code}/enter", entry("queued-4", seats[0]), HTTP_ACCEPT="application/json").json()
    assert answer == {"ok": True, "message": "Already received.", "repeated": True}
    result = Result.objects.get()
    assert result.revision == 1
    # The service says so too, to whichever caller sends the repeat.
    submitted = results.enter(drive, seats[0], result.summary, client_key="queued-4", seen_revision=0,
                              shown=results.Shown(1, 1, seats[0].pk))
    assert submitted.repeated and submitted.result == result


def test_a_resend_of_the_answers_sent_is_a_repeat_after_the_organiser_corrected_them(organiser):
    """A correction keeps the entry's client key: the phone's queue, resending what it sent,
    is still told "Already received.", and other answers still are no repeat."""
    from drive import services

    drive = seated_drive(organiser, 4)
    table = drive.hands.get().tables.get()
    seats = [s.player for s in table.seats.order_by("position")]
    ann = phone(drive, seats[0])
    sent = entry("queued-5", seats[0])
    assert ann.post(f"/{drive.join_code}/enter", sent, HTTP_ACCEPT="application/json").json()["ok"]
    corrected = {**Result.objects.get().summary, "declarer": 3}
    services.organiser_result(drive, table, corrected, organiser, reason="Dan declared", seen_revision=1)
    answer = ann.post(f"/{drive.join_code}/enter", sent, HTTP_ACCEPT="application/json").json()
    assert answer == {"ok": True, "message": "Already received.", "repeated": True}
    other = ann.post(f"/{drive.join_code}/enter", {**sent, "declarer": "1"}, HTTP_ACCEPT="application/json")
    assert other.status_code == 200 and other.json()["ok"] is False and "ask the organiser" in other.json()["message"]
    result = Result.objects.get()
    assert result.summary["declarer"] == 3 and result.revision == 2
