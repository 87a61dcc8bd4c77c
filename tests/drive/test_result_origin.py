"""The organiser's result page says who entered a table's result and whether the organiser
corrected it, each once: a corrected phone entry said "entered by the organiser by Sidney"."""

from __future__ import annotations

import csv
import html
import io
import re

import pytest
from django.contrib.messages import get_messages
from django.test import Client

from drive import services
from scoring.models import Result
from tests.factories import declared, seated_drive, shown_for
from tests.tables.conftest import digital_drive, play_to_the_end, seated_players, table_of


def origin(client: Client, drive, table) -> str:
    """What the result page says of the table's result, as read (tags dropped)."""
    page = client.get(f"/drives/{drive.pk}/results/{table.pk}").content.decode()
    said = re.search(r"This table already has a result, (.*?)\. Saving a change", page, re.S)
    assert said, page
    return html.unescape(re.sub(r"<[^>]+>", "", said.group(1)))


def phone(drive, player) -> Client:
    client = Client()
    client.cookies[f"ff_{drive.join_code}"] = player.token
    return client


def phone_entry(drive, player, declarer: int, key: str) -> None:
    data = {"declarer": str(declarer), "nine_card": "False", "dealer": "0", "client_key": key, "seen_revision": "0",
            **shown_for(player)}
    for i in range(4):
        data[f"seat{i}_sets"] = "0"
        data[f"seat{i}_ice"] = "none"
    assert phone(drive, player).post(f"/{drive.join_code}/enter", data).status_code == 302


def correct(drive, table, organiser, declarer: int) -> None:
    services.organiser_result(drive, table, declared(4, declarer), organiser, reason="the other one declared")


@pytest.mark.django_db
def test_a_phones_entry_names_its_player_and_a_correction_the_organiser(organiser, organiser_client):
    drive = seated_drive(organiser, 4)
    table = drive.hands.get().tables.get()
    sidney, confirmer = seated_players(table)[:2]
    phone_entry(drive, sidney, 0, "sidney-1")
    assert origin(organiser_client, drive, table) == f"entered by {sidney.name} on their phone (waiting for confirmation)"
    phone(drive, confirmer).post(f"/{drive.join_code}/confirm", {"seen_revision": "1", **shown_for(confirmer)})
    # Who confirmed it, by name (QA: "(confirmed)" read as if a player had confirmed the correction).
    assert origin(organiser_client, drive, table) == (
        f"entered by {sidney.name} on their phone, confirmed by {confirmer.name} (its points count)")
    assert confirmed_by_column(organiser_client, drive) == {confirmer.name}
    assert export_column(organiser_client, drive, "entered_by") == {sidney.name}
    correct(drive, table, organiser, 1)
    assert origin(organiser_client, drive, table) == (
        f"entered by {sidney.name} on their phone, corrected by the organiser (its points count)")
    # The export keeps who entered it; ``corrected`` says the organiser changed it.
    assert export_column(organiser_client, drive, "entered_by") == {sidney.name}
    assert export_column(organiser_client, drive, "corrected") == {"1"}
    correct(drive, table, organiser, 2)  # corrected again: still said once
    assert origin(organiser_client, drive, table) == (
        f"entered by {sidney.name} on their phone, corrected by the organiser (its points count)")


def export_column(organiser_client, drive, column: str) -> set[str]:
    """The values of a column of the hands CSV."""
    rows = list(csv.reader(io.StringIO(organiser_client.get(f"/drives/{drive.pk}/export/hands.csv")
                                       .content.decode("utf-8-sig"))))
    return {row[rows[0].index(column)] for row in rows[1:]}


def confirmed_by_column(organiser_client, drive) -> set[str]:
    return export_column(organiser_client, drive, "confirmed_by")


@pytest.mark.django_db
def test_the_export_says_who_entered_each_result(organiser, organiser_client):
    """The hands CSV's ``entered_by``: the phone's player, or "organiser" for the organiser's own
    entry (each row of the table's result alike)."""
    drive = seated_drive(organiser, 4)
    table = drive.hands.get().tables.get()
    services.organiser_result(drive, table, declared(4, 0), organiser)
    assert export_column(organiser_client, drive, "entered_by") == {"organiser"}


@pytest.mark.django_db
def test_a_phone_entry_nobody_confirmed_says_the_close_accepted_it(organiser, organiser_client):
    """Found by a tester: "Close anyway" over an entry nobody had confirmed left it "confirmed",
    with nothing to say that nobody at the table had."""
    drive = seated_drive(organiser, 4)
    table = drive.hands.get().tables.get()
    sidney = seated_players(table)[0]
    phone_entry(drive, sidney, 0, "sidney-3")
    services.close_hand(drive, force=True)
    assert origin(organiser_client, drive, table) == (
        f"entered by {sidney.name} on their phone, accepted when the hand was closed before anyone confirmed it "
        "(its points count)")
    assert confirmed_by_column(organiser_client, drive) == {"close"}  # the export says so too
    correct(drive, table, organiser, 1)
    assert confirmed_by_column(organiser_client, drive) == {""}
    assert origin(organiser_client, drive, table) == (
        f"entered by {sidney.name} on their phone, corrected by the organiser (its points count)")


@pytest.mark.django_db
def test_a_disputed_phone_entry_says_so(organiser, organiser_client):
    drive = seated_drive(organiser, 4)
    table = drive.hands.get().tables.get()
    sidney, other = seated_players(table)[:2]
    phone_entry(drive, sidney, 0, "sidney-2")
    phone(drive, other).post(f"/{drive.join_code}/dispute",
                             {"seen_revision": "1", "reason": "Bob declared", **shown_for(other)})
    assert origin(organiser_client, drive, table) == f"entered by {sidney.name} on their phone (disputed)"
    assert confirmed_by_column(organiser_client, drive) == {""}  # not the one who disputed it
    # The disputing phone learns that the organiser settled it, and how.
    page = html.unescape(re.sub(r"<[^>]+>", "", phone(drive, other).get(f"/{drive.join_code}/me").content.decode()))
    assert "corrected by the organiser" not in page
    correct(drive, table, organiser, 1)
    page = html.unescape(re.sub(r"<[^>]+>", "", phone(drive, other).get(f"/{drive.join_code}/me").content.decode()))
    assert "confirmed" in page
    assert f"Entered by {sidney.name} on their phone, corrected by the organiser: these points count." in page
    assert confirmed_by_column(organiser_client, drive) == {""}  # the organiser's answers now (found by a review)


@pytest.mark.django_db
def test_a_paper_result_is_the_organisers_and_so_is_its_correction(organiser, organiser_client):
    drive = seated_drive(organiser, 4)
    table = drive.hands.get().tables.get()
    services.organiser_result(drive, table, declared(4, 0), organiser)
    assert origin(organiser_client, drive, table) == "entered by the organiser from paper (its points count)"
    correct(drive, table, organiser, 1)
    assert origin(organiser_client, drive, table) == (
        "entered by the organiser from paper, corrected by the organiser (its points count)")


@pytest.mark.django_db
def test_a_table_not_played_at_a_forced_close_says_so_and_its_correction(organiser, organiser_client):
    drive = seated_drive(organiser, 4)
    table = drive.hands.get().tables.get()
    services.close_hand(drive, force=True)
    # ("(its points count)" of a table with no points and no hand counted)
    assert origin(organiser_client, drive, table) == (
        "recorded as not played when the hand was closed (0 points each, no hand counted)")
    correct(drive, table, organiser, 0)
    assert origin(organiser_client, drive, table) == (
        "recorded as not played when the hand was closed, corrected by the organiser (its points count)")


def test_a_hand_played_on_the_phones_is_scored_there_and_its_correction_is_the_organisers(
        transactional_db, organiser, organiser_client):
    drive = digital_drive(organiser, 4)
    table = table_of(drive)
    play_to_the_end(table, seated_players(table), seed=3)
    assert origin(organiser_client, drive, table) == "played and scored on the phones (its points count)"
    correct(drive, table, organiser, 3)
    assert origin(organiser_client, drive, table) == (
        "played and scored on the phones, corrected by the organiser (its points count)")


@pytest.mark.django_db
@pytest.mark.parametrize("disputed", [False, True])
def test_an_entry_the_organiser_saves_as_it_stands_is_confirmed_by_them_not_corrected(organiser, organiser_client,
                                                                                       disputed):
    """The result page offers to confirm an entry waiting for it, or to uphold a disputed one,
    by saving it unchanged: it was said "corrected by the organiser" and exported corrected=1
    (found by probing). Changed later, it is corrected."""
    drive = seated_drive(organiser, 4)
    table = drive.hands.get().tables.get()
    sidney, other = seated_players(table)[:2]
    phone_entry(drive, sidney, 0, "sidney-5")
    if disputed:
        phone(drive, other).post(f"/{drive.join_code}/dispute",
                                 {"seen_revision": "1", "reason": "Bob declared", **shown_for(other)})
    correct(drive, table, organiser, 0)  # the same answers
    said = f"entered by {sidney.name} on their phone, confirmed by the organiser"
    assert origin(organiser_client, drive, table) == f"{said} (its points count)"
    page = html.unescape(re.sub(r"<[^>]+>", "", phone(drive, other).get(f"/{drive.join_code}/me").content.decode()))
    assert f"{said[0].upper()}{said[1:]}: these points count." in page and "corrected" not in page
    rows = list(csv.reader(io.StringIO(organiser_client.get(f"/drives/{drive.pk}/export/hands.csv")
                                       .content.decode("utf-8-sig"))))
    assert {(row[rows[0].index("corrected")], row[rows[0].index("confirmed_by")]) for row in rows[1:]} == {
        ("0", "organiser")}
    correct(drive, table, organiser, 1)  # now other answers
    assert origin(organiser_client, drive, table) == (
        f"entered by {sidney.name} on their phone, corrected by the organiser (its points count)")
    assert confirmed_by_column(organiser_client, drive) == {""}


def said_to(response) -> list[str]:
    return [str(m).replace("\u2068", "").replace("\u2069", "") for m in get_messages(response.wsgi_request)]


@pytest.mark.django_db
@pytest.mark.parametrize("judged", ["confirm", "dispute"])
def test_a_judgement_sent_twice_is_answered_as_the_first_and_changes_nothing(organiser, judged):
    """A confirmation tapped twice, or sent again by the phone's offline queue after
    its answer was lost, showed the player who had confirmed it an error."""
    drive = seated_drive(organiser, 4)
    table = drive.hands.get().tables.get()
    sidney, other, third = seated_players(table)[:3]
    phone_entry(drive, sidney, 0, "sidney-twice")
    data = {"seen_revision": "1", "reason": "Bob declared", **shown_for(other)}
    first = phone(drive, other).post(f"/{drive.join_code}/{judged}", data)
    before = Result.objects.get()
    again = phone(drive, other).post(f"/{drive.join_code}/{judged}", data)
    assert said_to(again) == said_to(first) and not any("already" in m for m in said_to(again))
    after = Result.objects.get()
    assert (after.status, after.confirmed_by_id, after.dispute_reason, after.revision) == (
        before.status, before.confirmed_by_id, before.dispute_reason, before.revision)
    # Another player is told who did, not that it failed for no reason.
    later = phone(drive, third).post(f"/{drive.join_code}/confirm", {"seen_revision": "1", **shown_for(third)})
    done = "confirmed" if judged == "confirm" else "disputed"
    assert said_to(later) == [f"{other.name} has {done} Table 1's result already. Nothing was changed."]
    # Settled by the organiser since: said so, to the one who judged it too.
    correct(drive, table, organiser, 1)
    for who in (other, third):
        late = phone(drive, who).post(f"/{drive.join_code}/{judged}", {**data, **shown_for(who)})
        assert said_to(late) == ["The organiser has settled Table 1's result since: it counts as it stands now. "
                                 "Nothing was changed."], who


@pytest.mark.django_db
@pytest.mark.parametrize("then", ["corrected", "upheld"])
def test_after_a_new_entry_and_a_dispute_the_export_tells_the_result_pages_story(organiser, organiser_client, then):
    """A walkthrough asked whether the hands CSV's ``entered_by``, ``confirmed_by`` and
    ``corrected`` say what the result page says once an entry was replaced by another player's,
    disputed and settled: who entered it last, and that the organiser corrected it (no one
    confirmed those answers) or confirmed it as it stood."""
    drive = seated_drive(organiser, 4)
    table = drive.hands.get().tables.get()
    sidney, other, third = seated_players(table)[:3]
    phone_entry(drive, sidney, 0, "sidney-6")
    data = {"declarer": "1", "nine_card": "False", "dealer": "0", "client_key": "third-1", "seen_revision": "1",
            **shown_for(third)}
    for i in range(4):
        data[f"seat{i}_sets"] = "0"
        data[f"seat{i}_ice"] = "none"
    assert phone(drive, third).post(f"/{drive.join_code}/enter", data).status_code == 302  # a new entry
    phone(drive, other).post(f"/{drive.join_code}/dispute", {"seen_revision": "2", "reason": "Cy declared",
                                                             **shown_for(other)})
    correct(drive, table, organiser, 2 if then == "corrected" else 1)
    assert origin(organiser_client, drive, table) == (
        f"entered by {third.name} on their phone, {then.replace('upheld', 'confirmed')} by the organiser "
        "(its points count)")
    assert export_column(organiser_client, drive, "entered_by") == {third.name}
    assert export_column(organiser_client, drive, "corrected") == {"1" if then == "corrected" else "0"}
    assert confirmed_by_column(organiser_client, drive) == {"" if then == "corrected" else "organiser"}
