"""The organiser's dashboard: pages, forms, refusals, exports and query counts."""

from __future__ import annotations

import csv
import io
import re

import pytest
from django.contrib.messages import get_messages
from django.db import connection
from django.test.utils import CaptureQueriesContext

from drive import results as phone_results
from drive import services
from drive.models import Drive
from drive.results import Shown
from scoring.models import Correction, Result, Score
from tests.factories import declared, finish_all_tables, make_drive, seated_drive

pytestmark = pytest.mark.django_db


def test_new_drive_form_prefills_a_date_the_browser_understands(organiser_client):
    page = organiser_client.get("/drives/new").content.decode()
    assert re.search(r'type="date" name="date" value="\d{4}-\d{2}-\d{2}"', page)


def test_organiser_creates_a_drive(organiser_client, organiser):
    response = organiser_client.post("/drives/new", {
        "name": "  Village   hall ", "date": "2026-12-05", "target": "either", "target_hands": 10,
        "target_total": 50, "preferred_table_size": 4, "play_mode": "physical", "suspense_hands": 0,
        "rule_film_fantasy_declarer_joker_penalty": "on",
    })
    drive = Drive.objects.get()
    assert response.status_code == 302 and response["Location"] == f"/drives/{drive.pk}/"
    assert drive.name == "Village hall" and drive.organiser == organiser
    assert drive.house_rules == {"declarer_joker_penalty": True}


def test_a_table_where_a_bot_sits_offers_no_switch_to_cards(organiser_client, organiser):
    """Seen playing an evening: a bot's table showed "Play with cards", which can only be
    refused ("a table with a bot plays on the phones"). Its card says why instead; the other
    tables keep their switch."""
    from tables import digital

    drive = seated_drive(organiser, 8, start=False)
    hand = drive.hands.get()
    services.set_table_mode(drive, 1, "digital")
    services.set_table_mode(drive, 2, "digital")
    services.add_bot(drive, hand.tables.get(number=2).pk)
    page = organiser_client.get(f"/drives/{drive.pk}/").content.decode()
    card = {n: re.search(rf'<article[^>]*id="table-{n}".*?</article>', page, re.S).group(0) for n in (1, 2)}
    assert "Play with cards" in card[1]
    assert "Play with cards" not in card[2]
    assert "sits here: a table with a bot plays on the phones." in card[2]


def test_the_drive_form_asks_once_whether_the_first_hand_has_started(organiser):
    """The form asks it to describe the house rule and again to refuse changing it: one query."""
    from drive.forms import DriveForm

    drive = seated_drive(organiser, 4)
    data = {"name": "Test drive", "date": "2026-12-05", "target": "total", "target_hands": 10, "target_total": 50,
            "preferred_table_size": 4, "play_mode": "physical", "suspense_hands": 0}  # the house rule: off
    with CaptureQueriesContext(connection) as ctx:
        form = DriveForm(data, instance=drive)
        assert not form.is_valid() and "rule_film_fantasy_declarer_joker_penalty" in form.errors
    assert sum('"tables_hand"' in q["sql"] for q in ctx.captured_queries) == 1, ctx.captured_queries


def test_the_drives_play_mode_changed_on_its_page_reaches_the_seating_shown(organiser_client, organiser):
    """Found by a probe from outside: with the seating drawn, "Tables play with: the phones" on
    the drive's page said "Saved." and every table went on playing with cards (each table keeps
    its own mode from hand to hand). Between hands it now changes every table of the seating
    shown (a table where a bot sits stays on the phones); during a hand it is refused, nothing
    saved, as a table's own mode is."""
    from tables import digital

    drive = seated_drive(organiser, 8, start=False, target="hands", target_hands=5)
    data = {"name": "Test drive", "date": "2026-12-05", "target": "hands", "target_hands": 5, "target_total": 50,
            "preferred_table_size": 4, "play_mode": "digital", "suspense_hands": 0, "rule_film_fantasy_declarer_joker_penalty": "on"}
    response = organiser_client.post(f"/drives/{drive.pk}/edit", data, follow=True)
    assert "every table of the seating for hand 1 now plays on the phones" in response.content.decode()
    hand = drive.hands.get()
    assert set(hand.tables.values_list("play_mode", flat=True)) == {"digital"}
    bot = services.add_bot(drive, hand.tables.get(number=2).pk)
    response = organiser_client.post(f"/drives/{drive.pk}/edit", {**data, "play_mode": "physical"}, follow=True)
    assert "Table 2 stays on the phones" in response.content.decode()
    assert dict(hand.tables.values_list("number", "play_mode")) == {1: "physical", 2: "digital"}
    assert bot.seats.get().table.number == 2

    services.start_hand(drive)
    response = organiser_client.post(f"/drives/{drive.pk}/edit", {**data, "play_mode": "digital",
                                                                    "name": "Renamed"})
    assert response.status_code == 200
    assert "between hands" in response.content.decode()
    drive.refresh_from_db()
    assert drive.play_mode == "physical" and drive.name == "Test drive"
    assert dict(hand.tables.values_list("number", "play_mode")) == {1: "physical", 2: "digital"}
    # Anything else on the page may change during a hand.
    response = organiser_client.post(f"/drives/{drive.pk}/edit", {**data, "play_mode": "physical", "name": "Renamed"})
    assert response.status_code == 302
    drive.refresh_from_db()
    assert drive.name == "Renamed"


def test_players_per_table_changed_on_the_drives_page_reaches_the_seating(organiser_client, organiser):
    """Found by a probe from outside: "Players per table" changed on the drive's page said
    "Saved." and changed no table: the seating shown stayed as it was, and so did every later
    one (a close moves players, keeping its tables), until someone arrived or left, when the
    whole room was re-seated at once (8 players at 4 a table set to 2: nothing, then one late
    arrival made tables of 3, 2, 2, 2). Between hands it now re-forms the seating shown
    (moving as few players as a late arrival does); during a hand it is refused, nothing saved,
    as the drive's play mode is."""
    drive = seated_drive(organiser, 8, target="hands", target_hands=5)
    data = {"name": "Test drive", "date": "2026-12-05", "target": "hands", "target_hands": 5, "target_total": 50,
            "preferred_table_size": 2, "play_mode": "physical", "suspense_hands": 0, "rule_film_fantasy_declarer_joker_penalty": "on"}
    response = organiser_client.post(f"/drives/{drive.pk}/edit", data)
    assert response.status_code == 200 and "change them once hand 1 is closed" in response.content.decode()
    drive.refresh_from_db()
    assert drive.preferred_table_size == 4
    finish_all_tables(drive, organiser)
    hand2 = services.close_hand(drive)
    assert [t.seats.count() for t in hand2.tables.order_by("number")] == [4, 4]

    before = {s.player_id: (s.table.number, s.position) for s in hand2.seats.select_related("table")}
    response = organiser_client.post(f"/drives/{drive.pk}/edit", data, follow=True)
    assert "Saved: the seating for hand 2 now has tables of 2, 2, 2 and 2." in response.content.decode()
    after = {s.player_id: (s.table.number, s.position) for s in hand2.seats.select_related("table")}
    assert sorted(before) == sorted(after)
    assert sum(before[p] != after[p] for p in before) == 4  # two of each table go to the new ones
    response = organiser_client.post(f"/drives/{drive.pk}/edit", {**data, "preferred_table_size": 4,
                                                                    "play_mode": "digital"}, follow=True)
    assert ("Saved: every table of the seating for hand 2 now plays on the phones. "
            "The seating for hand 2 now has tables of 4 and 4.") in response.content.decode()
    assert set(hand2.tables.values_list("play_mode", flat=True)) == {"digital"}
    assert [t.seats.count() for t in hand2.tables.order_by("number")] == [4, 4]

    response = organiser_client.post(f"/drives/{drive.pk}/edit", {**data, "preferred_table_size": 4,
                                                                    "play_mode": "digital", "name": "Renamed"}, follow=True)
    assert "Saved." in response.content.decode() and "now has tables" not in response.content.decode()


def test_the_house_rule_cannot_change_once_a_hand_has_started(organiser_client, organiser):
    """Found by a probe from outside: "Declarer's stray Joker costs 5" switched off in the middle
    of a hand scored that hand's tables by two rules (an entry's points are computed when it
    is sent: Table 1's declarer lost 5 for the stray Joker, Table 2's, entered the same a
    minute later, did not), and a correction of an earlier hand was re-scored by the new rule.
    Once a hand has started the rule is fixed; before, it may change."""
    drive = seated_drive(organiser, 8, start=False, target="hands", target_hands=5)
    data = {"name": "Test drive", "date": "2026-12-05", "target": "hands", "target_hands": 5, "target_total": 50,
            "preferred_table_size": 4, "play_mode": "physical", "suspense_hands": 0}  # the box unticked
    assert organiser_client.post(f"/drives/{drive.pk}/edit", data).status_code == 302  # seating shown: not yet played
    drive.refresh_from_db()
    assert drive.house_rules["declarer_joker_penalty"] is False
    organiser_client.post(f"/drives/{drive.pk}/edit", {**data, "rule_film_fantasy_declarer_joker_penalty": "on"})
    services.start_hand(drive)
    assert "Fixed now: the first hand has started." in organiser_client.get(f"/drives/{drive.pk}/edit").content.decode()
    response = organiser_client.post(f"/drives/{drive.pk}/edit", {**data, "name": "Renamed"})
    assert response.status_code == 200
    assert "The game and its house rules are fixed once the first hand has started" in response.content.decode()
    drive.refresh_from_db()
    assert drive.house_rules["declarer_joker_penalty"] is True and drive.name == "Test drive"
    finish_all_tables(drive, organiser)
    services.close_hand(drive)
    response = organiser_client.post(f"/drives/{drive.pk}/edit", {**data, "name": "Renamed"})  # between hands too
    assert response.status_code == 200 and "fixed once the first hand has started" in response.content.decode()
    response = organiser_client.post(f"/drives/{drive.pk}/edit", {**data, "rule_film_fantasy_declarer_joker_penalty": "on", "name": "Renamed"})
    assert response.status_code == 302  # anything else may change
    drive.refresh_from_db()
    assert drive.name == "Renamed" and drive.house_rules["declarer_joker_penalty"] is True


def test_a_finished_drive_keeps_its_settings_but_may_be_renamed(organiser_client, organiser):
    """A tester raised a finished drive's number of hands: "Saved.", and the page said 3 hands
    for a drive that had ended after 2."""
    drive = seated_drive(organiser, 4, target="hands", target_hands=1)
    finish_all_tables(drive, organiser)
    services.close_hand(drive)
    drive.refresh_from_db()
    assert drive.is_finished
    data = {"name": drive.name, "date": str(drive.date), "target": "hands", "target_hands": 1, "target_total": 50,
            "preferred_table_size": 4, "play_mode": "physical", "suspense_hands": 0,
            "rule_film_fantasy_declarer_joker_penalty": "on"}
    response = organiser_client.post(f"/drives/{drive.pk}/edit", {**data, "target_hands": 3})
    assert response.status_code == 200
    assert "The drive has finished: only its name can be changed now." in response.content.decode()
    drive.refresh_from_db()
    assert drive.target_hands == 1
    assert organiser_client.post(f"/drives/{drive.pk}/edit", {**data, "name": "Spring final"}).status_code == 302
    drive.refresh_from_db()
    assert drive.name == "Spring final" and drive.target_hands == 1


@pytest.mark.parametrize("field,value,message", [
    ("preferred_table_size", "11", "Film Fantasy is played by 2 to 10 players at a table"),
    ("preferred_table_size", "1", "Film Fantasy is played by 2 to 10 players at a table"),
    ("target", "forever", "Select a valid choice"),
    ("name", "   ", "required"),
    ("target_total", "-5", "Ensure this value"),
    ("suspense_hands", "10", "Hide at most 9 of the 10 hands"),  # found by a tester: the board stayed blank
])
def test_bad_drive_form_is_refused_with_a_message(organiser_client, field, value, message):
    data = {"name": "X", "date": "2026-12-05", "target": "either", "target_hands": 10, "target_total": 50,
            "preferred_table_size": 4, "play_mode": "physical", "suspense_hands": 0}
    data[field] = value
    response = organiser_client.post("/drives/new", data)
    assert response.status_code == 200
    assert message in response.content.decode()
    assert not Drive.objects.exists()


def test_hiding_the_last_hands_of_a_drive_that_ends_at_a_total_is_refused(organiser_client):
    """Seen playing an evening: "Hide the standings for the last 2 hands" was accepted for a
    drive that ends at a total, and the board then hid nothing (nobody knows which hands are the
    last). Refused, saying why; nothing created."""
    data = {"name": "X", "date": "2026-12-05", "target": "total", "target_hands": 10, "target_total": 50,
            "preferred_table_size": 4, "play_mode": "physical", "suspense_hands": 2}
    response = organiser_client.post("/drives/new", data)
    assert response.status_code == 200
    assert "A drive that ends at a total has no known last hands to hide" in response.content.decode()
    assert not Drive.objects.exists()
    assert organiser_client.post("/drives/new", {**data, "suspense_hands": 0}).status_code == 302


def test_paste_names_then_draw_then_play_a_hand(organiser_client, organiser):
    drive = make_drive(organiser, 0)
    organiser_client.post(f"/drives/{drive.pk}/players", {"names": "Ann\nBob\nCy\nDi\nEd\nFay\nGus\nHal"})
    assert drive.players.count() == 8
    organiser_client.post(f"/drives/{drive.pk}/draw", {"hand": "0"})
    organiser_client.post(f"/drives/{drive.pk}/start", {"hand": "1"})
    page = organiser_client.get(f"/drives/{drive.pk}/")
    assert "0 of 2 tables done" in page.content.decode()
    for table in drive.hands.get().tables.all():
        data = {"declarer": "1", "nine_card": "False", "dealer": "0", "seen_revision": "0"}
        for i in range(4):
            data[f"seat{i}_sets"] = "0"
            data[f"seat{i}_ice"] = "none"
        response = organiser_client.post(f"/drives/{drive.pk}/results/{table.pk}", data)
        assert response.status_code == 302
    response = organiser_client.post(f"/drives/{drive.pk}/close", {"hand": "1"}, follow=True)
    assert "seating for hand 2 is shown" in response.content.decode()


def test_impossible_result_shows_what_is_wrong(organiser_client, organiser):
    drive = seated_drive(organiser, 4)
    table = drive.hands.get().tables.get()
    data = {"declarer": "0", "nine_card": "True", "dealer": "0", "seen_revision": "0"}
    for i in range(4):
        data[f"seat{i}_sets"] = "0"
        data[f"seat{i}_ice"] = "none"
    data["seat2_ice"] = "joker"  # the only Joker is in the nine-card declaration
    response = organiser_client.post(f"/drives/{drive.pk}/results/{table.pk}", data)
    assert response.status_code == 200
    assert "Joker" in response.content.decode()
    assert not Result.objects.exists()


def test_garbage_result_form_is_refused(organiser_client, organiser):
    drive = seated_drive(organiser, 4)
    table = drive.hands.get().tables.get()
    response = organiser_client.post(f"/drives/{drive.pk}/results/{table.pk}", {"declarer": "9", "seat0_sets": "x", "seen_revision": "0"})
    assert response.status_code == 200
    assert "Select a valid choice" in response.content.decode()
    assert not Result.objects.exists()


def test_correction_through_the_page_requires_a_reason(organiser_client, organiser):
    drive = seated_drive(organiser, 4)
    table = drive.hands.get().tables.get()
    services.organiser_result(drive, table, declared(4, 0), organiser)
    data = {"declarer": "2", "nine_card": "False", "dealer": "0", "reason": "", "seen_revision": "1"}
    for i in range(4):
        data[f"seat{i}_sets"] = "0"
        data[f"seat{i}_ice"] = "none"
    response = organiser_client.post(f"/drives/{drive.pk}/results/{table.pk}", data)
    assert "Give a reason" in response.content.decode()
    data["reason"] = "Cy declared"
    organiser_client.post(f"/drives/{drive.pk}/results/{table.pk}", data)
    assert Correction.objects.get().reason == "Cy declared"


def test_a_correction_sent_twice_or_on_a_result_changed_meanwhile_is_refused(organiser_client, organiser):
    """Found by probing: the same correction sent twice at once was logged twice (and three no-op
    corrections were possible); the form carried no revision, so it could also overwrite a
    phone's newer entry unseen. It carries the revision it showed now."""
    drive = seated_drive(organiser, 4)
    table = drive.hands.get().tables.get()
    services.organiser_result(drive, table, declared(4, 0), organiser)
    page = organiser_client.get(f"/drives/{drive.pk}/results/{table.pk}").content.decode()
    assert 'name="seen_revision" value="1"' in page
    data = {"declarer": "2", "nine_card": "False", "dealer": "0", "reason": "Cy declared", "seen_revision": "1"}
    for i in range(4):
        data[f"seat{i}_sets"] = "0"
        data[f"seat{i}_ice"] = "none"
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
    drive = seated_drive(organiser, 4)
    table = drive.hands.get().tables.get()
    url = f"/drives/{drive.pk}/results/{table.pk}"
    data = {"declarer": "2", "nine_card": "False", "dealer": "0", "reason": "Cy declared"}
    for i in range(4):
        data[f"seat{i}_sets"] = "0"
        data[f"seat{i}_ice"] = "none"
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
    drive = seated_drive(organiser, 4)
    table = drive.hands.get().tables.get()
    page = organiser_client.get(f"/drives/{drive.pk}/results/{table.pk}").content.decode()
    assert 'name="seen_revision" value="0"' in page
    seated = [s.player for s in table.seats.order_by("position")]
    phone_results.enter(drive, seated[0], declared(4, 1), client_key="k", seen_revision=0,
                        shown=Shown(1, 1, seated[0].pk))
    data = {"declarer": "2", "nine_card": "False", "dealer": "0", "reason": "from the paper", "seen_revision": "0"}
    for i in range(4):
        data[f"seat{i}_sets"] = "0"
        data[f"seat{i}_ice"] = "none"
    response = organiser_client.post(f"/drives/{drive.pk}/results/{table.pk}", data)
    assert response.status_code == 200
    assert "Table 1 has a result now that it did not have when you opened this page" in response.content.decode()
    result = Result.objects.get()
    assert (result.summary["declarer"], result.status, result.revision) == (1, Result.Status.ENTERED, 1)
    assert Correction.objects.count() == 0
    assert 'name="seen_revision" value="0"' in response.content.decode()  # sent again: refused again
    # Opened anew, it shows the phone's entry: corrected from there, with a reason.
    page = organiser_client.get(f"/drives/{drive.pk}/results/{table.pk}").content.decode()
    assert 'name="seen_revision" value="1"' in page
    assert organiser_client.post(f"/drives/{drive.pk}/results/{table.pk}", {**data, "seen_revision": "1"}).status_code == 302
    assert Result.objects.get().summary["declarer"] == 2 and Correction.objects.count() == 1


def test_a_paper_result_sent_twice_is_saved_once_and_the_second_says_saved(organiser_client, organiser):
    """A double click on "Save the result" of an empty form: the second request is not told that
    a result came meanwhile (it is this one), nor is anything written twice."""
    drive = seated_drive(organiser, 4)
    table = drive.hands.get().tables.get()
    data = {"declarer": "2", "nine_card": "False", "dealer": "0", "seen_revision": "0"}
    for i in range(4):
        data[f"seat{i}_sets"] = "0"
        data[f"seat{i}_ice"] = "none"
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
    data = {"declarer": "3", "nine_card": "False", "dealer": "0", "reason": "Di declared", "seen_revision": "1"}
    for i in range(4):
        data[f"seat{i}_sets"] = "0"
        data[f"seat{i}_ice"] = "none"
    response = organiser_client.post(f"/drives/{drive.pk}/results/{t1.pk}", data, follow=True)
    page = response.content.decode()
    assert "Table 1, hand 1: result saved." in page
    assert (f"Hand 1 is closed: its moves stand as made, with <bdi>{seated[1].name}</bdi> counted as the one who "
            f"moved up from this table, not <bdi>{seated[3].name}</bdi>. Swap players in the seating for hand 2 "
            "if they should sit otherwise.") in page
    assert Result.objects.get(table=t1).mover_id == seated[3].pk
    assert sorted(hand2.seats.values_list("player_id", "table__number", "position")) == seating
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
    data["seat1_ice2"] = "joker_three"  # a real change is still a correction
    organiser_client.post(f"/drives/{drive.pk}/results/{table.pk}", data)
    assert Correction.objects.count() == 1


def test_the_corrections_log_says_by_name_who_declared_and_whose_points_changed(organiser_client, organiser):
    """Found by a tester: the log showed the stored snapshots, player ids and all
    ({'76': 0, '77': -5} → …)."""
    drive = seated_drive(organiser, 4)
    table = drive.hands.get().tables.get()
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

    drive = seated_drive(organiser, 4)
    table = drive.hands.get().tables.get()
    seated = [s.player for s in table.seats.order_by("position")]
    phone_results.enter(drive, seated[0], declared(4, 1), client_key=None, seen_revision=0,
                        shown=Shown(1, 1, seated[0].pk))
    phone_results.dispute(drive, seated[1], seen_revision=1, shown=Shown(1, 1, seated[1].pk), reason="Bob did not declare")
    result = Result.objects.get()
    assert result.status == Result.Status.DISPUTED
    services.organiser_result(drive, table, result.summary, organiser, reason="checked: he did",
                              seen_revision=result.revision)
    result.refresh_from_db()
    assert result.status == Result.Status.CONFIRMED and result.summary == declared(4, 1)
    assert Correction.objects.get().reason == "checked: he did"


def test_close_with_missing_tables_says_which(organiser_client, organiser):
    drive = seated_drive(organiser, 8)
    response = organiser_client.post(f"/drives/{drive.pk}/close", {"hand": "1"}, follow=True)
    assert "Waiting for Table 1, 2" in response.content.decode()


def test_another_organisers_drive_is_not_found(client, django_user_model, organiser):
    drive = seated_drive(organiser, 4)
    other = django_user_model.objects.create_user(username="mallory", password="x-very-long-pass")
    client.force_login(other)
    for url in [f"/drives/{drive.pk}/", f"/drives/{drive.pk}/standings", f"/drives/{drive.pk}/export/hands.csv"]:
        assert client.get(url).status_code == 404
    assert client.post(f"/drives/{drive.pk}/close").status_code == 404


def test_stranger_is_sent_to_sign_in(client, organiser):
    drive = seated_drive(organiser, 4)
    response = client.post(f"/drives/{drive.pk}/close")
    assert response.status_code == 302 and "/login/" in response["Location"]


def test_get_on_a_write_url_is_refused(organiser_client, organiser):
    drive = seated_drive(organiser, 4)
    assert organiser_client.get(f"/drives/{drive.pk}/close").status_code == 405


def test_exports(organiser_client, organiser):
    drive = seated_drive(organiser, 4, target="hands", target_hands=1)
    drive.players.filter(name="P001").update(name="=HYPERLINK(1)")
    finish_all_tables(drive, organiser)
    services.close_hand(drive)
    hands = organiser_client.get(f"/drives/{drive.pk}/export/hands.csv")
    rows = list(csv.reader(io.StringIO(hands.content.decode("utf-8-sig"))))
    assert rows[0][:4] == ["hand", "table", "player", "points"]
    assert len(rows) == 5 and sum(int(r[3]) for r in rows[1:]) == 15
    assert any(r[2] == "'=HYPERLINK(1)" for r in rows[1:])
    # The table's players in seat order, and the one who moved up marked.
    table = drive.hands.get().tables.get()
    seat_order = [s.player.name for s in table.seats.select_related("player").order_by("position")]
    assert [r[2].lstrip("'") for r in rows[1:]] == seat_order
    moved = rows[0].index("moved_up")
    assert [r[2].lstrip("'") for r in rows[1:] if r[moved] == "1"] == [table.result.mover.name]
    standings = organiser_client.get(f"/drives/{drive.pk}/export/standings.csv")
    rows = list(csv.reader(io.StringIO(standings.content.decode("utf-8-sig"))))
    assert rows[0][:3] == ["rank", "tied", "player"]
    assert rows[1][0] == "1" and rows[1][1] == "0" and rows[1][3] == "15"
    tied = [row for row in rows[1:] if row[1] == "1"]  # the others share a rank: a number, no "="
    assert tied and all(row[0].isdigit() for row in tied)


def test_final_standings_page_shows_prizes(organiser_client, organiser):
    drive = seated_drive(organiser, 4, target="hands", target_hands=1)
    finish_all_tables(drive, organiser)
    services.close_hand(drive)
    page = organiser_client.get(f"/drives/{drive.pk}/standings").content.decode()
    assert "Winner" in page and "Booby prize" in page and "Most declarations" in page


def test_printable_cards(organiser_client, organiser):
    drive = seated_drive(organiser, 8)
    tables = organiser_client.get(f"/drives/{drive.pk}/print/tables").content.decode()
    assert "Table 2" in tables
    # A player at the table joins from the card: its QR code and address, not the bare code
    # (which says nowhere where to type it), on every table's card.
    card = re.search(r'<section class="print-card.*?</section>', tables, re.S).group(0)
    assert card.count("<svg") == 1 and f"http://testserver/{drive.join_code}" in card
    assert tables.count("<svg") == 2
    assert "P008" in organiser_client.get(f"/drives/{drive.pk}/print/scorecards").content.decode()


def test_table_cards_carry_the_join_qr_code_and_no_bot_gets_a_score_card(organiser_client, organiser):
    """Found by a probe from outside: the printed table cards said "Join on your phone with code
    …" with no QR code (docs: "table cards (with QR codes)"), and a bot got a paper score card
    although it never plays with cards."""
    from drive import phone_links
    from tables import digital

    drive = seated_drive(organiser, 7, start=False)
    services.set_table_mode(drive, 2, "digital")
    bot = services.add_bot(drive, drive.hands.get().tables.get(number=2).pk)
    response = organiser_client.get(f"/drives/{drive.pk}/print/tables")
    page = response.content.decode()
    qr = phone_links.qr_svg(phone_links.join_url(response.wsgi_request, drive))
    assert page.count(qr) == 2  # one on each table's card
    cards = organiser_client.get(f"/drives/{drive.pk}/print/scorecards").content.decode()
    assert cards.count('class="print-card"') == 7 and bot.name not in cards


def test_player_names_are_escaped(organiser_client, organiser):
    drive = make_drive(organiser, 0)
    services.add_players(drive, ["<script>alert(1)</script>", "Bob"])
    page = organiser_client.get(f"/drives/{drive.pk}/").content.decode()
    assert "<script>alert(1)</script>" not in page and "&lt;script&gt;" in page


def _query_count(client, url) -> int:
    with CaptureQueriesContext(connection) as ctx:
        assert client.get(url).status_code == 200
    return len(ctx)


@pytest.mark.parametrize("page", ["", "standings", "print/tables"])
def test_query_count_does_not_grow_with_tables(organiser_client, organiser, page):
    small = seated_drive(organiser, 8, name="small")
    big = seated_drive(organiser, 400, name="big")
    assert big.hands.get().tables.count() == 100
    for drive in (small, big):
        finish_all_tables(drive, organiser)
    counts = [_query_count(organiser_client, f"/drives/{d.pk}/{page}") for d in (small, big)]
    assert counts[0] == counts[1], counts


def _hand_in_play_with_digital_tables(organiser) -> Drive:
    """16 players: tables 1 and 2 dealt on the phones, table 3's result entered, 4 playing."""
    drive = seated_drive(organiser, 16, start=False)
    for number in (1, 2):
        services.set_table_mode(drive, number, "digital")
    services.start_hand(drive)
    services.organiser_result(drive, drive.hands.get().tables.get(number=3), declared(4, 0), organiser)
    return drive


def test_dashboard_of_a_hand_in_play_runs_ten_queries(organiser_client, organiser, django_assert_num_queries):
    """The dashboard's reads, one query each; none per table (a dealt table's state is not read
    to know it is on the phones) nor per player (the seats and scores are given the players
    read once)."""
    drive = _hand_in_play_with_digital_tables(organiser)
    # session, user, drive, current hand, players (with bot), tables (with results), seats,
    # scores, standings, previous hand's seats (movement)
    with django_assert_num_queries(10):
        page = organiser_client.get(f"/drives/{drive.pk}/").content.decode()
    assert "hands still played on the phones (Table 1, 2)" in page  # the dealt tables, known without their state
    assert page.count("Enter result") == 1 and page.count("A player has left?") == 2


def test_a_live_update_reads_no_table_state_and_renders_without_queries(organiser, django_assert_num_queries):
    """``selectors.drive_view`` runs for every live update (dashboard, board, every phone): it
    leaves out each table's digital state, which no screen shows, and what it read is enough
    to render the dashboard's and the phones' fragments (the board adds its chart's query)."""
    from drive import live, selectors

    drive = _hand_in_play_with_digital_tables(organiser)
    # current hand, players (with bot), tables (with results), seats, scores, standings,
    # previous hand's seats (movement)
    with django_assert_num_queries(7):
        view = selectors.drive_view(drive)
    assert all("state" in table.get_deferred_fields() for table in view.tables)
    assert [t.number for t in view.tables if t.on_the_phones] == [1, 2]
    with django_assert_num_queries(0):
        live.dashboard_parts(view)
        live.phone_parts(view)
    with django_assert_num_queries(1):  # the leaders' chart
        live.board_parts(view)


def test_dashboard_builds_each_player_once(organiser_client, organiser):
    """The model instances behind one dashboard: each player once (the seats and scores share
    them), one Hand (templates compare with ``Hand.Status`` without building one)."""
    from collections import Counter

    from django.db.models.signals import post_init

    drive = _hand_in_play_with_digital_tables(organiser)
    built = Counter()

    def count(sender, **kwargs):
        built[sender.__name__] += 1

    post_init.connect(count)
    try:
        assert organiser_client.get(f"/drives/{drive.pk}/").status_code == 200
    finally:
        post_init.disconnect(count)
    assert built["Player"] == 16 and built["Hand"] == 1 and built["TableHand"] == 4, built


@pytest.mark.parametrize("url", ["/admin/drive/drive/", "/admin/drive/player/", "/admin/tables/hand/",
                                 "/admin/tables/tablehand/", "/admin/scoring/result/", "/admin/scoring/correction/"])
def test_admin_shows_the_raw_data(client, django_user_model, organiser, url):
    drive = seated_drive(organiser, 4)
    finish_all_tables(drive, organiser)
    table = drive.hands.get().tables.get()
    services.organiser_result(drive, table, declared(4, 1), organiser, reason="Bob declared")
    admin_user = django_user_model.objects.create_superuser(username="root", password="root-password-123")
    client.force_login(admin_user)
    response = client.get(url)
    assert response.status_code == 200
    model = {"drive": Drive, "player": drive.players.model, "hand": drive.hands.model, "tablehand": type(table),
             "result": Result, "correction": Correction}[url.rstrip("/").rsplit("/", 1)[1]]
    detail = client.get(f"{url}{model.objects.first().pk}/change/")
    assert detail.status_code == 200


def test_the_live_part_of_the_dashboard_counts_the_players_as_the_page_does(organiser_client, organiser):
    """The dashboard's live part (the page's and every push's) says how many players there are
    before the seating is drawn; the push once said "0 players so far"."""
    from drive import live, selectors

    drive = make_drive(organiser, 0)
    organiser_client.post(f"/drives/{drive.pk}/players", {"names": "Ann\nBob\nCy\nDi\nEd"})
    assert "5 players so far" in organiser_client.get(f"/drives/{drive.pk}/").content.decode()
    pushed = live.dashboard_parts(selectors.drive_view(drive))["dashboard"]
    assert "5 players so far" in pushed


def test_closing_asks_before_ringing_the_bell_on_digital_tables_still_playing(organiser_client, organiser):
    """"Close hand" on a hand whose digital tables still play ends them (the bell): the button
    asks first, naming them, on the page and in every push; with none playing it does not ask.
    While a table with cards still waits, it does not ask either: that close is refused, and
    nothing is rung (a tester was asked, said yes, and saw the phones play on)."""
    from drive import live, selectors
    from tables import digital

    drive = seated_drive(organiser, 8, start=False)
    services.set_table_mode(drive, 2, "digital")
    services.start_hand(drive)

    def close_form() -> list[str]:
        pages = (organiser_client.get(f"/drives/{drive.pk}/").content.decode(),
                 live.dashboard_parts(selectors.drive_view(drive))["dashboard"])
        return [re.search(r'<form method="post" action="/drives/\d+/close"[^>]*>', html).group(0) for html in pages]

    for form in close_form():
        assert "data-bell" not in form and "confirm(" not in form  # Table 1 (cards) waits
    response = organiser_client.post(f"/drives/{drive.pk}/close", {"hand": 1}, follow=True)
    assert "Waiting for Table 1" in response.content.decode()
    assert drive.hands.get().tables.get(number=2).on_the_phones  # not rung
    services.organiser_result(drive, drive.hands.get().tables.get(number=1), declared(4, 0), organiser)
    for form in close_form():
        assert 'data-bell="2"' in form and "confirm('Table 2 still playing on the phones: ring the bell?" in form
    digital.stop_playing_tables(drive, drive.hands.get())  # table 2's hand is over: nothing left to ring for
    for form in close_form():
        assert "data-bell" not in form and "confirm(" not in form



def test_tables_shown_before_the_hand_starts_are_seated_not_playing(organiser_client, organiser):
    from drive import live, selectors

    drive = seated_drive(organiser, 8, start=False)
    for html in (organiser_client.get(f"/drives/{drive.pk}/").content.decode(),
                 live.dashboard_parts(selectors.drive_view(drive))["dashboard"]):
        card = html[html.index('id="table-1"'):]
        card = card[:card.index("</h3>")]
        assert '<span class="badge">Seated</span>' in card and "Playing" not in card
    services.start_hand(drive)
    html = organiser_client.get(f"/drives/{drive.pk}/").content.decode()
    card = html[html.index('id="table-1"'):]
    assert "Playing" in card[:card.index("</h3>")]


def test_pushed_fragments_carry_no_token_and_no_warning_while_the_page_has_one(organiser_client, organiser,
                                                                             settings, recwarn):
    """A pushed dashboard or phone fragment is rendered once for everyone, without a request:
    its forms carry no CSRF token (live.js adds the page's own), and rendering it warns of
    nothing (Django warns of a token tag without one when DEBUG is on). The page itself, rendered
    for its request, carries the token in every form."""
    from drive import live, selectors

    settings.DEBUG = True
    drive = seated_drive(organiser, 4)
    table = drive.hands.get().tables.get()
    players = [s.player for s in table.seats.order_by("position")]
    from drive import results

    results.enter(drive, players[0], declared(4, 0), client_key="k", seen_revision=0, shown=Shown(1, 1, players[0].pk))
    view = selectors.drive_view(drive)
    dashboard = live.dashboard_parts(view)["dashboard"]
    phone = live.phone_parts(view, [players[1]])[str(players[1].pk)]
    assert "<form" in dashboard and "Confirm: this is right" in phone  # forms there are
    assert "csrfmiddlewaretoken" not in dashboard + phone
    assert not [w for w in recwarn if "csrf_token" in str(w.message)]
    page = organiser_client.get(f"/drives/{drive.pk}/").content.decode()
    assert page.count("<form") == page.count('name="csrfmiddlewaretoken"')


def test_the_players_list_is_one_form_whose_buttons_say_who_leaves_or_rejoins(organiser_client, organiser):
    drive = make_drive(organiser, 6)
    ann = drive.players.order_by("pk").first()
    page = organiser_client.get(f"/drives/{drive.pk}/").content.decode()
    assert page.count('name="withdraw"') == 6 and f'name="withdraw" value="{ann.pk}"' in page
    assert page.count('name="csrfmiddlewaretoken"') == page.count("<form")  # one token per form, not per player
    url = f"/drives/{drive.pk}/players/presence"
    page = organiser_client.post(url, {"withdraw": str(ann.pk)}, follow=True).content.decode()
    assert "has left the drive" in page and f'name="rejoin" value="{ann.pk}"' in page
    ann.refresh_from_db()
    assert not ann.active
    for bad in ({}, {"withdraw": "x"}, {"rejoin": "-1"}, {"withdraw": "9" * 40}, {"withdraw": "\u00b2"}):
        page = organiser_client.post(url, bad, follow=True).content.decode()
        assert "beside a player" in page, bad
    assert organiser_client.post(url, {"rejoin": "999999"}).status_code == 404  # no such player of this drive
    organiser_client.post(url, {"rejoin": str(ann.pk)})
    ann.refresh_from_db()
    assert ann.active


def test_a_table_card_shows_its_result_points_and_who_declared(organiser_client, organiser):
    drive = seated_drive(organiser, 8)
    table = drive.hands.get().tables.get(number=1)
    services.organiser_result(drive, table, declared(4, 2), organiser)
    page = organiser_client.get(f"/drives/{drive.pk}/").content.decode()
    card = page[page.index('id="table-1"'):page.index('id="table-2"')]
    declarer = table.seats.get(position=2).player.name
    assert f"<bdi>{declarer}</bdi> <strong>15</strong> (declared)" in card
    assert "data-points" not in page[page.index('id="table-2"'):]  # no result there yet


def test_the_dashboards_hand_forms_carry_the_hand_they_showed(organiser_client, organiser):
    drive = seated_drive(organiser, 8, start=False)
    page = organiser_client.get(f"/drives/{drive.pk}/").content.decode()
    for action in ("start", "draw", "swap", "tables/1/mode"):
        form = re.search(rf'<form method="post" action="/drives/\d+/{action}"[^>]*>.*?</form>', page, re.S).group(0)
        assert '<input type="hidden" name="hand" value="1">' in form, action
    services.start_hand(drive)
    page = organiser_client.get(f"/drives/{drive.pk}/").content.decode()
    forms = re.findall(r'<form method="post" action="/drives/\d+/close"[^>]*>.*?</form>', page, re.S)
    assert len(forms) == 2 and all('<input type="hidden" name="hand" value="1">' in f for f in forms)


def test_a_stale_organiser_page_cannot_close_or_start_the_next_hand(organiser_client, organiser):
    from tests.security.conftest import snapshot

    drive = seated_drive(organiser, 8)
    finish_all_tables(drive, organiser)
    organiser_client.post(f"/drives/{drive.pk}/close", {"hand": "1"})
    organiser_client.post(f"/drives/{drive.pk}/start", {"hand": "2"})
    before = snapshot()
    # A second tab still showing hand 1: its "Close anyway" and "Close hand 1" act on nothing.
    for data in ({"hand": "1", "force": "1"}, {"hand": "1"}):
        response = organiser_client.post(f"/drives/{drive.pk}/close", data, follow=True)
        assert "Hand 2 has started; this page showed hand 1. Look again." in response.content.decode()
    response = organiser_client.post(f"/drives/{drive.pk}/start", {"hand": "1"}, follow=True)
    assert "Hand 2 has started; this page showed hand 1. Look again." in response.content.decode()
    for url in ("close", "start", "draw", "tables/1/mode"):  # a page from before forms said
        response = organiser_client.post(f"/drives/{drive.pk}/{url}", {"force": "1", "mode": "digital"}, follow=True)
        assert "it does not say which hand it showed" in response.content.decode(), url
    assert snapshot() == before
    assert drive.hands.get(number=2).status == "playing"
    # The page showing hand 2 closes hand 2.
    response = organiser_client.post(f"/drives/{drive.pk}/close", {"hand": "2", "force": "1"}, follow=True)
    assert drive.hands.get(number=2).status == "closed"


def test_a_stale_seating_page_cannot_change_the_next_seating(organiser_client, organiser):
    drive = seated_drive(organiser, 8)
    finish_all_tables(drive, organiser)
    services.close_hand(drive)  # hand 2's seating is shown
    response = organiser_client.post(f"/drives/{drive.pk}/tables/1/mode", {"hand": "1", "mode": "digital"}, follow=True)
    assert "The seating for hand 2 is shown; this page showed hand 1. Look again." in response.content.decode()
    assert drive.hands.get(number=2).tables.get(number=1).play_mode == "physical"


def test_a_player_who_left_is_marked_left_everywhere_the_standings_show_still_ranked_by_points(
        organiser_client, organiser, client):
    """A leaver keeps their points (docs/drive-rules.md) and stays ranked by them; the board,
    the standings page and the dashboard mark the row "left" (they showed nothing: the room and
    the organiser took the leaver for someone still playing). The CSV says so in a column; the
    final standings keep the mark."""
    drive = seated_drive(organiser, 8)
    finish_all_tables(drive, organiser)  # each table's first seat declares: 15 each, the others 0
    hand2 = services.close_hand(drive)
    first = drive.hands.get(number=1).tables.get(number=1).seats.get(position=0).player
    services.withdraw_player(drive, first)
    stayer = drive.hands.get(number=1).tables.get(number=2).seats.get(position=0).player

    def row(page: str, player) -> str:
        return re.search(rf'<tr data-player="{player.pk}"[^>]*>(.*?)</tr>', page, re.S).group(1)

    pages = {
        "board": client.get(f"/{drive.join_code}/board").content.decode(),
        "standings": organiser_client.get(f"/drives/{drive.pk}/standings").content.decode(),
        "dashboard": organiser_client.get(f"/drives/{drive.pk}/").content.decode(),
    }
    for where, page in pages.items():
        left, stays = row(page, first), row(page, stayer)
        assert '<span class="tag-left"' in left and ">left</span>" in left, where
        assert "tag-left" not in stays, where
        # Still ranked by their points: level on 15 with the other declarer, the rank shared.
        assert '<td class="rank">=1</td>' in left and '<td class="num total">15</td>' in left, where
        assert '<td class="rank">=1</td>' in stays, where
    assert hand2.seats.filter(player=first).count() == 0
    standings = organiser_client.get(f"/drives/{drive.pk}/export/standings.csv")
    rows = list(csv.reader(io.StringIO(standings.content.decode("utf-8-sig"))))
    assert rows[0][-1] == "left"
    assert {row[2]: row[-1] for row in rows[1:]}[first.name] == "1"
    assert {row[2]: row[-1] for row in rows[1:]}[stayer.name] == "0"
    services.end_drive(drive)
    final = organiser_client.get(f"/drives/{drive.pk}/standings").content.decode()
    assert "tag-left" in row(final, first) and "tag-left" not in row(final, stayer)
    # Level on points with the winner, but gone: no prize for a player who left (nor the booby).
    winners = re.search(r"<li><strong>Winners?:</strong>(.*?)</li>", final, re.S).group(1)
    assert stayer.name in winners and first.name not in winners
    assert "Players who left the drive keep their place in the standings but win no prize." in final


def test_a_pasted_list_keeps_what_it_can_and_the_refused_names_stay_in_the_box_with_why(organiser, organiser_client):
    """A pasted list with one name too long and one already in the drive: the valid names are
    added, and the two refused stay in the box (labelled "Players' names"), each with its
    reason in the message, to be mended rather than typed again."""
    drive = make_drive(organiser, 0)
    services.add_players(drive, ["Dee"])
    long_name = "X" * 41
    pasted = "Ann\nBob\n" + long_name + "\nCy\nDEE"
    response = organiser_client.post(f"/drives/{drive.pk}/players", {"names": pasted}, follow=True)
    page = response.content.decode()
    assert sorted(drive.players.values_list("name", flat=True)) == ["Ann", "Bob", "Cy", "Dee"]
    assert "Added 3 players." in page
    assert "Not added (2)" in page and "is too long: names have at most 40 characters" in page
    assert "is in this drive already (as \u2068Dee\u2069)" in page
    box = page[page.index('<textarea'):page.index('</textarea>')]
    assert box.split(">", 1)[1].strip() == f"{long_name}\nDEE"
    assert '<label for="id_names">Players&#x27; names</label>' in page
    # Shown once: the next look at the dashboard has an empty box again.
    again = organiser_client.get(f"/drives/{drive.pk}/").content.decode()
    assert long_name not in again


def test_the_dashboard_says_when_closing_ends_the_drive_and_how_many_standings_it_shows(organiser_client, organiser):
    """A tester closed the last hand "anyway" with a table still to enter and learnt only then
    that the drive had ended; and the dashboard's ten standings hid the eleventh player."""
    drive = seated_drive(organiser, 11, target="hands", target_hands=2)
    page = organiser_client.get(f"/drives/{drive.pk}/").content.decode()
    assert "The last hand" not in page and "The top 10 of 11" in page
    finish_all_tables(drive, organiser)
    services.close_hand(drive)
    services.start_hand(drive)
    page = organiser_client.get(f"/drives/{drive.pk}/").content.decode()
    assert "The last hand: closing it ends the drive and makes its standings final." in page
    # Hand 1's page, where its results are corrected, is a link away (a tester typed its address).
    assert f'<a href="/drives/{drive.pk}/hands/1">Hand 1</a>' in page and "/hands/2" not in page
    assert "Film Fantasy" in page  # the header names the game
    anyway = re.search(r"<form[^>]*>(?:(?!</form>).)*Close anyway", page, re.S).group(0)
    assert "This is the last hand: the drive ends, and no result can be entered or changed after it." in anyway
    assert "Results still to be confirmed count as entered" in anyway  # as close_hand(force=True) does


def test_every_organiser_page_of_a_drive_links_to_the_others(organiser_client, organiser):
    """A tester found only "Dashboard" in the top bar of the standings, settings, phones and
    corrections pages."""
    drive = seated_drive(organiser, 4)
    table = drive.hands.get().tables.get()
    base = f"/drives/{drive.pk}"
    for url in (f"{base}/", f"{base}/standings", f"{base}/log", f"{base}/phones", f"{base}/edit",
                f"{base}/hands/1", f"{base}/results/{table.pk}"):
        page = organiser_client.get(url).content.decode()
        nav = page[page.index("<nav>"):page.index("</nav>")]
        for target in ("standings", "phones", "log", "edit"):
            assert f'href="{base}/{target}"' in nav, (url, target)
        assert f'href="/{drive.join_code}/board"' in nav, url


def test_score_cards_carry_the_games_facts_and_the_recorded_hands(organiser_client, organiser):
    """Score cards had only Hand / Table / Points / Total, blank even after the drive (a tester of
    Wonderland needed the pairs and cards taken, the tie-breaks, on paper)."""
    drive = seated_drive(organiser, 4, target="hands", target_hands=2)
    finish_all_tables(drive, organiser)
    services.close_hand(drive)
    cards = organiser_client.get(f"/drives/{drive.pk}/print/scorecards").content.decode()
    facts = [f.label for f in drive.game_rules.facts]
    assert facts and all(f"<th>{label}</th>" in cards for label in facts)
    score = Score.objects.filter(drive=drive, hand_number=1).select_related("player").order_by("-points").first()
    card = re.search(rf'<section class="print-card">\s*<h2[^>]*>(?:(?!</h2>).)*{score.player.name}(?:(?!</section>).)*',
                     cards, re.S).group(0)
    first = re.search(r"<tr><td>1</td>(.*?)</tr>", card).group(1)
    assert first.startswith(f"<td>1</td><td>{score.points}</td>") and first.endswith(f"<td>{score.points}</td>")
    assert "<tr><td>2</td><td></td><td></td>" in card  # hand 2 not played yet: blank, to fill in
