"""Bots at the table, the organiser's bell on digital tables, and the spectator view."""

from __future__ import annotations

import asyncio
import csv
import io
import random

import pytest
from channels.db import database_sync_to_async
from django.test import Client

from drive import services
from games import get_game
from scoring.models import Result
from tables import digital
from tables.models import BotPlayer, TableHand
from tests.tables.conftest import digital_drive, play_to_the_end, seated_players, stored_hand, table_of
from tests.tables.phones import action, codes_in, connected, eventually, eventually_async, phone, until

pytestmark = pytest.mark.django_db(transaction=True)

GAME = get_game("film-fantasy")


async def test_a_lone_player_plays_a_whole_hand_with_three_bots(organiser):
    drive = await database_sync_to_async(digital_drive)(organiser, 2, start=False)
    table = await database_sync_to_async(table_of)(drive)
    for _ in range(2):
        await database_sync_to_async(services.add_bot)(drive, table.pk)
    players = await database_sync_to_async(lambda: seated_players(table_of(drive)))()
    assert [p.name for p in players][2:] == ["Bot 1", "Bot 2"]
    human = players[0]
    # The second human leaves the table to a bot too: a table of one person and three bots.
    other = players[1]
    await database_sync_to_async(lambda: BotPlayer.objects.create(player=other))()
    socket, first = await connected(drive, human)
    assert first["type"] == "waiting"
    await database_sync_to_async(services.start_hand)(drive)  # deals; the bots start at once
    table = await database_sync_to_async(table_of)(drive)
    assert table.bots == [1, 2, 3]
    await socket.send_json_to({"type": "sync"})
    rng = random.Random(1)
    for _ in range(3000):
        frame = await until(socket, lambda f: f["type"] in ("state", "error"), timeout=30)
        if frame["type"] == "error":
            if "too often" in frame["message"]:  # (this phone moves at machine speed, against bots that do not wait)
                await asyncio.sleep(0.2)
            await socket.send_json_to({"type": "sync"})
            continue
        view = frame["view"]
        if view["phase"] == "finished":
            break
        stored = await database_sync_to_async(lambda: TableHand.objects.get(pk=table.pk))()
        if stored.version != view["version"]:
            continue  # another frame is on its way
        move = GAME.bot_action(GAME.load_hand(stored.state), 0, rng)
        if move is not None:
            await socket.send_json_to(action(move["type"], view["version"], **{k: v for k, v in move.items() if k != "type"}))
    else:
        pytest.fail("the hand did not finish")
    table = await database_sync_to_async(lambda: TableHand.objects.get(pk=table.pk))()
    assert table.status == TableHand.Status.CONFIRMED
    result = await database_sync_to_async(lambda: Result.objects.get(table=table))()
    assert result.source == Result.Source.DIGITAL
    await socket.disconnect()


def test_bots_join_only_digital_tables_between_hands(transactional_db, organiser):
    drive = digital_drive(organiser, 4, start=False)
    table = table_of(drive)
    services.set_table_mode(drive, 1, "physical")
    with pytest.raises(services.DriveError, match="plays with cards"):
        services.add_bot(drive, table.pk)
    services.set_table_mode(drive, 1, "digital")
    services.add_bot(drive, table.pk)
    with pytest.raises(services.DriveError, match="\u2068Bot 1\u2069 sits at Table 1: a table with a bot plays on the"):
        services.set_table_mode(drive, 1, "physical")
    assert table_of(drive).play_mode == "digital"
    services.start_hand(drive)
    with pytest.raises(services.DriveError, match="between hands"):
        services.add_bot(drive, table.pk)


def test_the_bell_ends_digital_hands_scored_by_the_engine_before_the_movement(transactional_db, organiser):
    drive = digital_drive(organiser, 4)
    table = table_of(drive)
    nxt = services.close_hand(drive, force=False)  # nothing else is waiting: no force needed
    table.refresh_from_db()
    assert table.status == TableHand.Status.CONFIRMED
    state = GAME.load_hand(table.state)
    assert state.finished and state.ended_by == "stopped" and state.declarer is None
    result = Result.objects.get(table=table)
    assert result.status == Result.Status.CONFIRMED and result.winner is None
    assert sorted(result.scores.values_list("points", flat=True)) == sorted(state.outcome().points)
    assert result.mover == seated_players(table)[state.outcome().mover]
    assert nxt is not None and nxt.number == 2


def test_the_hands_export_says_which_hands_the_bell_ended(transactional_db, organiser, organiser_client):
    drive = digital_drive(organiser, 8, preferred_table_size=4)  # two tables on the phones
    first, second = TableHand.objects.filter(hand__drive=drive).order_by("number")
    play_to_the_end(first, seated_players(first), seed=3)
    services.close_hand(drive, force=False)  # the second table is still playing: the bell ends it
    rows = list(csv.reader(io.StringIO(organiser_client.get(f"/drives/{drive.pk}/export/hands.csv")
                                       .content.decode("utf-8-sig"))))
    ended = {row[1]: row[rows[0].index("ended_by")] for row in rows[1:]}
    assert ended == {"1": GAME.load_hand(TableHand.objects.get(pk=first.pk).state).ended_by, "2": "stopped"}
    assert ended["1"] not in ("", "stopped")


def test_a_table_the_bell_stopped_says_so_on_its_hands_page(transactional_db, organiser, organiser_client):
    """A hand stopped by the bell showed "Confirmed" and its points, as a hand
    played to the end does. (The dashboard shows the next hand once the bell has rung; its
    table cards and the hand's page are one template.)"""
    drive = digital_drive(organiser, 8, preferred_table_size=4)  # two tables on the phones
    first = table_of(drive, 1)
    play_to_the_end(first, seated_players(first), seed=3)
    services.close_hand(drive, force=False)  # the second table is still playing: the bell ends it
    page = organiser_client.get(f"/drives/{drive.pk}/hands/1").content.decode()
    played, stopped = page[page.index('id="table-1"'):page.index('id="table-2"')], page[page.index('id="table-2"'):]
    assert "Confirmed" in played and "Confirmed" in stopped
    assert "Stopped by the bell: scored as the hand stood." in stopped
    assert "Stopped by the bell" not in played


def test_the_organiser_can_correct_a_digital_result_from_its_summary(transactional_db, organiser):
    drive = digital_drive(organiser, 4)
    table = table_of(drive)
    services.close_hand(drive)
    result = Result.objects.get(table=table)
    summary = {k: v for k, v in result.summary.items() if k != "digital"}
    outcome = services.outcome_for(drive, 4, summary)  # the stored summary is a valid entry
    assert outcome.points == result.summary["digital"]["points"]


async def organisers_watch(organiser, drive):
    """The organiser's watching socket of table 1, connected."""
    client = Client()
    await database_sync_to_async(client.force_login)(organiser)
    cookie = (b"cookie", f"sessionid={client.cookies['sessionid'].value}".encode())
    watch = phone(drive, path=f"/ws/watch/{drive.join_code}/1/", extra_headers=[cookie])
    assert (await watch.connect())[0]
    return watch


async def test_the_organiser_watches_a_table_and_sees_no_cards(organiser):
    drive = await database_sync_to_async(digital_drive)(organiser, 4)
    watch = await organisers_watch(organiser, drive)
    frame = await watch.receive_json_from(timeout=30)
    assert frame["type"] == "state" and frame["view"]["seat"] is None and "hand" not in frame["view"]

    assert codes_in(frame) == set()  # no card but the public dealer draw
    await watch.send_json_to({"type": "pass", "card": "1-1", "version": 0})
    assert (await watch.receive_json_from(timeout=30))["type"] == "error"
    await watch.disconnect()
    stranger = phone(drive, path=f"/ws/watch/{drive.join_code}/1/")
    assert (await stranger.connect())[0]
    assert (await stranger.receive_json_from(timeout=30))["type"] == "error"


async def test_a_flood_of_syncs_from_the_watching_page_is_cut_short_as_a_phones(organiser, monkeypatch):
    """Each sync of the organiser's view of a table reads the table from the database: limited as a
    phone's (``SYNC_BURST`` at once, then ``SYNC_RATE`` a second), a short refusal beyond."""
    from tables import consumers

    drive = await database_sync_to_async(digital_drive)(organiser, 4)
    watch = await organisers_watch(organiser, drive)
    assert (await watch.receive_json_from(timeout=30))["type"] == "state"
    monkeypatch.setattr(consumers, "SYNC_RATE", 0.01)  # no token back during the flood, however slow the machine
    for _ in range(consumers.SYNC_BURST + 5):
        await watch.send_json_to({"type": "sync"})
    frames = [await watch.receive_json_from(timeout=30) for _ in range(consumers.SYNC_BURST + 5)]
    assert [f["type"] for f in frames].count("state") == consumers.SYNC_BURST
    refused = [f for f in frames if f["type"] == "error"]
    assert len(refused) == 5 and all("too often" in f["message"] for f in refused)
    await watch.disconnect()


def test_a_bot_that_lands_at_a_table_with_cards_makes_it_play_on_the_phones(transactional_db, organiser):
    drive = digital_drive(organiser, 8, start=False, preferred_table_size=4)
    services.set_table_mode(drive, 1, "physical")
    bot = services.add_bot(drive, table_of(drive, 2).pk)
    human = seated_players(table_of(drive, 1))[0]
    services.swap_players(drive, bot, human)  # the bot now sits at table 1, which had cards
    assert bot in seated_players(table_of(drive, 1))
    assert table_of(drive, 1).play_mode == "digital"
    assert table_of(drive, 2).play_mode == "digital"
    services.start_hand(drive)
    dealt = table_of(drive, 1)
    assert dealt.state is not None and dealt.bots == [seated_players(dealt).index(bot)]


def test_no_phone_can_become_a_bot(transactional_db, organiser):
    """A bot is a player the server plays: its name is not on the join page or the phones page,
    it cannot be claimed, and its token (private link, cookie, socket) identifies no phone, so
    nobody sees its cards or plays for it."""
    drive = digital_drive(organiser, 3, start=False)
    bot = services.add_bot(drive, table_of(drive).pk)
    services.start_hand(drive)
    code = drive.join_code
    stranger = Client()
    join_page = stranger.get(f"/{code}").content.decode()
    assert "Bot 1" not in join_page and seated_players(table_of(drive))[0].name in join_page
    stranger.post(f"/{code}/join", {"player": bot.pk})
    assert f"ff_{code}" not in stranger.cookies or not stranger.cookies[f"ff_{code}"].value
    for send in (stranger.get, stranger.post):  # the link is refused, opened or continued...
        assert "no longer valid" in send(f"/{code}/p/{bot.token}", follow=True).content.decode()
    assert not stranger.cookies.get(f"ff_{code}") or not stranger.cookies[f"ff_{code}"].value
    organiser_client = Client()
    organiser_client.force_login(organiser)
    assert "Bot 1" not in organiser_client.get(f"/drives/{drive.pk}/phones").content.decode()
    stranger.cookies[f"ff_{code}"] = bot.token  # ...and a cookie made by hand opens nothing
    assert stranger.get(f"/{code}/play").status_code == 302



async def test_a_socket_with_a_bots_token_is_refused(organiser):
    drive = await database_sync_to_async(digital_drive)(organiser, 3, start=False)
    bot = await database_sync_to_async(lambda: services.add_bot(drive, table_of(drive).pk))()
    await database_sync_to_async(services.start_hand)(drive)
    socket = phone(drive, bot)
    assert (await socket.connect())[0]
    frame = await socket.receive_json_from(timeout=30)
    assert frame["type"] == "error" and "view" not in frame
    await socket.disconnect()


def test_no_paper_result_for_a_table_still_playing_on_the_phones(transactional_db, organiser):
    """Its phones would go on showing the hand: the engine records the result when the hand
    ends, or the bell when the organiser closes. The dashboard offers no entry for it."""
    from tests.factories import declared

    drive = digital_drive(organiser, 4)
    table = table_of(drive)
    before = (table.version, table.state)
    with pytest.raises(services.DriveError, match="playing on the phones"):
        services.organiser_result(drive, table, declared(4, 0), organiser)
    client = Client()
    client.force_login(organiser)
    page = client.post(f"/drives/{drive.pk}/results/{table.pk}", {"declarer": "0"}, follow=True).content.decode()
    assert "playing on the phones" in page
    table.refresh_from_db()
    assert (table.version, table.state) == before and not Result.objects.exists()
    dashboard = client.get(f"/drives/{drive.pk}/").content.decode()
    card = dashboard[dashboard.index('id="table-1"'):]
    assert "Watch" in card[:2000] and "Enter result" not in card[:card.index("</article>")]


def test_a_bot_cannot_join_a_full_drive(transactional_db, organiser, monkeypatch):
    from drive import services as drive_services

    drive = digital_drive(organiser, 3, start=False)
    monkeypatch.setattr(drive_services.players, "MAX_PLAYERS", 3)
    with pytest.raises(services.DriveError, match="This drive is full"):
        services.add_bot(drive, table_of(drive).pk)
    assert drive.players.count() == 3


def test_a_bot_cannot_join_a_table_its_game_plays_full(transactional_db, organiser):
    """Found from outside: bots joined an Alice table up to 10 (the most any game seats), and
    the hand then could not be dealt. A table is full at its game's most players."""
    drive = digital_drive(organiser, 4, start=False, game="alice")
    table = table_of(drive)
    for _ in range(2):
        services.add_bot(drive, table.pk)
    with pytest.raises(services.DriveError, match=r"^Table 1 is full: Alice is played by at most 6 at a table\.$"):
        services.add_bot(drive, table.pk)
    assert table.seats.count() == 6 and drive.players.count() == 6


def _two_people_and_two_bots_dealt(organiser, monkeypatch):
    """A table of two players and two bots (seats 2 and 3), its hand dealt; the test moves the bots."""
    from tables import bots

    monkeypatch.setattr(bots, "schedule_table", lambda *args, **kwargs: None)
    drive = digital_drive(organiser, 2, start=False)
    table = table_of(drive)
    for _ in range(2):
        services.add_bot(drive, table.pk)
    services.start_hand(drive)
    return drive, table_of(drive)


def test_a_phone_cannot_stall_a_bot_or_the_clock_by_sending_the_keys_the_server_will_use(transactional_db, organiser,
                                                                                           monkeypatch):
    """Found by probing: the server's own moves have predictable keys ("bot-<seat>-<version>",
    "clock-<version>"). A phone that sent its move with the key a bot, or the answer clock,
    would use next had the server's move taken for a repeat of it: the bot "applied" nothing,
    again and again, or the clock gave up, and the table waited until the bell (also the phone's
    own seat: its stand-in bot, or the clock of the answer it owes). A phone may not send them;
    and a phone's own key is matched per seat."""
    from tables import bots

    drive, table = _two_people_and_two_bots_dealt(organiser, monkeypatch)
    humans = seated_players(table)[:2]
    assert table.bots == [2, 3]
    assert bots.bot_step(table.pk, 3) == "applied"  # version 1
    state = stored_hand(table.pk)
    for seat, key in ((0, f"bot-2-{state.version + 1}"), (1, f"bot-1-{state.version + 1}"),
                      (0, f"clock-{state.version + 1}")):
        hostile = {**action("pass", state.version, card=state.hands[seat][0]), "key": key}
        with pytest.raises(digital.DigitalError, match="one the server keeps for its own moves"):
            digital.apply_action(table.pk, seat, hostile, player_id=humans[seat].pk)
        assert stored_hand(table.pk) == state
    digital.apply_action(table.pk, 1, {**action("pass", state.version, card=state.hands[1][0]), "key": "mine-1"},
                         player_id=humans[1].pk)
    digital.apply_action(table.pk, 0, action("pass", state.version + 1, card=state.hands[0][0]),
                         player_id=humans[0].pk)
    assert bots.bot_step(table.pk, 2) == "applied"
    state = stored_hand(table.pk)
    assert state.round == 2  # every seat passed, and the cards moved on
    # And a phone's key is its own: another seat sending the same key is not told "already done".
    card = state.hands[0][0]
    applied = digital.apply_action(table.pk, 0, {**action("pass", state.version, card=card), "key": "mine-1"},
                                   player_id=humans[0].pk)
    assert not applied.duplicate and stored_hand(table.pk).passes[0] == card


def test_a_bots_key_sent_again_with_another_move_is_refused_and_the_bot_counts_it_stale(transactional_db, organiser,
                                                                                          monkeypatch):
    """A bot's key ("bot-<seat>-<version>") is remembered with its move's digest like a phone's:
    the same key with another move (a second process's bot choosing otherwise at the same
    version) is refused, not taken for a repeat; the bot counts either as a refusal."""
    drive, table = _two_people_and_two_bots_dealt(organiser, monkeypatch)
    state = stored_hand(table.pk)
    key = f"bot-3-{state.version}"
    first = {**action("pass", state.version, card=state.hands[3][0]), "key": key}
    assert not digital.apply_action(table.pk, 3, first, bot=True).duplicate
    moved = stored_hand(table.pk)
    with pytest.raises(digital.DigitalError, match="already used for another move"):
        digital.apply_action(table.pk, 3, {**action("pass", state.version, card=state.hands[3][1]), "key": key}, bot=True)
    assert digital.apply_action(table.pk, 3, first, bot=True).duplicate  # the same move again
    after = stored_hand(table.pk)
    assert after.version == moved.version and after.passes[3] == state.hands[3][0]


def fail_first_bot_step(monkeypatch, table_id: int) -> list[int]:
    """The first move of a bot of this table fails with an error of the moment (the database
    locked); returns the seat it failed for, once it has. Only this table's bots fail: a bot of
    an earlier test's table still finishing its task must not take the one failure."""
    from django.db import OperationalError

    from tables import bots

    failures: list[int] = []
    real_step = bots.bot_step

    def flaky_step(step_table_id, seat):
        if step_table_id == table_id and not failures:
            failures.append(seat)
            raise OperationalError("database is locked")
        return real_step(step_table_id, seat)

    monkeypatch.setattr(bots, "bot_step", flaky_step)
    return failures


def test_a_bot_whose_move_failed_on_a_passing_error_tries_again(transactional_db, organiser, monkeypatch):
    """Found by probing: a bot's move that failed with an error of the moment (the database
    locked or away for a moment) ended the bot's task, and nothing started it again until a
    phone connected afresh or a person moved: a table waiting only for that bot's pass stood
    still. The bot tries again, after its delay, as after a refusal."""
    drive = digital_drive(organiser, 3, start=False)
    table = table_of(drive)
    failures = fail_first_bot_step(monkeypatch, table.pk)
    services.add_bot(drive, table.pk)
    services.start_hand(drive)  # the bot starts at once (BOT_DELAY_SECONDS 0)
    eventually(lambda: stored_hand(table.pk).passes[3] is not None, "the bot passes after one failed try")
    assert failures == [3]


async def test_a_phone_looking_again_wakes_the_bots_of_its_table(organiser, monkeypatch):
    """A bot that gave up (its moves failed for as long as it tries) is started again by a phone
    of the table that looks again (a sync: the phone's page does so when the table is quiet),
    not only by a phone connecting afresh or a person's move."""
    import threading

    from django.db import OperationalError

    from tables import bots

    real_step, failing, failed = bots.bot_step, threading.Event(), threading.Event()
    failing.set()

    drive = await database_sync_to_async(digital_drive)(organiser, 3, start=False)
    table = await database_sync_to_async(table_of)(drive)

    def flaky_step(table_id, seat):
        # The database away for this table's bots (not an earlier test's), as long as the test says.
        if table_id == table.pk and failing.is_set():
            failed.set()
            raise OperationalError("database is locked")
        return real_step(table_id, seat)

    monkeypatch.setattr(bots, "bot_step", flaky_step)
    monkeypatch.setattr(bots, "MAX_REFUSED", 1)  # the bot gives up after one failed try
    await database_sync_to_async(services.add_bot)(drive, table.pk)
    players = await database_sync_to_async(lambda: seated_players(table_of(drive)))()
    socket, _ = await connected(drive, players[0])
    await database_sync_to_async(services.start_hand)(drive)
    assert await asyncio.to_thread(failed.wait, 30)
    await until(socket, lambda f: f["type"] == "state" and f["hand"] == 1)  # the start's look is done
    await eventually_async(lambda: not bots.playing(table.pk), "every task of the bot has given up")
    failing.clear()
    assert (await database_sync_to_async(stored_hand)(table.pk)).passes[3] is None  # it gave up
    await socket.send_json_to({"type": "sync"})

    async def passed():
        return (await database_sync_to_async(stored_hand)(table.pk)).passes[3] is not None

    await eventually_async(passed, "the bot woken by the phone's sync passes")
    await socket.disconnect()
