"""Text typed into a field is read no further than ``MAX_TYPED`` characters: Unicode's
normalisation (NFKC) takes time that grows with the square of a run of combining marks, in C,
holding the interpreter. Found from outside: a phone's new name of 126,000 accents (252 KB,
under the body limit) froze the whole server for 11 s, a dispute's reason likewise inside the
drive's lock. Each field is refused or cut before it is normalised, and says why."""

from __future__ import annotations

import unicodedata

import pytest

from drive import services
from drive.models import Player
from scoring.models import Correction, Result
from tests.drive.phones_support import entry_data, phone_for, table_of_four, text  # noqa: F401 (fixture)
from tests.factories import declared, make_drive, seated_drive, shown_for

pytestmark = pytest.mark.django_db

ACCENTS = "a" + "\u0301\u0316" * 63_000  # a letter and 126,000 combining marks: 252 KB typed


@pytest.fixture
def normalised(monkeypatch) -> list[int]:
    """The length of every text Unicode's normalisation is given, in order."""
    lengths: list[int] = []
    real = unicodedata.normalize

    def spy(form, text):
        lengths.append(len(text))
        return real(form, text)

    monkeypatch.setattr(unicodedata, "normalize", spy)
    return lengths


def test_a_phones_new_name_longer_than_anything_is_refused_unread(client, organiser, normalised):
    drive = make_drive(organiser, 3, allow_self_join=True)
    response = client.post(f"/{drive.join_code}/join", {"new_name": ACCENTS}, follow=True)
    assert f"is too long: names have at most {services.MAX_NAME} characters." in text(response)
    assert drive.players.count() == 3 and max(normalised, default=0) <= services.names.MAX_TYPED
    response = client.post(f"/{drive.join_code}/join", {"new_name": "Zoë"}, follow=True)
    assert drive.players.filter(name="Zoë").exists()


def test_a_pasted_list_longer_than_a_name_is_read_a_name_at_a_time(organiser_client, organiser, normalised):
    """The organiser's list is held to 20,000 characters by its form and read a line, or a
    piece between commas, at a time: sixty names on one line, separated by commas, are sixty
    players; a name on it longer than anything typed is refused as too long, unread, the others
    added. Read whole, a list of 20,000 accents held the server for 4 s (found by probing)."""
    drive = make_drive(organiser, 0)
    names = [f"Player number {i:02d}" for i in range(60)]
    organiser_client.post(f"/drives/{drive.pk}/players", {"names": ", ".join(names)})
    assert sorted(drive.players.values_list("name", flat=True)) == names
    organiser_client.post(f"/drives/{drive.pk}/players", {"names": f"Ann\uff0c{'b' * 1500}, Bob"})
    assert drive.players.filter(name__in=["Ann", "Bob"]).count() == 2 and drive.players.count() == 62
    normalised.clear()
    response = organiser_client.post(f"/drives/{drive.pk}/players",
                                     {"names": "\u0301" * 10_000 + "\u0316" * 9_990 + "\nZoë"}, follow=True)
    assert "is too long: names have at most 40 characters." in text(response)
    assert drive.players.filter(name="Zoë").exists() and drive.players.count() == 63
    assert max(normalised) <= services.names.MAX_TYPED


def test_a_disputes_long_reason_is_cut_before_it_is_read(table_of_four, normalised):  # noqa: F811
    drive, table, players = table_of_four
    phone_for(drive, players[0]).post(f"/{drive.join_code}/enter", entry_data(4, 2, by=players[0]))
    phone_for(drive, players[3]).post(f"/{drive.join_code}/dispute", {**shown_for(players[3]), "seen_revision": 1,
                                                                   "reason": "Cy had 9 cards " + ACCENTS})
    result = Result.objects.get()
    assert result.status == Result.Status.DISPUTED and result.dispute_reason.startswith("Cy had 9 cards á")
    assert len(result.dispute_reason) <= 200 and max(normalised) <= services.names.MAX_TYPED


def test_the_organisers_long_texts_are_refused_unread(organiser_client, organiser, normalised):
    drive = seated_drive(organiser, 4)
    table = drive.hands.get().tables.get()
    services.organiser_result(drive, table, declared(4, 0), organiser)
    data = {"declarer": "2", "nine_card": "False", "dealer": "0", "reason": ACCENTS, "seen_revision": "1",
            **{f"seat{i}_sets": "0" for i in range(4)}, **{f"seat{i}_ice": "none" for i in range(4)}}
    response = organiser_client.post(f"/drives/{drive.pk}/results/{table.pk}", data)
    assert "Keep the reason for the correction to 300 characters (it has 126001)." in text(response)
    assert not Correction.objects.exists()
    response = organiser_client.post("/drives/new", {
        "name": ACCENTS, "date": "2026-12-05", "target": "hands", "target_hands": 5, "target_total": 50,
        "preferred_table_size": 4, "play_mode": "physical", "suspense_hands": 0, "game": "film-fantasy"})
    assert "Keep the name to 120 characters (it has 126001)." in text(response)
    assert max(normalised) <= services.names.MAX_TYPED and Player.objects.count() == 4
