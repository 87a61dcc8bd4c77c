"""Every list of a drive's names orders them alike: as people look for them, accents and case
aside ("Élodie" among the E's), then as typed (``scoring.standings.by_name``)."""

from __future__ import annotations

from django.test import Client

from drive import services
from tests.factories import make_drive


def test_the_dashboards_players_and_the_score_cards_list_names_as_the_standings_do(organiser_client, organiser):
    """Found by a tester: the dashboard's players and the score cards put "Élodie" after "Zoë"
    (by the letters' codes), where the standings and the join list put her among the E's."""
    drive = make_drive(organiser, 0)
    services.add_players(drive, ["Zoë", "élodie B", "Élodie", "Frank", "ann", "Zoe"])
    expected = ["ann", "Élodie", "élodie B", "Frank", "Zoe", "Zoë"]  # names alike but for an accent: as typed

    def order(page: str) -> list[str]:
        return sorted(expected, key=page.index)

    dashboard = organiser_client.get(f"/drives/{drive.pk}/").content.decode()
    assert order(dashboard[dashboard.index('<div data-live="players">'):]) == expected
    assert order(organiser_client.get(f"/drives/{drive.pk}/print/scorecards").content.decode()) == expected
    # The Phones page and the join page list them alike (they had sorted by the letters alone,
    # leaving "Zoë" before "Zoe", as added).
    phones = organiser_client.get(f"/drives/{drive.pk}/phones").content.decode()
    assert order(phones[phones.index("<table"):]) == expected
    join = Client().get(f"/{drive.join_code}").content.decode()
    assert order(join[join.index("<main"):]) == expected
