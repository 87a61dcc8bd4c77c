"""What the organiser's pages and the live updates cost and carry: query counts that do not grow
with tables, the dashboard's reads and model instances, and the pushed fragments (their player
count, no CSRF token)."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from drive import services
from drive.models import Drive
from drive.results import Shown
from tests.factories import declared, finish_all_tables, make_drive, seated_drive

pytestmark = pytest.mark.django_db


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


def test_dashboard_of_a_hand_in_play_runs_eleven_queries(organiser_client, organiser, django_assert_num_queries):
    """The dashboard's reads, one query each; none per table (a dealt table's state is not read
    to know it is on the phones) nor per player (the seats and scores are given the players
    read once)."""
    drive = _hand_in_play_with_digital_tables(organiser)
    # session, user, drive, current hand, players (with bot), tables (with results), seats,
    # scores, standings, previous hand's seats (movement), results sent late (with their
    # player and table)
    with django_assert_num_queries(11):
        page = organiser_client.get(f"/drives/{drive.pk}/").content.decode()
    assert "hands still played on the phones (Tables 1 and 2)" in page  # the dealt tables, known without their state
    assert page.count("Enter result") == 1 and page.count("A player has left?") == 2


def test_a_live_update_reads_no_table_state_and_renders_without_queries(organiser, django_assert_num_queries):
    """``selectors.drive_view`` runs for every live update (dashboard, board, every phone): it
    leaves out each table's digital state, which no screen shows, and what it read is enough
    to render the dashboard's and the phones' fragments (the board adds its chart's query)."""
    from drive import pages, selectors

    drive = _hand_in_play_with_digital_tables(organiser)
    # current hand, players (with bot), tables (with results), seats, scores, standings,
    # previous hand's seats (movement), results sent late (the organiser's view)
    with django_assert_num_queries(8):
        view = selectors.drive_view(drive)
    assert all("state" in table.get_deferred_fields() for table in view.tables)
    assert [t.number for t in view.tables if t.on_the_phones] == [1, 2]
    with django_assert_num_queries(0):
        pages.dashboard_parts(view)
        pages.phone_parts(view)
    with django_assert_num_queries(1):  # the leaders' chart
        pages.board_parts(view)


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


def test_the_live_part_of_the_dashboard_counts_the_players_as_the_page_does(organiser_client, organiser):
    """The dashboard's live part (the page's and every push's) says how many players there are
    before the seating is drawn; the push once said "0 players so far"."""
    from drive import pages, selectors

    drive = make_drive(organiser, 0)
    organiser_client.post(f"/drives/{drive.pk}/players", {"names": "Ann\nBob\nCy\nDi\nEd"})
    assert "5 players so far" in organiser_client.get(f"/drives/{drive.pk}/").content.decode()
    pushed = pages.dashboard_parts(selectors.drive_view(drive))["dashboard"]
    assert "5 players so far" in pushed


def test_pushed_fragments_carry_no_token_and_no_warning_while_the_page_has_one(organiser_client, organiser,
                                                                             settings, recwarn):
    """A pushed dashboard or phone fragment is rendered once for everyone, without a request:
    its forms carry no CSRF token (live.js adds the page's own), and rendering it warns of
    nothing (Django warns of a token tag without one when DEBUG is on). The page itself, rendered
    for its request, carries the token in every form."""
    from drive import pages, selectors

    settings.DEBUG = True
    drive = seated_drive(organiser, 4)
    table = drive.hands.get().tables.get()
    players = [s.player for s in table.seats.order_by("position")]
    from drive import results

    results.enter(drive, players[0], declared(4, 0), client_key="k", seen_revision=0, shown=Shown(1, 1, players[0].pk))
    view = selectors.drive_view(drive)
    dashboard = pages.dashboard_parts(view)["dashboard"]
    phone = pages.phone_parts(view, [players[1]])[str(players[1].pk)]
    assert "<form" in dashboard and "Confirm: this is right" in phone  # forms there are
    assert "csrfmiddlewaretoken" not in dashboard + phone
    assert not [w for w in recwarn if "csrf_token" in str(w.message)]
    page = organiser_client.get(f"/drives/{drive.pk}/").content.decode()
    assert page.count("<form") == page.count('name="csrfmiddlewaretoken"')
