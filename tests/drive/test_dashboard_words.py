"""The organiser's pages say each thing once and name the drive they are about."""

from __future__ import annotations

import html
import re

import pytest

from drive import services
from tests.factories import make_drive, seated_drive

pytestmark = pytest.mark.django_db


def page_text(response) -> str:
    """The page's words: tags dropped, entities read, spaces squeezed, isolates dropped."""
    words = re.sub(r"<[^>]+>", " ", response.content.decode())
    return re.sub(r"\s+", " ", html.unescape(words)).replace("\u2068", "").replace("\u2069", "").strip()


def summary_line(organiser_client, drive) -> str:
    text = page_text(organiser_client.get(f"/drives/{drive.pk}/"))
    return re.search(r"\d{4} · Film Fantasy · (.*?) · tables of", text).group(1)  # the date, the game, then this


@pytest.mark.parametrize("fields, said", [
    ({"target": "hands", "target_hands": 4}, "4 hands"),
    ({"target": "hands", "target_hands": 1}, "1 hand"),
    ({"target": "total", "target_total": 500}, "first to 500 points"),
    ({"target": "either", "target_hands": 6, "target_total": 300}, "6 hands or first to 300 points, whichever comes first"),
])
def test_the_dashboard_says_how_the_drive_ends_once(organiser_client, organiser, fields, said):
    """QA read "An agreed number of hands · 4 hands" under the drive's name."""
    drive = make_drive(organiser, 4, **fields)
    assert summary_line(organiser_client, drive) == said


def test_the_corrections_log_names_its_drive_in_the_heading_and_the_title(organiser_client, organiser):
    drive = seated_drive(organiser, 4, name="Wonderland QA night")
    page = organiser_client.get(f"/drives/{drive.pk}/log").content.decode()
    heading = re.search(r"<h1>(.*?)</h1>", page, re.S).group(1)
    assert re.sub(r"<[^>]+>", "", heading) == "Corrections log — Wonderland QA night"
    assert re.search(r"<title>Corrections log — Wonderland QA night</title>", page)


def test_the_close_warns_that_it_ends_a_drive_whose_total_a_player_has_reached(organiser, organiser_client):
    """A drive that ends at a total said nothing before the close that ended it."""
    from drive import services
    from drive.models import Drive
    from tests.factories import declared, seated_drive

    drive = seated_drive(organiser, 8, target=Drive.Target.TOTAL, target_total=25)
    tables = list(drive.hands.get().tables.order_by("number"))
    services.organiser_result(drive, tables[0], declared(4, 0), organiser)  # 15 points: short of 25
    page = organiser_client.get(f"/drives/{drive.pk}/").content.decode()
    assert "data-last-hand" not in page and "data-mover" in page
    services.organiser_result(drive, tables[1], declared(4, 0, nine=True), organiser)  # 25: reached
    page = organiser_client.get(f"/drives/{drive.pk}/").content.decode()
    assert "The last hand: closing it ends the drive and makes its standings final." in page
    assert "data-mover" not in page  # nor do the tables' cards say who moves (nobody will)
