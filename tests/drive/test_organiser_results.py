"""Results the organiser types or corrects on a table's result page: impossible and stale forms
refused, double sends saved once, corrections with a reason, disputes settled, and the corrections
log."""

from __future__ import annotations

import csv
import io
import re

import pytest
from django.contrib.messages import get_messages
from django.test import Client

from drive import results as phone_results
from drive import services
from drive.results import Shown
from scoring.models import Correction, Result
from tests.factories import declared, seated_drive

pytestmark = pytest.mark.django_db


def one_table(organiser):
    """A drive of four seated at one table, hand 1 started: the drive and its table."""
    drive = seated_drive(organiser, 4)
    return drive, drive.hands.get().tables.get()


def result_form(**fields: str) -> dict:
    """The result form of a table of four with no seat holding a set or ice, and ``fields``."""
    return {**fields, **{f"seat{i}_sets": "0" for i in range(4)}, **{f"seat{i}_ice": "none" for i in range(4)}}


def test_impossible_result_shows_what_is_wrong(organiser_client, organiser):
    drive, table = one_table(organiser)
    data = result_form(declarer="0", nine_card="True", dealer="0", seen_revision="0")
    data["seat2_ice"] = "joker"  # the only Joker is in the nine-card declaration
    response = organiser_client.post(f"/drives/{drive.pk}/results/{table.pk}", data)
    assert response.status_code == 200
    assert "Joker" in response.content.decode()
    assert not Result.objects.exists()


def test_garbage_result_form_is_refused(organiser_client, organiser):
    drive, table = one_table(organiser)
    response = organiser_client.post(f"/drives/{drive.pk}/results/{table.pk}", {"declarer": "9", "seat0_sets": "x", "seen_revision": "0"})
    assert response.status_code == 200
    assert "Choose one of the answers shown." in response.content.decode()
    assert not Result.objects.exists()


def test_correction_through_the_page_requires_a_reason(organiser_client, organiser):
    drive, table = one_table(organiser)
    services.organiser_result(drive, table, declared(4, 0), organiser)
    data = result_form(declarer="2", nine_card="False", dealer="0", reason="", seen_revision="1")
    response = organiser_client.post(f"/drives/{drive.pk}/results/{table.pk}", data)
    assert "Give a reason" in response.content.decode()
    # One too long (a forged form: the box takes 300) is refused, and the page says why.
    response = organiser_client.post(f"/drives/{drive.pk}/results/{table.pk}", {**data, "reason": "x" * 301})
    assert response.status_code == 200 and not Correction.objects.exists()
    assert "Keep the reason for the correction to 300 characters (it has 301)." in response.content.decode()
    # Counted as the log would keep it ("\ufdfa" is one character typed, eighteen kept), and no
    # control character.
    response = organiser_client.post(f"/drives/{drive.pk}/results/{table.pk}", {**data, "reason": "\ufdfa" * 17})
    assert "Keep the reason for the correction to 300 characters (it has 306)." in response.content.decode()
    response = organiser_client.post(f"/drives/{drive.pk}/results/{table.pk}", {**data, "reason": "typo\x1b[31m"})
    assert "A reason can hold letters, digits and punctuation, not control characters." in response.content.decode()
    assert not Correction.objects.exists()
    data["reason"] = "Cy declared"
    organiser_client.post(f"/drives/{drive.pk}/results/{table.pk}", data)
    assert Correction.objects.get().reason == "Cy declared"


def test_a_correction_sent_twice_or_on_a_result_changed_meanwhile_is_refused(organiser_client, organiser):
    """Found by probing: the same correction sent twice at once was logged twice (and three no-op
    corrections were possible); the form carried no revision, so it could also overwrite a
    phone's newer entry unseen. It carries the revision it showed now."""
    drive, table = one_table(organiser)
    services.organiser_result(drive, table, declared(4, 0), organiser)
    page = organiser_client.get(f"/drives/{drive.pk}/results/{table.pk}").content.decode()
    assert 'name="seen_revision" value="1"' in page
    data = result_form(declarer="2", nine_card="False", dealer="0", reason="Cy declared", seen_revision="1")
    assert organiser_client.post(f"/drives/{drive.pk}/results/{table.pk}", data).status_code == 302
    again = organiser_client.post(f"/drives/{drive.pk}/results/{table.pk}", data)  # the second of a double submit
    assert again.status_code == 200 and "was changed while you were looking" in again.content.decode()
    assert Correction.objects.count() == 1 and Result.objects.get().revision == 2
    # The refused form keeps the revision it was shown with: saved again as it is, refused again.
    assert 'name="seen_revision" value="1"' in again.content.decode()
    for odd in ("²", "x", ""):  # not a revision: as if none was sent (no server error)
        response = organiser_client.post(f"/drives/{drive.pk}/results/{table.pk}", {**data, "seen_revision": odd})
        assert response.status_code == 302 and "does not say which version" in "".join(
            str(m) for m in get_messages(response.wsgi_request))
    data["seen_revision"] = "2"  # seen as it stands, and the same again: nothing to correct
    same = organiser_client.post(f"/drives/{drive.pk}/results/{table.pk}", data)
    assert "nothing to correct" in same.content.decode() and Correction.objects.count() == 1


def test_a_result_form_that_does_not_say_which_version_it_showed_is_refused(organiser_client, organiser):
    """Found by a probe from outside: the result page's form, posted by hand without its
    revision, skipped the check that it showed the result as it stands, and overwrote whatever
    was there (a phone's newer entry, a paper result typed meanwhile). It is refused as the
    dashboard's forms that do not say which hand they showed are: nothing written, and the page
    opened anew with why."""
    drive, table = one_table(organiser)
    url = f"/drives/{drive.pk}/results/{table.pk}"
    data = result_form(declarer="2", nine_card="False", dealer="0", reason="Cy declared")
    for existing in (False, True):  # a paper result typed in; a correction
        if existing:
            services.organiser_result(drive, table, declared(4, 0), organiser)
        before = list(Result.objects.values("summary", "revision", "status")), Correction.objects.count()
        response = organiser_client.post(url, data)
        assert response.status_code == 302 and response["Location"] == url
        assert (list(Result.objects.values("summary", "revision", "status")), Correction.objects.count()) == before
        page = organiser_client.get(url).content.decode()
        assert ("This page is out of date: it does not say which version of the result it showed. "
                "Nothing was saved. Look again.") in page
        assert f'name="seen_revision" value="{1 if existing else 0}"' in page  # opened anew: as it stands
    assert organiser_client.post(url, {**data, "seen_revision": "1"})["Location"] == f"/drives/{drive.pk}/"
    assert Result.objects.get().summary["declarer"] == 2 and Correction.objects.count() == 1


def test_a_paper_result_typed_while_a_phone_entered_one_is_refused_not_made_a_correction(organiser_client, organiser):
    """Found by a probe from outside: the organiser opened a table's empty result form, a phone
    entered the table's result meanwhile (or "Close anyway" in another tab recorded it as not
    played), and the organiser's save was taken for a correction of a result never seen: "Give
    a reason", and with one it replaced the phone's entry. The empty form says it saw no result
    (revision 0) and is refused like any form shown before the result changed."""
    drive, table = one_table(organiser)
    page = organiser_client.get(f"/drives/{drive.pk}/results/{table.pk}").content.decode()
    assert 'name="seen_revision" value="0"' in page
    seated = [s.player for s in table.seats.order_by("position")]
    phone_results.enter(drive, seated[0], declared(4, 1), client_key="k", seen_revision=0,
                        shown=Shown(1, 1, seated[0].pk))
    data = result_form(declarer="2", nine_card="False", dealer="0", reason="from the paper", seen_revision="0")
    response = organiser_client.post(f"/drives/{drive.pk}/results/{table.pk}", data)
    assert response.status_code == 200
    assert "Table 1 has a result now that it did not have when you opened this page" in response.content.decode()
    result = Result.objects.get()
    assert (result.summary["declarer"], result.status, result.revision) == (1, Result.Status.ENTERED, 1)
    assert Correction.objects.count() == 0
    assert 'name="seen_revision" value="0"' in response.content.decode()  # sent again: refused again
    # So the page says so and offers no save that must fail, only the way to open it again
    # (its button stayed enabled, and every save failed the same way).
    assert re.search(r'<button class="primary big" disabled>', response.content.decode())
    assert f'<a href="/drives/{drive.pk}/results/{table.pk}" data-open-again>Open it again</a>' in response.content.decode()
    # Opened anew, it shows the phone's entry: corrected from there, with a reason.
    page = organiser_client.get(f"/drives/{drive.pk}/results/{table.pk}").content.decode()
    assert 'name="seen_revision" value="1"' in page
    assert organiser_client.post(f"/drives/{drive.pk}/results/{table.pk}", {**data, "seen_revision": "1"}).status_code == 302
    assert Result.objects.get().summary["declarer"] == 2 and Correction.objects.count() == 1


def test_a_paper_result_sent_twice_is_saved_once_and_the_second_says_saved(organiser_client, organiser):
    """A double click on "Save the result" of an empty form: the second request is not told that
    a result came meanwhile (it is this one), nor is anything written twice."""
    drive, table = one_table(organiser)
    data = result_form(declarer="2", nine_card="False", dealer="0", seen_revision="0")
    for _ in range(2):
        response = organiser_client.post(f"/drives/{drive.pk}/results/{table.pk}", data, follow=True)
        assert "Table 1, hand 1: result saved." in response.content.decode()
    result = Result.objects.get()
    assert (result.revision, result.status, Correction.objects.count()) == (1, Result.Status.CONFIRMED, 0)
    data["declarer"] = "3"  # other answers on a form that showed no result: refused, as a phone's entry is
    response = organiser_client.post(f"/drives/{drive.pk}/results/{table.pk}", data)
    assert "has a result now that it did not have" in response.content.decode()
    assert Result.objects.get().summary["declarer"] == 2


def test_a_correction_that_changes_who_moved_after_the_close_says_the_moves_stand(organiser_client, organiser):
    """Found by a probe from outside (two tabs): a result corrected after its hand was closed in
    another tab, now with another declarer, said only "result saved." while the next hand's
    seating had been made from the declarer as it was: the organiser was not told that the
    moves stand as made. The correction is saved and the page says so, naming both players."""
    drive = seated_drive(organiser, 8)
    t1, t2 = drive.hands.get().tables.order_by("number")
    seated = [s.player for s in t1.seats.order_by("position")]
    phone_results.enter(drive, seated[0], declared(4, 1), client_key="k", seen_revision=0,
                        shown=Shown(1, 1, seated[0].pk))
    page = organiser_client.get(f"/drives/{drive.pk}/results/{t1.pk}").content.decode()  # tab A
    assert 'name="seen_revision" value="1"' in page
    services.organiser_result(drive, t2, declared(4, 0), organiser)
    hand2 = services.close_hand(drive, force=True)  # tab B
    seating = sorted(hand2.seats.values_list("player_id", "table__number", "position"))
    data = result_form(declarer="3", nine_card="False", dealer="0", reason="Di declared", seen_revision="1")
    response = organiser_client.post(f"/drives/{drive.pk}/results/{t1.pk}", data, follow=True)
    page = response.content.decode()
    assert "Table 1, hand 1: result saved." in page
    assert (f"Hand 1 is closed: its moves stand as made, with <bdi>{seated[1].name}</bdi> counted as the one who "
            f"stayed at the top table, not <bdi>{seated[3].name}</bdi>. Swap players in the seating for hand 2 "
            "if they should sit otherwise.") in page
    assert Result.objects.get(table=t1).mover_id == seated[3].pk
    assert sorted(hand2.seats.values_list("player_id", "table__number", "position")) == seating
    # The closed hand's page says the moves as made, not as the corrected result would make them
    # (it named the corrected declarer as staying, and the player on their left).
    hand_page = organiser_client.get(f"/drives/{drive.pk}/hands/1").content.decode()
    card = hand_page[hand_page.index('id="table-1"'):]
    card = card[:card.index("</article>")]
    assert (f'<strong><bdi>{seated[1].name}</bdi></strong> stayed at the top table · '
            f'<strong><bdi>{seated[2].name}</bdi></strong> moved down') in card
    # The hands' export says who moved (it named the corrected declarer).
    rows = list(csv.reader(io.StringIO(organiser_client.get(f"/drives/{drive.pk}/export/hands.csv")
                                       .content.decode("utf-8-sig"))))
    moved = rows[0].index("mover")
    assert [r[2] for r in rows[1:] if r[:2] == ["1", "1"] and r[moved] == "1"] == [seated[1].name]
    # Corrected again, back to Bob and then to Cy: still said against the move as made.
    page = organiser_client.post(f"/drives/{drive.pk}/results/{t1.pk}", {**data, "declarer": "2", "seen_revision": "2"},
                                 follow=True).content.decode()
    assert f"with <bdi>{seated[1].name}</bdi> counted as the one who stayed at the top table, not <bdi>{seated[2].name}</bdi>" in page
    # Table 2 corrected with the same declarer (another player's sets): nothing to say of the moves.
    page = organiser_client.post(f"/drives/{drive.pk}/results/{t2.pk}", {**data, "declarer": "0", "seat1_sets": "1",
                                                                          "seen_revision": "1"}, follow=True).content.decode()
    assert "Table 2, hand 1: result saved." in page and "moves stand" not in page


def test_the_same_answers_on_a_table_of_six_are_nothing_to_correct(organiser_client, organiser):
    """Found by a tester: with two packs (six or more players) the form always answers the
    second Ice Follies question, which a digital hand's record leaves out when there is none:
    saving the answers exactly as shown was logged as a correction, and the result's source
    changed. The record and the form are compared with the form's defaults filled in."""
    drive = seated_drive(organiser, 6, preferred_table_size=6)
    table = drive.hands.get().tables.get()
    services.organiser_result(drive, table, declared(6, 0), organiser)  # holdings without "ice2"
    assert "ice2" not in Result.objects.get().summary["holdings"][1]
    data = {"declarer": "0", "nine_card": "False", "dealer": "0", "reason": "checked", "seen_revision": "1"}
    for i in range(6):
        data.update({f"seat{i}_sets": "0", f"seat{i}_ice": "none", f"seat{i}_ice2": "none"})
    response = organiser_client.post(f"/drives/{drive.pk}/results/{table.pk}", data)
    assert response.status_code == 200 and "nothing to correct" in response.content.decode()
    assert Correction.objects.count() == 0 and Result.objects.get().revision == 1
    data["seat1_ice2"] = "joker_three"  # moot: seat 1 holds no first group (the page hides it)
    organiser_client.post(f"/drives/{drive.pk}/results/{table.pk}", data)
    assert Correction.objects.count() == 0
    data.update({"seat1_ice": "four", "seat1_ice2": "joker_three"})  # a real change is still a correction
    organiser_client.post(f"/drives/{drive.pk}/results/{table.pk}", data)
    assert Correction.objects.count() == 1


def test_the_corrections_log_says_by_name_who_declared_and_whose_points_changed(organiser_client, organiser):
    """Found by a tester: the log showed the stored snapshots, player ids and all
    ({'76': 0, '77': -5} → …)."""
    drive, table = one_table(organiser)
    services.organiser_result(drive, table, declared(4, 0), organiser)
    services.organiser_result(drive, table, declared(4, 1, nine=True), organiser, reason="Bob declared")
    first, second, third, _ = [s.player for s in table.seats.select_related("player").order_by("position")]
    page = organiser_client.get(f"/drives/{drive.pk}/log").content.decode()
    assert f"Won: <bdi>{first.name}</bdi> → <bdi>{second.name}</bdi>" in page
    assert f'<li class="changed"><bdi>{first.name}</bdi>: 15 → 0</li>' in page
    assert f'<li class="changed"><bdi>{second.name}</bdi>: 0 → 25</li>' in page
    assert f"<li><bdi>{third.name}</bdi>: 0, unchanged</li>" in page
    assert f"'{first.pk}'" not in page and "Bob declared" in page and "Hand 1, Table 1" in page


def test_the_organiser_settles_a_dispute_by_keeping_the_entry_as_it_was(organiser):
    """A disputed entry that was right after all: saved unchanged, with a reason, it is confirmed
    and the reason logged (not refused as 'nothing to correct')."""
    from drive import results as phone_results

    drive, table = one_table(organiser)
    seated = [s.player for s in table.seats.order_by("position")]
    phone_results.enter(drive, seated[0], declared(4, 1), client_key=None, seen_revision=0,
                        shown=Shown(1, 1, seated[0].pk))
    phone_results.dispute(drive, seated[1], seen_revision=1, shown=Shown(1, 1, seated[1].pk), reason="Bob did not declare")
    result = Result.objects.get()
    assert result.status == Result.Status.DISPUTED
    # The page says how (found in a browser: only "Save the correction" was offered).
    client = Client()
    client.force_login(organiser)
    page = client.get(f"/drives/{drive.pk}/results/{table.pk}").content.decode()
    assert "<span data-uphold>To uphold the entry as it stands, save it unchanged, with a reason.</span>" in page
    services.organiser_result(drive, table, result.summary, organiser, reason="checked: he did",
                              seen_revision=result.revision)
    result.refresh_from_db()
    assert result.status == Result.Status.CONFIRMED and result.summary == declared(4, 1)
    assert Correction.objects.get().reason == "checked: he did"
    # The result no longer holds the dispute; the log keeps what the player said.
    assert "data-uphold" not in client.get(f"/drives/{drive.pk}/results/{table.pk}").content.decode()
    log = client.get(f"/drives/{drive.pk}/log").content.decode()
    assert "checked: he did" in log and "It settled a dispute: “<bdi>Bob did not declare</bdi>”" in log


def test_a_finished_drives_result_page_shows_the_result_with_no_form_to_change_it(organiser_client, organiser):
    """After the drive ended, a result's page still offered the whole correction
    form, refused only once filled in and saved. It shows the result, final."""
    drive = seated_drive(organiser, 4, target="hands", target_hands=1)
    table = drive.hands.get().tables.get()
    services.organiser_result(drive, table, declared(4, 1), organiser)
    services.close_hand(drive)
    drive.refresh_from_db()
    assert drive.is_finished
    page = organiser_client.get(f"/drives/{drive.pk}/results/{table.pk}").content.decode()
    assert "The drive has finished: its results are final. This one was entered by the organiser from paper." in page
    assert "data-preview=" not in page and "Save the correction" not in page and 'name="reason"' not in page
    declarer = table.seats.get(position=1).player
    assert f"<bdi>{declarer.name}</bdi>: <strong>15</strong>" in page
    data = result_form(declarer="2", nine_card="False", dealer="0", reason="late", seen_revision="1")
    organiser_client.post(f"/drives/{drive.pk}/results/{table.pk}", data)
    assert Result.objects.get(table=table).summary["declarer"] == 1  # still refused, changing nothing


@pytest.mark.parametrize("judged", ["dispute", "confirm"])
def test_a_result_page_opened_before_a_phone_judged_the_entry_is_refused_saying_so(organiser_client, organiser,
                                                                                   judged):
    """A dispute sent after the organiser opened the result page was settled by
    their save, its reason unread ("result saved"); a confirmation, overridden unseen. The page
    carries the status it showed: one judged since is refused, saying by whom and why."""
    from tests.drive.test_result_origin import phone, phone_entry
    from tests.factories import shown_for
    from tests.tables.conftest import seated_players
    drive, table = one_table(organiser)
    sidney, other = seated_players(table)[:2]
    phone_entry(drive, sidney, 0, "sidney-stale")
    page = organiser_client.get(f"/drives/{drive.pk}/results/{table.pk}").content.decode()
    assert 'name="seen_status" value="entered"' in page
    if judged == "dispute":
        phone(drive, other).post(f"/{drive.join_code}/dispute",
                                 {"seen_revision": "1", "reason": "Bob declared", **shown_for(other)})
    else:
        phone(drive, other).post(f"/{drive.join_code}/confirm", {"seen_revision": "1", **shown_for(other)})
    before = Result.objects.get()
    data = result_form(declarer="2", nine_card="False", dealer="0", reason="typo", seen_revision="1",
                       seen_status="entered")
    answer = organiser_client.post(f"/drives/{drive.pk}/results/{table.pk}", data).content.decode()
    said = re.sub(r"<[^>]+>", "", answer).replace("\u2068", "").replace("\u2069", "")
    if judged == "dispute":
        assert f"Since you opened this page, {other.name} disputed this result: “Bob declared”." in said
    else:
        assert f"Since you opened this page, {other.name} confirmed this result." in said
    after = Result.objects.get()
    assert (after.status, after.summary, after.revision) == (before.status, before.summary, before.revision)
    assert not Correction.objects.exists()
    # Opened again, it shows the status as it stands, and the save goes through.
    page = organiser_client.get(f"/drives/{drive.pk}/results/{table.pk}").content.decode()
    assert f'name="seen_status" value="{before.status}"' in page
    data["seen_status"] = before.status
    assert organiser_client.post(f"/drives/{drive.pk}/results/{table.pk}", data).status_code == 302
    assert Correction.objects.count() == 1
