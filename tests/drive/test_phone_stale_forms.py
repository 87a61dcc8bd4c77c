"""Phone forms that can no longer act, refused with the reason and nothing written: sent for a hand
now over or another table, from a page shown to another player, by a withdrawn or signed-out player,
or after the drive finished."""

from __future__ import annotations

import pytest
from django.test import Client

from drive import services
from drive.access import player_cookie_name
from drive.models import Player
from scoring.models import Result
from tables.models import TableHand
from tests.drive.phones_support import entry_data, phone_for, seat_players, table_of_four, text
from tests.factories import seated_drive, shown_for, shown_on

pytestmark = pytest.mark.django_db


def test_an_entry_sent_by_script_from_a_phone_holding_no_player_now_says_why(organiser):
    """The phone's script (entry.js, its offline queue) reads JSON: a withdrawn or signed-out
    phone's entry was answered with a redirect to the join page, which it showed as "The server
    could not read the form; reload the page." (found by probing). It is told why, nothing written."""
    drive = seated_drive(organiser, 8)
    ann, bob = seat_players(drive.hands.get().tables.get(number=1))[:2]
    phones = {ann: phone_for(drive, ann), bob: phone_for(drive, bob)}
    services.withdraw_player(drive, ann)
    services.revoke_phone(drive, bob)  # signed out: a new token, the phone's cookie opens nothing
    for player, why in ((ann, f"The organiser has taken \u2068{ann.name}\u2069 out of the drive. Ask the organiser"),
                        (bob, "This phone is no longer joined to the drive: pick your name to join again (if the "
                              "organiser signed it out, ask them for your private link).")):
        answer = phones[player].post(f"/{drive.join_code}/enter", entry_data(4, 1, by=player),
                                     HTTP_ACCEPT="application/json")
        assert answer.status_code == 200 and answer.json()["ok"] is False
        assert answer.json()["message"].startswith(f"Your entry was not sent. {why}")
        # The points preview of a form left open says the same (it said "Join the drive first.").
        preview = phones[player].post(f"/{drive.join_code}/preview", entry_data(4, 1, by=player))
        assert preview.status_code == 200 and preview.json()["ok"] is False and preview.json()["message"].startswith(why)
    assert not Result.objects.exists()
    # A page's own form (no script) still goes to the join page, which says why.
    response = phones[ann].post(f"/{drive.join_code}/enter", entry_data(4, 1, by=ann), follow=True)
    assert "The organiser has taken <bdi>P00" in text(response)


def test_a_confirmation_or_dispute_from_a_withdrawn_players_page_says_why_it_was_refused(table_of_four):
    """A withdrawn player's page left open (offline when the organiser took them out) sent
    "Confirm" and landed on the join page with nothing said (found by probing); entering said
    why. Both do now, and nothing is written."""
    drive, table, players = table_of_four
    phone_for(drive, players[1]).post(f"/{drive.join_code}/enter", entry_data(4, 1, by=players[1]))
    bob = phone_for(drive, players[0])
    services.withdraw_player(drive, players[0])
    for action in ("confirm", "dispute"):
        response = bob.post(f"/{drive.join_code}/{action}", {"seen_revision": "1", **shown_for(players[0])}, follow=True)
        assert response.redirect_chain[-1][0] == f"/{drive.join_code}"
        assert f"The organiser has taken <bdi>{players[0].name}</bdi> out of the drive." in text(response)
    assert Result.objects.get().status == Result.Status.ENTERED


def test_a_phones_entry_confirmation_or_dispute_after_the_drive_finished_says_so(organiser):
    """Pages left open on the phones when the last hand closed (an entry queued offline, a
    "Confirm" not yet tapped) were told "No hand is being played right now.": true, but it left
    the players waiting for the next one. They are told the drive has finished (the entry's
    script in its JSON, the forms on the phone's page, the points preview too), nothing written."""
    from drive.results import FINISHED

    drive = seated_drive(organiser, 4, target="hands", target_hands=1)
    table = drive.hands.get().tables.get()
    players = seat_players(table)
    phone_for(drive, players[0]).post(f"/{drive.join_code}/enter", entry_data(4, 0, by=players[0]))
    services.close_hand(drive, force=True)  # the bell: the entry as it stands, and the drive's last hand
    drive.refresh_from_db()
    assert drive.is_finished
    before = list(Result.objects.values("summary", "status", "revision", "confirmed_by"))
    confirmer, latecomer = phone_for(drive, players[1]), phone_for(drive, players[2])
    for action in ("confirm", "dispute"):
        response = confirmer.post(f"/{drive.join_code}/{action}", {"seen_revision": "1", **shown_for(players[1]),
                                                                  "reason": "no"}, follow=True)
        assert response.redirect_chain[-1][0] == f"/{drive.join_code}/me" and FINISHED in text(response)
    entry = entry_data(4, 2, key="late", seen=1, by=players[2])
    answer = latecomer.post(f"/{drive.join_code}/enter", entry, HTTP_ACCEPT="application/json")
    assert answer.status_code == 200 and answer.json()["ok"] is False and answer.json() == {"ok": False, "stale": False, "message": FINISHED}
    assert FINISHED in text(latecomer.post(f"/{drive.join_code}/enter", entry, follow=True))
    assert FINISHED in text(latecomer.get(f"/{drive.join_code}/enter", follow=True))
    assert latecomer.post(f"/{drive.join_code}/preview", entry).json()["message"] == FINISHED
    assert list(Result.objects.values("summary", "status", "revision", "confirmed_by")) == before


# --- A form is for one hand and one table: stale or unnamed ones are refused, nothing written ---


def _hand_two(organiser):
    """Hand 1 of eight players played and closed; hand 2 started. Returns the drive, a player who
    sat at Table 1 in hand 1 (as their hand-1 forms named it) and their table in hand 2."""
    from tests.factories import finish_all_tables

    drive = seated_drive(organiser, 8)
    player = seat_players(drive.hands.get().tables.get(number=1))[0]
    finish_all_tables(drive, organiser)
    services.close_hand(drive)
    services.start_hand(drive)
    table_now = TableHand.objects.get(hand__number=2, seats__player=player)
    return drive, player, table_now


def test_an_entry_shown_for_a_hand_now_over_is_refused_and_changes_nothing(organiser):
    from tests.security.conftest import snapshot

    drive, player, table_now = _hand_two(organiser)
    before = snapshot()
    old = entry_data(4, 1, key="held-over", hand=1, table=1, by=player)  # the body a hand-1 page held (or queued)
    answer = phone_for(drive, player).post(f"/{drive.join_code}/enter", old, HTTP_ACCEPT="application/json")
    assert answer.status_code == 200 and answer.json()["ok"] is False and answer.json()["stale"] is True
    # Sent late (kept on the phone while it was offline): counted for nothing, but kept for the
    # organiser to apply or set aside (tests/drive/test_late_entry.py), and said so.
    assert answer.json()["late"] is True
    assert answer.json()["message"] == ("This was for hand 1, which the organiser closed before it arrived (hand 2 "
                                        "has started), so it does not count yet: the organiser has your answers, and "
                                        "can apply them to Table 1's result.")
    response = phone_for(drive, player).post(f"/{drive.join_code}/enter", old, follow=True)
    assert "This was for hand 1, which the organiser closed before it arrived" in text(response)
    assert response.redirect_chain[-1][0] == f"/{drive.join_code}/me"
    assert snapshot() == before
    assert not Result.objects.filter(table__hand__number=2).exists()
    # The same answers for the hand and table the player is at now are recorded.
    mine = entry_data(table_now.seats.count(), 1, key="fresh", hand=2, table=table_now.number, by=player)
    answer = phone_for(drive, player).post(f"/{drive.join_code}/enter", mine, HTTP_ACCEPT="application/json")
    assert answer.json()["ok"] is True
    assert Result.objects.get(table=table_now).entered_by == player


def test_an_entry_shown_before_the_seating_of_the_next_hand_is_refused(organiser):
    from tests.factories import finish_all_tables

    drive = seated_drive(organiser, 4)
    player = seat_players(drive.hands.get().tables.get())[0]
    finish_all_tables(drive, organiser)
    services.close_hand(drive)  # hand 2's seating shown, not started
    answer = phone_for(drive, player).post(f"/{drive.join_code}/enter", entry_data(4, 1, key="x", hand=1, by=player),
                                           HTTP_ACCEPT="application/json")
    assert answer.status_code == 200 and answer.json()["ok"] is False and answer.json()["stale"] is True
    assert "the seating for hand 2 is shown" in answer.json()["message"]
    assert Result.objects.count() == 1  # hand 1's only


def test_an_entry_for_another_table_or_naming_none_is_refused(table_of_four, organiser):
    drive, table, players = table_of_four
    ann = phone_for(drive, players[0])
    answer = ann.post(f"/{drive.join_code}/enter", entry_data(4, 1, table=2, by=players[0]), HTTP_ACCEPT="application/json")
    assert answer.status_code == 200 and answer.json()["ok"] is False and answer.json()["stale"] is True
    assert "This was for Table 2, but you are at Table 1 in hand 1" in answer.json()["message"]
    for missing in ("hand", "table"):  # a page loaded before forms said what they were for
        data = {k: v for k, v in entry_data(4, 1, by=players[0]).items() if k != missing}
        answer = ann.post(f"/{drive.join_code}/enter", data, HTTP_ACCEPT="application/json")
        assert answer.status_code == 200 and answer.json()["ok"] is False and answer.json()["stale"] is True
        assert "does not say which hand and table it was for" in answer.json()["message"]
        response = ann.post(f"/{drive.join_code}/enter", {**data, "hand": "x" if missing == "hand" else "1"}, follow=True)
        assert "does not say which hand and table it was for" in text(response)
    assert not Result.objects.exists()


def test_the_entry_page_names_its_hand_table_and_player(table_of_four):
    drive, table, players = table_of_four
    page = phone_for(drive, players[0]).get(f"/{drive.join_code}/enter").content.decode()
    assert '<input type="hidden" name="hand" value="1"><input type="hidden" name="table" value="1">' in page
    assert shown_on(page) == shown_for(players[0])  # and the player it is shown to
    assert f'data-for="{drive.join_code}:{players[0].pk}" data-hand="1" data-table="1"' in page


def test_a_confirmation_shown_for_an_earlier_hand_does_not_confirm_the_next_hands_entry(organiser):
    drive, player, table_now = _hand_two(organiser)
    other = next(p for p in seat_players(table_now) if p != player)
    n = table_now.seats.count()
    phone_for(drive, other).post(f"/{drive.join_code}/enter", entry_data(n, 0, key="h2", hand=2, table=table_now.number, by=other))
    result = Result.objects.get(table=table_now)
    assert result.revision == 1 and result.status == "entered"
    me = phone_for(drive, player)
    for stale in (shown_for(player), {}):  # a hand-1 page's confirm; a page from before forms said
        response = me.post(f"/{drive.join_code}/confirm", {**stale, "seen_revision": 1}, follow=True)
        assert "Nothing was saved" in text(response)
        response = me.post(f"/{drive.join_code}/dispute", {**stale, "seen_revision": 1, "reason": "no"}, follow=True)
        assert "Nothing was saved" in text(response)
        result.refresh_from_db()
        assert result.status == "entered" and result.confirmed_by is None
    assert "This was for hand 1, which is over: hand 2 has started." in text(
        me.post(f"/{drive.join_code}/confirm", {**shown_for(player), "seen_revision": 1}, follow=True))
    # The page of hand 2 names hand 2 and this table; its confirmation counts.
    page = me.get(f"/{drive.join_code}/me").content.decode()
    assert f'name="hand" value="2"><input type="hidden" name="table" value="{table_now.number}"' in page
    assert shown_on(page) == shown_for(player, 2, table_now.number)
    me.post(f"/{drive.join_code}/confirm", {**shown_for(player, 2, table_now.number), "seen_revision": 1})
    result.refresh_from_db()
    assert result.status == "confirmed" and result.confirmed_by == player


# --- A form is for the player it was shown to: another player's, or naming none, is refused ---
# A phone changes hands ("Leave this phone", then someone else joins on it): what the first
# player's page sends afterwards (an entry queued offline, a tab left open) must not act for the
# next player, or the first could confirm an entry recorded as the next one's.

ANOTHER_PLAYERS = "This was sent from a page shown to another player on this phone. Nothing was saved."


def test_an_entry_naming_another_player_is_refused_and_writes_nothing(table_of_four):
    from tests.security.conftest import snapshot

    drive, table, players = table_of_four
    ann, bob = players[0], players[1]
    before = snapshot()
    answer = phone_for(drive, bob).post(f"/{drive.join_code}/enter", entry_data(4, 1, by=ann),
                                        HTTP_ACCEPT="application/json")
    assert answer.status_code == 200 and answer.json()["ok"] is False and answer.json() == {
        "ok": False, "stale": True, "player": True, "message": ANOTHER_PLAYERS + " Look at your table now."}
    response = phone_for(drive, bob).post(f"/{drive.join_code}/enter", entry_data(4, 1, by=ann), follow=True)
    assert ANOTHER_PLAYERS in text(response) and response.redirect_chain[-1][0] == f"/{drive.join_code}/me"
    assert snapshot() == before


def test_an_entry_queued_by_a_player_who_left_the_phone_is_not_recorded_as_the_next_players(table_of_four):
    """The hole: Ann's entry, kept on the phone unsent, then Ann leaves the phone and Bob (same
    table, same hand) joins on it; re-sent with Bob's cookie it was recorded as Bob's entry, and
    Ann, on another phone, could confirm it: one person both entering and confirming."""
    from tests.security.conftest import snapshot

    drive, table, players = table_of_four
    ann, bob = players[0], players[1]
    phone = Client()
    phone.post(f"/{drive.join_code}/join", {"player": ann.pk})
    page = phone.get(f"/{drive.join_code}/enter").content.decode()
    queued = {**entry_data(4, 1, key="queued-by-ann", by=ann), **shown_on(page)}  # the body Ann's form holds
    phone.post(f"/{drive.join_code}/forget")
    phone.post(f"/{drive.join_code}/join", {"player": bob.pk})
    assert phone.cookies[player_cookie_name(drive)].value == Player.objects.get(pk=bob.pk).token
    before = snapshot()
    answer = phone.post(f"/{drive.join_code}/enter", queued, HTTP_ACCEPT="application/json")
    assert answer.status_code == 200 and answer.json()["ok"] is False and answer.json()["player"] is True
    assert answer.json()["message"].startswith(ANOTHER_PLAYERS)
    assert snapshot() == before and not Result.objects.exists()
    # So there is nothing of Bob's for Ann to confirm; Bob's own form is recorded as his.
    bobs = {**entry_data(4, 1, key="bobs", by=bob), **shown_on(phone.get(f"/{drive.join_code}/enter").content.decode())}
    assert phone.post(f"/{drive.join_code}/enter", bobs, HTTP_ACCEPT="application/json").json()["ok"] is True
    assert Result.objects.get().entered_by == bob


def test_a_confirmation_or_dispute_naming_another_player_is_refused(table_of_four):
    drive, table, players = table_of_four
    ann, bob, cy = players[:3]
    phone_for(drive, ann).post(f"/{drive.join_code}/enter", entry_data(4, 2, by=ann))
    result = Result.objects.get()
    for named in (cy, ann):  # another confirmer's page; the enterer's own
        response = phone_for(drive, bob).post(f"/{drive.join_code}/confirm", {**shown_for(named), "seen_revision": 1},
                                              follow=True)
        assert ANOTHER_PLAYERS in text(response)
        response = phone_for(drive, bob).post(f"/{drive.join_code}/dispute",
                                              {**shown_for(named), "seen_revision": 1, "reason": "no"}, follow=True)
        assert ANOTHER_PLAYERS in text(response)
        result.refresh_from_db()
        assert result.status == "entered" and result.confirmed_by is None and result.revision == 1


def test_a_form_naming_no_player_is_refused(table_of_four):
    """A page loaded before the forms named their player."""
    from tests.security.conftest import snapshot

    drive, table, players = table_of_four
    ann, bob = players[0], players[1]
    unnamed = {k: v for k, v in entry_data(4, 2, by=ann).items() if k != "player"}
    answer = phone_for(drive, ann).post(f"/{drive.join_code}/enter", unnamed, HTTP_ACCEPT="application/json")
    assert answer.status_code == 200 and answer.json()["ok"] is False and answer.json()["stale"] is True and answer.json()["player"] is True
    assert answer.json()["message"] == ("This page is out of date: it does not say whose it was. "
                                        "Nothing was saved. Look at your table now.")
    assert not Result.objects.exists()
    phone_for(drive, ann).post(f"/{drive.join_code}/enter", entry_data(4, 2, by=ann))
    before = snapshot()
    for action in ("confirm", "dispute"):
        response = phone_for(drive, bob).post(f"/{drive.join_code}/{action}",
                                              {"hand": "1", "table": "1", "seen_revision": 1, "reason": "no"},
                                              follow=True)
        assert "it does not say whose it was" in text(response)
    assert snapshot() == before


@pytest.mark.parametrize("revision", [" 1", "1_0", "\u0661", "1" * 20])
def test_a_confirmation_naming_a_revision_that_is_not_plain_digits_is_refused(table_of_four, revision):
    """Found from outside: " 1", "1_0" and an Arabic-Indic one went through ``int()`` as revisions;
    20 digits were told "That result was withdrawn meanwhile". A revision is plain digits."""
    drive, table, players = table_of_four
    phone_for(drive, players[1]).post(f"/{drive.join_code}/enter", entry_data(4, 1, by=players[1]))
    response = phone_for(drive, players[0]).post(
        f"/{drive.join_code}/confirm", {"seen_revision": revision, **shown_for(players[0])}, follow=True)
    assert "The page is out of date; it has been refreshed." in text(response)
    assert Result.objects.get().status == Result.Status.ENTERED


def test_an_entry_saying_it_saw_a_result_the_table_has_not_is_told_so(table_of_four):
    """Found by a fuzz from outside: an entry naming revision 999999999 of a table with no result
    was told "That result was withdrawn meanwhile", though no result had ever been there (none is
    ever taken back). Nothing written."""
    drive, table, players = table_of_four
    response = phone_for(drive, players[0]).post(
        f"/{drive.join_code}/enter", entry_data(4, 2, by=players[0], seen=999999999), follow=True)
    assert "This form showed a result that Table 1 does not have: nothing was saved." in text(response)
    assert not Result.objects.exists()
