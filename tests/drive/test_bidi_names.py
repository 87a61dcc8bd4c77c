"""Typed names (players', drives') are isolated from the text around them wherever a page shows
them in its content: in a ``<bdi>``, also where a plain-text sentence (a refusal, a flashed
message) marked them with U+2068 and U+2069 (those two become the ``<bdi>``), and always
escaped (common/bidi.py). A right-to-left name, or one ending in digits, would otherwise
reorder the words and numbers beside it. A title, an attribute or a swap list's ``<option>``
holds the name as it is, as a dialog's text (``confirm()``) does; a page's text holds no
invisible isolating characters (a search for "Eve is on the list already" must find it)."""

from __future__ import annotations

import json
import random
import re

import pytest
from django.test import Client
from django.utils.html import escape
from django.utils.safestring import SafeString

from common.bidi import bdi, isolate, isolates_as_bdi
from drive import pages, results, selectors, services
from drive.models import Drive
from drive.results import Shown
from tables import screen_facts
from tests.factories import declared, make_drive, shown_for

pytestmark = pytest.mark.django_db

FSI, PDI, LRM = "\u2068", "\u2069", "\u200e"
DRIVE = "ערב 7"  # a right-to-left drive name that ends in a digit
RTL = ["נועה", "مريم"]
DIGITS = "Ann 2"  # before "15 points" it would read as one number
HTML = "<b>Bo</b>"
PLAYERS = [*RTL, DIGITS, HTML, "P005", "P006", "P007", "P008"]
LATE = "דן 3"  # arrives during hand 1: waiting to be seated
NAMES = [DRIVE, *PLAYERS, LATE]


def assert_isolated(body: str, where: str, shown: list[str]) -> None:
    """Every occurrence of every name in ``body``'s content is escaped and in a ``<bdi>`` (but a
    title, an attribute (a dialog's text among them), a swap list's option, which hold it as it
    is); each of ``shown`` is there at least once; the page's text has none of the isolating
    characters."""
    assert HTML not in body, f"{where}: a name shown as HTML"
    content = re.sub(r"<title>.*?</title>|<option[^>]*>[^<]*</option>", "", body, flags=re.S)
    content = re.sub(r"<([a-z]+)(?:[^>\"']|\"[^\"]*\"|'[^']*')*>", r"<\1>", content)  # the attributes dropped
    assert FSI not in content and PDI not in content and LRM not in content, f"{where}: an invisible mark in the text"
    for name in NAMES:
        text = escape(name)
        isolated = content.count(f"<bdi>{text}</bdi>") + body.count(f'<span class="chart-name" dir="auto">{text}</span>')
        assert content.count(text) == isolated, f"{where}: {name!r} shown {content.count(text)} times, isolated {isolated}"
    for name in shown:
        assert escape(name) in body, f"{where}: {name!r} is not shown"


def phone(drive: Drive, player) -> Client:
    client = Client()
    client.cookies[f"ff_{drive.join_code}"] = player.token
    return client


def seated(table) -> list:
    return [s.player for s in table.seats.select_related("player").order_by("position")]


def names_of(players) -> list[str]:
    return [p.name for p in players]


@pytest.fixture
def hand_one(organiser):
    """Hand 1 under way: Table 1's result confirmed by the organiser, Table 2's entered on a
    phone by its first player, and a late arrival waiting to be seated."""
    drive = make_drive(organiser, 0, name=DRIVE)
    services.add_players(drive, PLAYERS)
    services.draw_seating(drive, random.Random(7))
    services.start_hand(drive)
    t1, t2 = drive.hands.get().tables.order_by("number")
    services.organiser_result(drive, t1, declared(4, 0), organiser)
    results.enter(drive, seated(t2)[0], declared(4, 1), client_key="k1", seen_revision=0,
                  shown=Shown(1, 2, seated(t2)[0].pk))
    services.add_players(drive, [LATE])
    return drive, t1, t2


def test_the_organisers_pages_isolate_every_name(hand_one, organiser_client):
    drive, t1, t2 = hand_one
    base = f"/drives/{drive.pk}"
    for url, shown in [
        ("/", [DRIVE]),
        (f"{base}/", NAMES),  # the players' list, the table cards, the standings, the waiting
        (f"{base}/edit", [DRIVE]),
        (f"{base}/standings", [DRIVE, *PLAYERS]),
        (f"{base}/phones", NAMES),
        (f"{base}/hands/1", [DRIVE, *PLAYERS]),
        (f"{base}/print/tables", [DRIVE, *PLAYERS]),
        (f"{base}/print/scorecards", NAMES),
        (f"{base}/results/{t1.pk}", [DRIVE, *names_of(seated(t1))]),  # the seats' questions
    ]:
        assert_isolated(organiser_client.get(url).content.decode(), url, shown)


def test_the_phones_pages_isolate_every_name(hand_one):
    drive, t1, t2 = hand_one
    enterer, me = seated(t2)[0], seated(t2)[1]
    assert_isolated(Client().get(f"/{drive.join_code}").content.decode(), "join", NAMES)
    for url in (f"/{drive.join_code}/me", f"/{drive.join_code}/me?fragment=1"):
        body = phone(drive, me).get(url).content.decode()
        # The drive, who I am, "with A, B and C", the entry's points, "Entered by …".
        assert_isolated(body, url, names_of(seated(t2)))
        assert f"Entered by {bdi(enterer.name)}." in body
        others = [bdi(p.name) for p in seated(t2) if p != me]
        assert f"Table 2 — with {others[0]}, {others[1]} and {others[2]}" in body
    body = phone(drive, me).get(f"/{drive.join_code}/enter").content.decode()
    assert_isolated(body, "enter", names_of(seated(t2)))  # the seats' questions, who entered
    assert f"{bdi(enterer.name)} has entered a result" in body


def test_the_board_isolates_every_name_through_the_evening(hand_one, organiser):
    drive, t1, t2 = hand_one
    board = Client()
    body = board.get(f"/{drive.join_code}/board").content.decode()
    assert_isolated(body, "board, hand 1", [DRIVE, *names_of(seated(t1))])
    assert 'class="chart"' in body  # the leaders' chart: its labels are isolated too
    results.confirm(drive, seated(t2)[2], seen_revision=1, shown=Shown(1, 2, seated(t2)[2].pk))
    services.close_hand(drive)
    body = board.get(f"/{drive.join_code}/board").content.decode()
    assert 'data-movement' in body
    assert_isolated(body, "board, the next seating", NAMES)  # every seat's movement
    services.end_drive(drive)
    services.show_prizes(drive, True)
    body = board.get(f"/{drive.join_code}/board").content.decode()
    assert "data-prizes" in body
    assert_isolated(body, "board, the prizes", [DRIVE, *PLAYERS])


def test_the_live_fragments_isolate_every_name(hand_one, organiser):
    drive, t1, t2 = hand_one

    def fragments() -> list[tuple[str, str]]:
        private, public = selectors.drive_view(drive), selectors.drive_view(drive, public=True)
        return [*pages.dashboard_parts(private).items(), *pages.board_parts(public).items(),
                *pages.phone_parts(public).items()]

    for key, html in fragments():
        assert_isolated(html, f"hand 1: {key}", [])
    results.confirm(drive, seated(t2)[2], seen_revision=1, shown=Shown(1, 2, seated(t2)[2].pk))
    services.close_hand(drive)
    parts = dict(fragments())
    for key, html in parts.items():
        assert_isolated(html, f"seating of hand 2: {key}", [])
    assert_isolated(parts["dashboard"], "dashboard", [*PLAYERS, LATE])  # the swap lists hold every seated name
    # A swap list's option starts with the name, as it is (a letter typed jumps to it).
    first = seated(t1)[0]
    assert f'<option value="{first.pk}">{escape(first.name)} (T1)</option>' in parts["dashboard"]
    assert_isolated(parts["board"], "board", NAMES)


def test_the_game_screens_isolate_the_names_they_render(organiser, django_user_model):
    drive = make_drive(organiser, 0, name=DRIVE, play_mode="digital", preferred_table_size=4)
    services.add_players(drive, [*RTL, DIGITS, HTML])
    services.draw_seating(drive, random.Random(7))
    services.start_hand(drive)
    table = drive.hands.get().tables.get()
    me = seated(table)[0]
    body = phone(drive, me).get(f"/{drive.join_code}/play").content.decode()
    assert_isolated(body, "play", [DRIVE, me.name])
    assert f"Playing as <strong>{bdi(me.name)}</strong>" in body
    organiser_client = Client()
    organiser_client.force_login(organiser)
    body = organiser_client.get(f"/{drive.join_code}/tables/1/watch").content.decode()
    assert_isolated(body, "watch", [DRIVE])
    # The frames carry names as data, exactly as typed: the game screen's shared client
    # (static/js/play_client.js) puts each in its own <bdi> (tests/tables/test_play_browser.py).
    assert [s["name"] for s in screen_facts.seat_names(table)] == names_of(seated(table))


def test_messages_that_name_players_isolate_them(hand_one, organiser_client):
    drive, t1, t2 = hand_one
    late = drive.players.get(name=LATE)
    url = f"/drives/{drive.pk}/players/presence"
    # A message built for a page: the name in a <bdi>.
    body = organiser_client.post(url, {"withdraw": late.pk}, follow=True).content.decode()
    assert f"{bdi(LATE)} has left the drive" in body
    # A refusal is plain text, its names between isolate characters (a script sets it as text),
    # and on a page each of them a <bdi>.
    body = organiser_client.post(url, {"withdraw": late.pk}, follow=True).content.decode()
    assert f"{bdi(LATE)} has already left." in body
    enterer, other = seated(t2)[0], seated(t2)[1]
    data = {"declarer": "2", "nine_card": "False", "dealer": "0", "client_key": "k2", "seen_revision": "0",
            **shown_for(other, table=2), **{f"seat{i}_{f}": v for i in range(4) for f, v in (("sets", "0"), ("ice", "none"))}}
    answer = phone(drive, other).post(f"/{drive.join_code}/enter", data, HTTP_ACCEPT="application/json")
    assert answer.status_code == 200 and answer.json()["ok"] is False
    assert json.loads(answer.content)["message"].startswith(f"{isolate(enterer.name)} sent Table 2's result first")


def test_the_helpers_escape_and_isolate():
    assert bdi("<b>Bo</b>") == "<bdi>&lt;b&gt;Bo&lt;/b&gt;</bdi>"
    assert isolate("נועה") == "\u2068נועה\u2069"
    assert isolates_as_bdi(f"{isolate('<b>Bo</b>')} & {isolate('נועה')}") == "<bdi>&lt;b&gt;Bo&lt;/b&gt;</bdi> &amp; <bdi>נועה</bdi>"
    assert isolates_as_bdi(bdi("Ann") + SafeString(" is back.")) == "<bdi>Ann</bdi> is back."  # already HTML


def test_dispute_and_correction_reasons_are_isolated_too(hand_one, organiser_client):
    """Free text players and the organiser type (a dispute's reason, a correction's) may be
    right-to-left as well: isolated where it is quoted (noticed by the helper who isolated names)."""
    from scoring.models import Result
    from tables.models import TableHand

    drive, t1, t2 = hand_one
    reason = "שגוי 15"
    Result.objects.filter(table=t2).update(status=Result.Status.DISPUTED, dispute_reason=reason)
    TableHand.objects.filter(pk=t2.pk).update(status=TableHand.Status.DISPUTED)
    services.organiser_result(drive, t1, declared(4, 1), drive.organiser, reason=reason, seen_revision=1)
    isolated = f"“<bdi>{reason}</bdi>”"
    assert isolated in organiser_client.get(f"/drives/{drive.pk}/").content.decode()  # the dispute
    assert isolated in organiser_client.get(f"/drives/{drive.pk}/results/{t2.pk}").content.decode()
    assert isolated in organiser_client.get(f"/drives/{drive.pk}/results/{t1.pk}").content.decode()  # its log
    assert f"<td><bdi>{reason}</bdi></td>" in organiser_client.get(f"/drives/{drive.pk}/log").content.decode()
    assert isolated in phone(drive, seated(t2)[1]).get(f"/{drive.join_code}/me").content.decode()


def test_player_names_are_escaped(organiser_client, organiser):
    drive = make_drive(organiser, 0)
    services.add_players(drive, ["<script>alert(1)</script>", "Bob"])
    page = organiser_client.get(f"/drives/{drive.pk}/").content.decode()
    assert "<script>alert(1)</script>" not in page and "&lt;script&gt;" in page


def test_a_name_with_quotes_and_markup_is_escaped_in_the_players_list_its_button_and_its_seat(organiser_client, organiser):
    """The players' list and the table cards' seats are HTML built in Python
    (``drive_tags.player_items``, ``seat_items``): a name is text there, in an attribute too."""
    drive = make_drive(organiser, 7)
    name = 'Bo" onclick="alert(1)\' <i>x</i> & co'
    services.add_players(drive, [name])
    services.draw_seating(drive)
    page = organiser_client.get(f"/drives/{drive.pk}/").content.decode()
    text = "Bo&quot; onclick=&quot;alert(1)&#x27; &lt;i&gt;x&lt;/i&gt; &amp; co"
    assert 'onclick="' not in page and "<i>x</i>" not in page
    assert f'data-take-out="{text}"' in page
    assert f"<li><bdi>{text}</bdi>" in page and f"Take <bdi>{text}</bdi> out" in page
    seat = re.search(rf'<li><span class="muted">Seat \d</span> <bdi>{re.escape(text)}</bdi>', page)
    assert seat is not None, "the seat names them, escaped"
