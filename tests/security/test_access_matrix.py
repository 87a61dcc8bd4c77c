"""Who may open what: every URL and socket against five personas (docs/security.md has the table).

Personas: the organiser; a player of table 1; a player of table 2 (same drive); a player of
another drive (their own cookie, for their drive); a stranger (no session, no cookie). Also: a
second organiser (404 on this drive's pages), HTML in names shown as text everywhere, CSV formula
injection neutralised, CSRF on every POST form.
"""

from __future__ import annotations

import re

import pytest
from channels.testing import WebsocketCommunicator
from django.test import Client

from config.asgi import application
from drive import services
from scoring.models import Result
from tests.factories import declared, shown_for
from tests.security.conftest import entry_data, snapshot

pytestmark = pytest.mark.django_db

ORGANISER_GET = ["/drives/{d}/", "/drives/{d}/edit", "/drives/{d}/results/{t}", "/drives/{d}/standings",
                 "/drives/{d}/phones", "/drives/{d}/log", "/drives/{d}/hands/1", "/drives/{d}/export/hands.csv",
                 "/drives/{d}/export/standings.csv", "/drives/{d}/print/tables", "/drives/{d}/print/scorecards",
                 "/{c}/tables/1/watch"]
ORGANISER_POST = ["/drives/{d}/edit", "/drives/{d}/players", "/drives/{d}/players/presence", "/drives/{d}/draw", "/drives/{d}/swap",
                  "/drives/{d}/tables/1/mode", "/drives/{d}/start", "/drives/{d}/close", "/drives/{d}/end",
                  "/drives/{d}/results/{t}", "/drives/{d}/results/{t}/preview", "/drives/{d}/phones/{p}/revoke",
                  "/drives/{d}/prizes",
                  "/{c}/tables/{t}/add-bot", "/{c}/tables/{t}/stand-in"]
PHONE_PAGES = ["/{c}/me", "/{c}/enter"]
# What every organiser action is sent: enough for each to act (the result preview needs answers).
ACTION_DATA = {"names": "Zed", "show": "0", **entry_data(4, 0)}  # its "hand": 1, the hand shown


def fill(path: str, world) -> str:
    return path.format(d=world.drive.pk, t=world.t1.pk, p=world.table2[3].pk, c=world.code)


def personas(world) -> dict[str, Client]:
    return {
        "player_of_table": world.phone(world.enterer),
        "player_of_other_table": world.phone(world.other_table_player),
        "player_of_other_drive": world.phone(world.other_drive_player),
        "stranger": Client(),
    }


@pytest.mark.parametrize("path", ORGANISER_GET)
def test_organiser_pages_get(world, path):
    url = fill(path, world)
    assert world.organiser_client().get(url).status_code == 200
    assert world.other_organiser_client().get(url).status_code == 404
    for who, client in personas(world).items():
        response = client.get(url)
        assert response.status_code == 302 and response["Location"].startswith("/login/"), who


def test_no_page_is_kept_by_a_browser_or_a_proxy_and_static_files_are(world):
    """Found from outside: the Phones page (every player's private link), the dashboard, the
    exports and a phone's pages came with no Cache-Control, so Back after signing out of a
    borrowed laptop showed them from the browser's cache."""
    pages = {fill(path, world): world.organiser_client() for path in ORGANISER_GET}
    pages.update({fill(path, world): world.phone(world.enterer) for path in PHONE_PAGES})
    pages.update({f"/{world.code}/board": Client(), f"/{world.code}": Client(), "/login/": Client(),
                  f"/{world.code}/p/{world.enterer.token}": Client()})
    for url, client in pages.items():
        response = client.get(url)
        assert response.status_code == 200, url
        assert {"no-store", "private"} <= set(map(str.strip, response["Cache-Control"].split(","))), url
    static = Client().get("/static/css/app.css")
    assert static.status_code == 200 and "no-store" not in static.get("Cache-Control", "")


@pytest.mark.parametrize("path", ORGANISER_POST)
def test_organiser_actions_post(world, path):
    url = fill(path, world)
    before = snapshot()
    assert world.other_organiser_client().post(url, ACTION_DATA).status_code == 404
    for who, client in personas(world).items():
        response = client.post(url, ACTION_DATA)
        assert response.status_code == 302 and response["Location"].startswith("/login/"), who
    assert snapshot() == before
    response = world.organiser_client().post(url, ACTION_DATA)
    assert response.status_code in (200, 302) and not response.get("Location", "").startswith("/login/")


def test_organiser_gets_are_not_writes(world):
    """GET on a POST-only action is refused (405), so a link or an image tag cannot act."""
    client = world.organiser_client()
    before = snapshot()
    for path in ORGANISER_POST:
        if path in ("/drives/{d}/edit", "/drives/{d}/results/{t}"):
            continue  # pages with a form: GET shows it
        assert client.get(fill(path, world)).status_code == 405, path
    assert snapshot() == before


@pytest.mark.parametrize("path", PHONE_PAGES)
def test_player_pages_need_this_drives_player_cookie(world, path):
    url = fill(path, world)
    expected = {"player_of_table": 200, "player_of_other_table": 200,
                "player_of_other_drive": 302, "stranger": 302}
    for who, client in personas(world).items():
        response = client.get(url)
        assert response.status_code == expected[who], who
        if expected[who] == 302:
            assert response["Location"] == f"/{world.code}"
    # Another drive's token under this drive's cookie name is no better than none.
    forged = Client()
    forged.cookies[f"ff_{world.code}"] = world.other_drive_player.token
    assert forged.get(url).status_code == 302
    assert world.organiser_client().get(url).status_code == 302  # the organiser is not a player


def test_board_and_join_page_are_public_by_design(world):
    for client in [*personas(world).values(), world.organiser_client()]:
        assert client.get(f"/{world.code}/board").status_code == 200
        assert client.get(f"/{world.code}").status_code in (200, 302)


def test_confirm_and_dispute_only_by_another_player_of_that_table(world):
    world.phone(world.enterer).post(f"/{world.code}/enter", entry_data(4, 2, by=world.enterer))
    before = snapshot()
    # Each as its own page would say (the enterer also naming the confirmer, as a page the
    # confirmer left on the enterer's phone would; no player of this drive naming the confirmer).
    for client, named in ((world.phone(world.enterer), world.enterer), (world.phone(world.enterer), world.confirmer),
                          (world.phone(world.other_table_player), world.other_table_player),
                          (world.phone(world.other_drive_player), world.other_drive_player),
                          (Client(), world.confirmer), (world.organiser_client(), world.confirmer)):
        for action in ("confirm", "dispute"):
            client.post(f"/{world.code}/{action}", {"seen_revision": "1", **shown_for(named), "reason": "no"})
    assert snapshot() == before
    world.phone(world.confirmer).post(f"/{world.code}/confirm", {"seen_revision": "1", **shown_for(world.confirmer)})
    assert Result.objects.get().status == "confirmed"


def test_preview_needs_a_player(world):
    for client in (Client(), world.phone(world.other_drive_player)):
        answer = client.post(f"/{world.code}/preview", entry_data(4, 0))  # refused: no points shown
        body = answer.json()
        assert answer.status_code == 200 and body["ok"] is False and body["message"] and "points" not in body


def test_the_result_preview_answers_its_organiser_and_writes_nothing(world):
    url = fill("/drives/{d}/results/{t}/preview", world)
    before = snapshot()
    response = world.organiser_client().post(url, entry_data(4, 0))
    assert response.status_code == 200 and [row["points"] for row in response.json()["points"]] == [15, 0, 0, 0]
    assert world.other_organiser_client().post(url, entry_data(4, 0)).status_code == 404
    assert snapshot() == before


# --- sockets ----------------------------------------------------------------------------------


def session_cookie(user) -> str:
    client = Client()
    client.force_login(user)
    return f"sessionid={client.cookies['sessionid'].value}"


async def can_connect(path: str, cookie: str = "", origin: bytes = b"http://localhost") -> bool:
    headers = [(b"origin", origin)] + ([(b"cookie", cookie.encode())] if cookie else [])
    ws = WebsocketCommunicator(application, path, headers=headers)
    ok, _ = await ws.connect(timeout=30)
    if not ok:
        return False
    first = await ws.receive_json_from(timeout=30) if path != "/ws/health/" else {"type": "health"}
    if first["type"] == "error" and "elsewhere" in first and not first["message"].startswith("The drive has finished"):
        # A play socket of a player of this drive with no seat at a table on the phones now: told
        # where to go; it stays open to follow the drive for that player alone (the close's
        # instruction, the next hand's start), with no table's view. Not a seat. (Once the drive
        # has finished it closes with 4403, as below.)
        await ws.disconnect()
        return False
    if first["type"] == "error":  # play/watch sockets accept, say why, and close with 4403; a
        # phone's live socket, or a play socket of a phone holding no player, with 4401, so that
        # its page reloads and goes to joining
        closed = await ws.receive_output(timeout=30)
        no_player = path.endswith("/phone/") or (path.startswith("/ws/play/")
                                                 and first["message"] == "Join the drive on this phone first.")
        assert closed["type"] == "websocket.close" and closed["code"] == (4401 if no_player else 4403)
        return False
    await ws.disconnect()
    return True


@pytest.mark.django_db(transaction=True)
async def test_socket_matrix(world):
    from asgiref.sync import sync_to_async

    code, other = world.code, world.other_drive.join_code
    cookies = {
        "organiser": await sync_to_async(session_cookie)(world.organiser),
        "other_organiser": await sync_to_async(session_cookie)(world.other_organiser),
        "player_of_table": f"ff_{code}={world.enterer.token}",
        "player_of_other_table": f"ff_{code}={world.other_table_player.token}",
        "player_of_other_drive": f"ff_{other}={world.other_drive_player.token}",
        "other_drive_token_forged": f"ff_{code}={world.other_drive_player.token}",
        "stranger": "",
    }
    expected = {
        f"/ws/drive/{code}/board/": set(cookies),
        f"/ws/drive/{code}/organiser/": {"organiser"},
        f"/ws/drive/{code}/phone/": {"player_of_table", "player_of_other_table"},
        f"/ws/watch/{code}/1/": {"organiser"},
        "/ws/health/": set(cookies),
    }
    for path, allowed in expected.items():
        for who, cookie in cookies.items():
            assert await can_connect(path, cookie) == (who in allowed), (path, who)
            # Origin is checked on every socket, whoever connects.
            assert not await can_connect(path, cookie, origin=b"http://evil.example"), (path, who)
    assert not await can_connect("/ws/drive/QQQQQ/board/")


@pytest.mark.django_db(transaction=True)
async def test_play_socket_needs_a_digital_seat_of_that_drive(world):
    from asgiref.sync import sync_to_async

    from tests.factories import make_drive

    def setup():
        drive = make_drive(world.organiser, 4, name="Digital", play_mode="digital", preferred_table_size=4)
        services.draw_seating(drive)
        services.start_hand(drive)
        return drive, drive.players.first()

    drive, player = await sync_to_async(setup)()
    code = drive.join_code
    assert await can_connect(f"/ws/play/{code}/", f"ff_{code}={player.token}")
    assert not await can_connect(f"/ws/play/{code}/", f"ff_{code}={player.token}", origin=b"http://evil.example")
    assert not await can_connect(f"/ws/play/{code}/", f"ff_{code}={world.enterer.token}")  # other drive
    assert not await can_connect(f"/ws/play/{code}/")
    assert not await can_connect(f"/ws/play/{code}/", await sync_to_async(session_cookie)(world.organiser))
    # a player of a physical table has no digital seat
    assert not await can_connect(f"/ws/play/{world.code}/", f"ff_{world.code}={world.enterer.token}")


# --- names are text, never markup or formulas ----------------------------------------------------

XSS = "<img src=x onerror=alert(1)>"
SCRIPT = "<script>alert(2)</script>"
FORMULA = '=HYPERLINK("http://x")'


@pytest.fixture
def hostile_names(organiser, other_organiser, settings):
    from tests.security.conftest import World

    world = World(organiser, other_organiser)
    a, b, c = world.table1[0], world.table1[1], world.table1[2]
    for player, name in ((a, XSS), (b, SCRIPT), (c, FORMULA)):
        player.name = name
        player.save(update_fields=["name"])
    world.enterer.refresh_from_db()
    services.organiser_result(world.drive, world.t1, declared(4, 0), organiser)
    return world


def assert_text_only(body: str, where: str) -> None:
    assert XSS not in body and SCRIPT not in body, where
    assert "&lt;img src=x onerror=alert(1)&gt;" in body or "\\u003Cimg" in body, where


def assert_isolated_text(body: str, where: str) -> None:
    """Text, and in the page's content isolated from the text around it each time
    (common/bidi.py): in a <bdi>, or a chart label's own element (a title, an attribute or an
    option holds it as it is)."""
    assert_text_only(body, where)
    escaped = "&lt;img src=x onerror=alert(1)&gt;"
    content = re.sub(r"<title>.*?</title>|<option[^>]*>[^<]*</option>", "", body, flags=re.S)
    content = re.sub(r"<([a-z]+)(?:[^>\"']|\"[^\"]*\"|'[^']*')*>", r"<\1>", content)  # the attributes dropped
    isolated = content.count(f"<bdi>{escaped}</bdi>") + body.count(f'<span class="chart-name" dir="auto">{escaped}</span>')
    assert content.count(escaped) == isolated and content.count(f"<bdi>{escaped}</bdi>"), where


def test_html_in_names_is_shown_as_text_on_every_page(hostile_names):
    w = hostile_names
    org = w.organiser_client()
    for url in (f"/drives/{w.drive.pk}/", f"/drives/{w.drive.pk}/standings", f"/drives/{w.drive.pk}/phones",
                f"/drives/{w.drive.pk}/hands/1", f"/drives/{w.drive.pk}/print/tables",
                f"/drives/{w.drive.pk}/print/scorecards", f"/drives/{w.drive.pk}/results/{w.t1.pk}"):
        assert_isolated_text(org.get(url).content.decode(), url)
    assert_isolated_text(Client().get(f"/{w.code}/board").content.decode(), "board")
    assert_isolated_text(Client().get(f"/{w.code}").content.decode(), "join")
    assert_isolated_text(w.phone(w.table1[3]).get(f"/{w.code}/me").content.decode(), "phone")
    assert_isolated_text(w.phone(w.table1[3]).get(f"/{w.code}/me?fragment=1").content.decode(), "phone fragment")


def test_html_in_names_is_text_in_pushed_fragments(hostile_names):
    from drive import pages, selectors

    w = hostile_names
    private = selectors.drive_view(w.drive)
    public = selectors.drive_view(w.drive, public=True)
    for name, html in [*pages.dashboard_parts(private).items(), *pages.board_parts(public).items(),
                       *pages.phone_parts(public).items()]:
        assert XSS not in html and SCRIPT not in html, name
    assert "<bdi>&lt;img" in pages.board_parts(public)["board"]


def test_csv_exports_neutralise_formulas(hostile_names):
    w = hostile_names
    org = w.organiser_client()
    for url in (f"/drives/{w.drive.pk}/export/hands.csv", f"/drives/{w.drive.pk}/export/standings.csv"):
        body = org.get(url).content.decode()
        assert "'" + FORMULA.replace('"', '""') in body, url
        assert "\n" + FORMULA not in body and "," + FORMULA not in body and ',"' + FORMULA[:3] not in body, url


def test_csv_exports_leave_negative_numbers_as_numbers_and_nothing_else_that_starts_with_a_sign(world):
    """Only a plain negative number goes out unprefixed: "--1" (which a spreadsheet reads as a
    formula) and "-\u00b2" (a digit to Python, not to a spreadsheet) are prefixed like any other."""
    from scoring.models import Score

    services.organiser_result(world.drive, world.t1, declared(4, 0), world.organiser)
    world.table1[1].__class__.objects.filter(pk=world.table1[1].pk).update(name="--1")
    world.table1[2].__class__.objects.filter(pk=world.table1[2].pk).update(name="-\u00b2")
    Score.objects.filter(player=world.table1[3]).update(points=-5)
    body = world.organiser_client().get(f"/drives/{world.drive.pk}/export/hands.csv").content.decode()
    assert ",'--1," in body and ",'-\u00b2," in body
    assert f",{world.table1[3].name},-5," in body


# --- CSRF -------------------------------------------------------------------------------------


def test_every_post_form_needs_a_csrf_token(world):
    organiser = world.organiser_client(enforce_csrf_checks=True)
    phone = world.phone(world.confirmer, enforce_csrf_checks=True)
    before = snapshot()
    for path in ORGANISER_POST + ["/drives/new"]:
        assert organiser.post(fill(path, world), {"names": "Zed", "name": "X"}).status_code == 403, path
    for path in ("/{c}/join", "/{c}/enter", "/{c}/preview", "/{c}/confirm", "/{c}/dispute", "/{c}/forget",
                 "/{c}/p/" + world.table2[2].token):  # a private link's "Continue"
        assert phone.post(fill(path, world), entry_data(4, 0)).status_code == 403, path
    assert Client(enforce_csrf_checks=True).post("/login/", {"username": "olive", "password": "x"}).status_code == 403
    assert snapshot() == before


def test_leaving_a_phone_releases_only_that_phones_own_player(world):
    """`/<CODE>/forget` signs out the player whose cookie it carries, no one else: another
    drive's player, a stranger, another drive's token under this cookie name, and a GET change
    nothing; the player's own phone frees their name."""
    before = snapshot()
    forged = Client()
    forged.cookies[f"ff_{world.code}"] = world.other_drive_player.token
    for client in (world.phone(world.other_drive_player), Client(), forged):
        assert client.post(f"/{world.code}/forget").status_code == 302
    assert world.phone(world.enterer).get(f"/{world.code}/forget").status_code == 405
    assert world.organiser_client().post(f"/{world.code}/forget").status_code == 302
    assert snapshot() == before
    world.phone(world.enterer).post(f"/{world.code}/forget")
    world.enterer.refresh_from_db()
    assert world.enterer.active and world.enterer.phone_joined_at is None  # on the organiser's list: stays
    assert world.phone(world.enterer).get(f"/{world.code}/me").status_code == 200  # the new token


def test_joining_is_rate_limited_per_address(world):
    from django.core.cache import cache

    cache.clear()
    client = Client()
    for _ in range(20):
        client.post(f"/{world.code}/join", {"player": "999999"})
    before = snapshot()
    response = client.post(f"/{world.code}/join", {"player": world.table2[2].pk}, follow=True)
    assert "Too many tries" in response.content.decode()
    assert snapshot() == before
    other_address = Client(REMOTE_ADDR="10.0.0.9")
    assert other_address.post(f"/{world.code}/join", {"player": world.table2[2].pk}).status_code == 302
