"""Every form, fuzzed with hypothesis: hostile input is never a server error, never changes
anything, and always says what is wrong. Accepted input (hypothesis sometimes finds it, since
valid answers are in the mix) must say so; only then may the database change."""

from __future__ import annotations

import re

import pytest
from django.contrib.messages import constants
from django.core.cache import cache
from django.test import Client
from hypothesis import given

from drive import services
from scoring.models import Result
from tests.factories import SHOWN_FIELDS, declared, make_drive, shown_for
from tests.security.conftest import entry_data, seat_players, snapshot
from tests.security.fuzz import FUZZ, form_data, refused_clearly, said

pytestmark = pytest.mark.django_db

SEATS4 = [str(i) for i in range(4)]
ICE = ["none", "five", "joker", "both"]


def result_fields(players: int) -> dict[str, list[str]]:
    fields = {"declarer": SEATS4[:players] + ["none"], "nine_card": ["True", "False"], "dealer": SEATS4[:players]}
    for i in range(players):
        fields[f"seat{i}_sets"] = ["0", "1", "2"]
        fields[f"seat{i}_ice"] = ICE
    return fields


def check(response, before, accepted: bool) -> None:
    """The three promises for every fuzzed request."""
    assert response.status_code < 500
    if accepted:
        return
    assert snapshot() == before, "a refused request changed the database"
    assert refused_clearly(response), (response.status_code, response.content[:300])


def redirected_to(response, pattern: str) -> bool:
    return response.status_code == 302 and re.fullmatch(pattern, response["Location"]) is not None


def succeeded(response) -> bool:
    return said(response, constants.SUCCESS)


def never(response) -> bool:
    return False


def posted(client, url: str, data, accepted):
    """``data`` posted to ``url`` by ``client``, checked (``check``); ``accepted(response)``:
    whether the form was taken. The response."""
    before = snapshot()
    response = client.post(url, data)
    check(response, before, accepted=accepted(response))
    return response


DRIVE_FIELDS = {
    "name": ["Spring drive"], "date": ["2026-05-01", "2026-02-30", "99999-01-01"],
    "target": ["hands", "total", "either", "HANDS"], "target_hands": ["1", "12", "200", "201", "0"],
    "target_total": ["5", "50", "10000", "4", "10001"], "preferred_table_size": ["2", "4", "10", "1", "11"],
    "play_mode": ["physical", "digital"], "allow_self_join": ["on", "1"], "suspense_hands": ["0", "50", "51"],
    "joker_penalty": ["on"],
}


# --- the organiser's forms --------------------------------------------------------------------


@FUZZ
@given(data=form_data(DRIVE_FIELDS))
def test_drive_create(world, data):
    posted(world.organiser_client(), "/drives/new", data, lambda r: redirected_to(r, r"/drives/\d+/"))


@FUZZ
@given(data=form_data(DRIVE_FIELDS))
def test_drive_edit(world, data):
    posted(world.organiser_client(), f"/drives/{world.drive.pk}/edit", data,
           lambda r: redirected_to(r, rf"/drives/{world.drive.pk}/"))


@FUZZ
@given(data=form_data({"names": ["Zed", "Zed\nYves", "P001", "Zed, zed"]}))
def test_paste_names(world, data):
    posted(world.organiser_client(), f"/drives/{world.drive.pk}/players", data, succeeded)


@pytest.fixture
def between_hands(world):
    """A second drive of the same organiser, seated but not started: swaps and modes apply."""
    drive = make_drive(world.organiser, 8, name="Seating drive")
    services.draw_seating(drive)
    ids = [str(p) for p in drive.players.values_list("pk", flat=True)] + [str(world.other_table_player.pk)]
    return drive, ids


@FUZZ
@given(data=form_data({"a": [], "b": [], "hand": ["1"]}))
def test_swap(world, between_hands, data):
    drive, ids = between_hands
    posted(world.organiser_client(), f"/drives/{drive.pk}/swap", data, succeeded)


@FUZZ
@given(data=form_data({"a": [], "b": [], "hand": ["1"]}), pick=form_data({}))
def test_swap_with_real_ids(world, between_hands, data, pick):
    drive, ids = between_hands
    # Player ids of this drive and of another drive, mixed with junk.
    data = {**data, "a": ids[len(data) % len(ids)], "b": data.get("b", ids[-1])}
    client = world.organiser_client()
    if "seating" not in data:  # the seating as the dashboard shows it now, so that a good pair is swapped
        page = client.get(f"/drives/{drive.pk}/").content.decode()
        data["seating"] = re.search(r'name="seating" value="([^"]*)"', page).group(1)
    posted(client, f"/drives/{drive.pk}/swap", data, succeeded)


@FUZZ
@given(data=form_data({"mode": ["physical", "digital", "PHYSICAL", "bots"], "hand": ["1", "2", "0"]}),
       number=__import__("hypothesis").strategies.sampled_from([1, 2, 3, 0, 2**31, 2**63, 10**30]))
def test_table_mode(world, between_hands, data, number):
    drive, _ids = between_hands
    client = world.organiser_client()
    before = snapshot()
    response = client.post(f"/drives/{drive.pk}/tables/{number}/mode", data)
    accepted = said(response, constants.SUCCESS)
    assert not accepted or data.get("hand") == "1"  # the seating shown is hand 1's
    check(response, before, accepted)


@FUZZ
@given(data=form_data({**result_fields(4), "reason": ["", "typo", "x" * 301], "seen_revision": ["0", "1", "x"]}))
def test_result_entry_by_the_organiser(world, data):
    posted(world.organiser_client(), f"/drives/{world.drive.pk}/results/{world.t1.pk}", data,
           lambda r: redirected_to(r, rf"/drives/{world.drive.pk}/"))


@FUZZ
@given(data=form_data({"show": ["1", "0", "true"]}))
def test_prizes_toggle(world, data):
    posted(world.organiser_client(), f"/drives/{world.drive.pk}/prizes", data, succeeded)


# --- the phones' forms ------------------------------------------------------------------------


@FUZZ
@given(data=form_data({"player": [], "new_name": ["Zed", "P001", "p001", "Ann, Bob", "x" * 41]}))
def test_phone_join_and_claim(world, data):
    cache.clear()  # the join rate limit is tested on its own; here every try must reach the view
    world.drive.allow_self_join = True
    world.drive.save(update_fields=["allow_self_join"])
    if "player" in data and not isinstance(data["player"], list) and data["player"] in ("1", "2"):
        data["player"] = str(world.table2[int(data["player"])].pk)
    client = Client()
    response = posted(client, f"/{world.code}/join", data, lambda r: redirected_to(r, rf"/{world.code}/me"))
    if not redirected_to(response, rf"/{world.code}/me"):
        assert f"ff_{world.code}" not in client.cookies


@FUZZ
@given(data=form_data({"player": [], "new_name": ["Zed", "P001", "Ann, Bob"]}))
def test_a_phone_holding_a_player_claims_and_adds_nothing(world, data):
    """Whatever it sends, a phone that is already a player of the drive gets no other name."""
    cache.clear()
    world.drive.allow_self_join = True
    world.drive.save(update_fields=["allow_self_join"])
    if "player" in data and not isinstance(data["player"], list) and data["player"] in ("1", "2"):
        data["player"] = str(world.table2[int(data["player"])].pk)
    client = world.phone(world.enterer)
    posted(client, f"/{world.code}/join", data, never)
    assert client.cookies[f"ff_{world.code}"].value == world.enterer.token


def test_claim_refuses_control_characters_in_a_new_name(world):
    """A NUL byte is not a name: PostgreSQL refuses it outright (a 500 there); nothing is stored."""
    world.drive.allow_self_join = True
    world.drive.save(update_fields=["allow_self_join"])
    for name in ("Zed\x00", "Z\x07ed", "\x1b[31mZed"):
        posted(Client(), f"/{world.code}/join", {"new_name": name}, never)


# The ``player`` field's valid answers are players of the world under test: placeholders here,
# their ids once the world exists (``with_player_ids``).
PLAYER_IDS = {"{enterer}": "enterer", "{confirmer}": "confirmer", "{other}": "other_table_player"}
PHONE_ENTRY = {**result_fields(4), "client_key": ["k1", "bad key!", "x" * 65, ""],
               "seen_revision": ["0", "1", "-1", "99999999999999999999999", "١"],
               "hand": ["1", "2", "0", "١"], "table": ["1", "2", " 1"], "player": list(PLAYER_IDS)}


def with_player_ids(data: dict, world) -> dict:
    """The fuzzed form with a placeholder ``player`` made that player's id."""
    placeholder = data.get("player")
    if isinstance(placeholder, str) and placeholder in PLAYER_IDS:
        return {**data, "player": str(getattr(world, PLAYER_IDS[placeholder]).pk)}
    return data


def shown(data: dict) -> tuple:
    """What a fuzzed phone form says it was shown for (``tests.factories.SHOWN_FIELDS``)."""
    return tuple(data.get(field) for field in SHOWN_FIELDS)


@FUZZ
@given(data=form_data(PHONE_ENTRY), as_json=__import__("hypothesis").strategies.booleans())
def test_phone_enter(world, data, as_json):
    headers = {"HTTP_ACCEPT": "application/json"} if as_json else {}
    data = with_player_ids(data, world)
    before = snapshot()
    response = world.phone(world.enterer).post(f"/{world.code}/enter", data, **headers)
    # Sent (or a repeat answered as such): to the phone's home page with a success message, or ok in JSON.
    accepted = (redirected_to(response, rf"/{world.code}/me") and said(response, constants.SUCCESS)) or (
        as_json and response.status_code == 200 and response.json().get("ok") is True
    )
    if snapshot() != before:  # only a form shown to the enterer for their hand and table writes (a repeat: nothing)
        assert accepted and shown(data) == ("1", "1", str(world.enterer.pk))
    if as_json and not accepted:
        assert response.status_code < 500 and response.json()["ok"] is False and response.json()["message"]
        assert snapshot() == before
    else:
        check(response, before, accepted)


def check_preview(response, before) -> dict:
    """A points preview's promises: no server error, no write, and every seat's points, or a
    200 saying the answers are incomplete, or a 400 saying why they are impossible."""
    assert response.status_code < 500
    assert snapshot() == before  # a preview never writes, valid or not
    body = response.json()
    assert (response.status_code == 200 and body["ok"] and len(body["points"]) == 4) or (
        response.status_code == 200 and not body["ok"] and body.get("incomplete") is True and body["message"]
    ) or (response.status_code == 400 and not body["ok"] and "incomplete" not in body and body["message"])
    return body


@FUZZ
@given(data=form_data(result_fields(4)))
def test_phone_preview(world, data):
    before = snapshot()
    check_preview(world.phone(world.enterer).post(f"/{world.code}/preview", data), before)


@FUZZ
@given(data=form_data({**result_fields(4), "reason": ["", "typo"], "seen_revision": ["1", "x"]}),
       correcting=__import__("hypothesis").strategies.booleans())
def test_organiser_result_preview(world, data, correcting):
    """Table 1 has a result (a correction: the points recorded come beside the new), table 2 none."""
    if not Result.objects.filter(table=world.t1).exists():
        services.organiser_result(world.drive, world.t1, declared(4, 0), world.organiser)
    table = world.t1 if correcting else world.t2
    before = snapshot()
    body = check_preview(world.organiser_client().post(f"/drives/{world.drive.pk}/results/{table.pk}/preview", data),
                         before)
    if body["ok"]:
        assert all(("recorded" in row) == correcting for row in body["points"])


@pytest.fixture
def entered(world):
    """Table 1 has an entry from its first player, waiting for confirmation (revision 1)."""
    response = world.phone(world.enterer).post(f"/{world.code}/enter", entry_data(4, 2, by=world.enterer))
    assert response.status_code == 302 and Result.objects.get().revision == 1
    return world


JUDGE = {"seen_revision": ["0", "1", "2", "-1", "1.0", " 1", "99999999999999999999999"],
         "hand": ["1", "2", "0"], "table": ["1", "2"], "player": list(PLAYER_IDS),
         "reason": ["", "Cy had 9 cards", "x" * 5000, "<b>bold</b>"]}


def judged(entered, who: str, what: str, data: dict) -> tuple[dict, tuple, object]:
    """``data``, its player ids filled in, posted to /<code>/``what`` by the phone of ``who``: the
    form sent, the database before, and the response."""
    player = {"confirmer": entered.confirmer, "enterer": entered.enterer, "other": entered.other_table_player}[who]
    data = with_player_ids(data, entered)
    before = snapshot()
    return data, before, entered.phone(player).post(f"/{entered.code}/{what}", data)


@FUZZ
@given(data=form_data(JUDGE), who=__import__("hypothesis").strategies.sampled_from(["confirmer", "enterer", "other"]))
def test_phone_confirm(entered, data, who):
    data, before, response = judged(entered, who, "confirm", data)
    accepted = said(response, constants.SUCCESS)
    if accepted:
        assert who == "confirmer" and data.get("seen_revision") in ("1", " 1")
        assert shown(data) == ("1", "1", str(entered.confirmer.pk))
    check(response, before, accepted)


@FUZZ
@given(data=form_data(JUDGE), who=__import__("hypothesis").strategies.sampled_from(["confirmer", "enterer", "other"]))
def test_phone_dispute(entered, data, who):
    data, before, response = judged(entered, who, "dispute", data)
    accepted = said(response, constants.WARNING) and Result.objects.get().status == "disputed"
    if accepted:
        assert who == "confirmer" and shown(data) == ("1", "1", str(entered.confirmer.pk))
        reason = Result.objects.get().dispute_reason
        assert len(reason) <= 200 and "\x00" not in reason
        return
    check(response, before, accepted)


# --- oversized and odd requests -----------------------------------------------------------------

BIG = "x" * (2 * 1024 * 1024)


@pytest.mark.parametrize("path", ["/drives/{drive}/players", "/drives/{drive}/results/{t1}",
                                  "/drives/{drive}/results/{t1}/preview", "/{code}/enter",
                                  "/{code}/join", "/{code}/dispute", "/{code}/preview"])
def test_two_megabyte_posts_are_refused(world, path):
    url = path.format(drive=world.drive.pk, t1=world.t1.pk, code=world.code)
    client = world.organiser_client() if url.startswith("/drives") else world.phone(world.confirmer)
    for data, kwargs in (({"names": BIG, "reason": BIG, "new_name": BIG}, {}),
                         (f"names={BIG}&reason={BIG}", {"content_type": "application/x-www-form-urlencoded"})):
        before = snapshot()
        response = client.post(url, data, **kwargs)
        assert response.status_code == 413, (url, response.status_code)
        assert "too large" in response.content.decode()
        assert snapshot() == before


def test_too_many_fields_are_refused(world):
    before = snapshot()
    data = {f"f{i}": "1" for i in range(1500)}
    response = world.phone(world.enterer).post(f"/{world.code}/enter", data)
    assert response.status_code == 400
    assert snapshot() == before


@pytest.mark.parametrize("number", ["0", str(2**63), "9" * 30])
def test_huge_ids_in_urls_are_404_not_500(world, number):
    client = world.organiser_client()
    for path in ("/drives/{n}/", "/drives/{d}/results/{n}", "/drives/{d}/results/{n}/preview", "/drives/{d}/hands/{n}",
                 "/drives/{d}/phones/{n}/revoke"):
        url = path.format(n=number, d=world.drive.pk)
        before = snapshot()
        response = client.post(url) if url.endswith(("revoke", "preview")) else client.get(url)
        assert response.status_code in (302, 404), (url, response.status_code)
        assert snapshot() == before
    for field in ("withdraw", "rejoin"):  # the players list's buttons name a player
        before = snapshot()
        response = client.post(f"/drives/{world.drive.pk}/players/presence", {field: number})
        assert response.status_code in (302, 404), (field, response.status_code)
        assert snapshot() == before


@pytest.mark.parametrize("number", ["0", "99", str(2**63), "9" * 30])
def test_the_watch_page_of_a_table_the_drive_never_had_is_404(world, number):
    client = world.organiser_client()
    assert client.get(f"/{world.code}/tables/{number}/watch").status_code == 404
    assert client.get(f"/{world.code}/tables/1/watch").status_code == 200


def test_phone_pages_with_junk_codes_and_tokens(world):
    for path in ("/" + "A" * 9, "/%E2%80%AE", "/ABC%00", f"/{world.code}/p/" + "x" * 500, f"/{world.code}/p/%00"):
        before = snapshot()
        response = Client().get(path)
        assert response.status_code in (302, 404), (path, response.status_code)
        assert snapshot() == before
    client = Client()
    client.cookies[f"ff_{world.code}"] = "x" * 10000
    assert client.get(f"/{world.code}/me").status_code == 302



def test_a_token_with_a_line_break_after_it_never_reaches_the_database(world):
    """A regular expression's ``$`` also matches before a final line break: a player's token with
    one after it passed the token check and was looked up. Now it is malformed, like any other."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    token = world.enterer.token + "\n"
    phone = Client()
    phone.cookies[f"ff_{world.code}"] = token
    with CaptureQueriesContext(connection) as queries:
        assert Client().get(f"/{world.code}/p/{world.enterer.token}%0A").status_code in (302, 404)
        assert phone.get(f"/{world.code}/me").status_code == 302
    assert not [q["sql"] for q in queries if "drive_player" in q["sql"]]


def test_paste_refuses_control_characters(world):
    client = world.organiser_client()
    for names in ("Zed\x07", "Ann\nB\x1bob"):
        posted(client, f"/drives/{world.drive.pk}/players", {"names": names}, never)


def test_dispute_reason_never_stores_control_characters(entered):
    response = entered.phone(entered.confirmer).post(
        f"/{entered.code}/dispute", {"seen_revision": "1", **shown_for(entered.confirmer), "reason": "Cy\x00 had\x07 9 cards"}
    )
    assert response.status_code == 302
    result = Result.objects.get()
    assert result.status == "disputed" and result.dispute_reason == "Cy had 9 cards"


@pytest.mark.parametrize("charset", ["utf8", "latin-1", "utf-16"])
def test_a_form_that_says_it_is_not_utf8_gets_a_400_not_a_server_error(client, charset):
    """Django refuses to read such a form; its own error pages read it again and fail again, so
    this was a 500 with a traceback per request (found by probing from outside), on any POST,
    the sign-in page's included."""
    response = client.post("/login/", "username=a&password=b",
                           content_type=f"application/x-www-form-urlencoded; charset={charset}")
    assert response.status_code == 400
    assert "UTF-8" in response.content.decode()
