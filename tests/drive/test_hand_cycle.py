"""The hand cycle: draw, start, results, close (with movement), end conditions, corrections (the
players' names: tests/drive/test_player_names.py)."""

from __future__ import annotations

import pytest
from django.test import Client

from drive import movement, services
from drive import results as phone_results
from drive.results import Shown
from drive.models import Drive, Player
from drive.selectors import prizes as selectors_prizes, standings, tables_of
from drive.services import DriveError
from scoring.models import Correction, Result, Score
from tables.models import Hand, Seat, TableHand
from tests.factories import declared, finish_all_tables, make_drive, seated_drive

pytestmark = pytest.mark.django_db


def seating_names(hand: Hand) -> list[list[str]]:
    return [[s.player.name for s in t.seats.all()] for t in tables_of(hand)]


def test_draw_seats_every_active_player_once_in_tables_of_the_preferred_size(organiser):
    drive = make_drive(organiser, 14, preferred_table_size=4)
    hand = services.draw_seating(drive)
    sizes = sorted(len(t) for t in seating_names(hand))
    assert sizes == [3, 3, 4, 4]
    assert Seat.objects.filter(hand=hand).values("player").distinct().count() == 14
    drive.refresh_from_db()
    assert drive.status == Drive.Status.PLAYING


def test_drawing_again_draws_a_new_seating(organiser):
    """'Draw again' before the first hand is a new draw (it had drawn the same seating from the
    drive's seed every time)."""
    drive = make_drive(organiser, 16, preferred_table_size=4)
    draws = [seating_names(services.draw_seating(drive)) for _ in range(3)]
    assert draws[0] != draws[1] != draws[2]
    hand = Hand.objects.get(drive=drive)
    assert Seat.objects.filter(hand=hand).count() == 16  # still everyone once, in one hand


def test_a_drive_ended_before_its_first_hand_cannot_be_drawn_and_started_again(organiser, organiser_client):
    """Found by probing: ending the drive while hand 1's seating was shown deletes that seating,
    and a stale dashboard's "Draw the seating" (the form says hand 0, as the drive now has no
    hand) drew a new one and set the finished drive playing again, its standings frozen empty."""
    drive = seated_drive(organiser, 8, start=False)
    services.end_drive(drive)
    for attempt in (lambda: services.draw_seating(drive),
                    lambda: organiser_client.post(f"/drives/{drive.pk}/draw", {"hand": "0"}, follow=True)):
        try:
            response = attempt()
        except DriveError as exc:
            assert str(exc) == "This drive has finished: no seating is drawn for it."
        else:
            assert "This drive has finished: no seating is drawn for it." in response.content.decode()
        drive.refresh_from_db()
        assert drive.status == Drive.Status.FINISHED and not drive.hands.exists()


def test_draw_needs_two_players(organiser):
    drive = make_drive(organiser, 1)
    with pytest.raises(DriveError, match="at least 2 players"):
        services.draw_seating(drive)
    assert not Hand.objects.exists()


def test_seating_cannot_be_redrawn_once_the_first_hand_started(organiser):
    drive = seated_drive(organiser, 8)
    with pytest.raises(DriveError, match="before the first hand starts"):
        services.draw_seating(drive)


def test_closing_needs_every_table_done(organiser):
    drive = seated_drive(organiser, 8)
    hand = drive.hands.get()
    first = hand.tables.get(number=1)
    services.organiser_result(drive, first, declared(4, 0), organiser)
    with pytest.raises(DriveError, match="^Waiting for Table 2. Close anyway to record Table 2 as not played.$"):
        services.close_hand(drive)
    hand.refresh_from_db()
    assert hand.status == Hand.Status.PLAYING


def test_the_close_says_what_closing_anyway_does_to_each_table_waited_for(organiser):
    """A table whose entry nobody had confirmed was said to be recorded as not
    played, when closing anyway accepts its entry as it stands."""
    drive = seated_drive(organiser, 12, preferred_table_size=4)
    first = drive.hands.get().tables.get(number=1)
    enterer = first.seats.get(position=0).player
    phone_results.enter(drive, enterer, declared(4, 1), client_key="k", seen_revision=0,
                        shown=Shown(1, 1, enterer.pk))
    with pytest.raises(DriveError, match=r"^Waiting for Tables 1, 2 and 3\. Close anyway to accept the result entered "
                                         r"at Table 1 as it stands and record Tables 2 and 3 as not played\.$"):
        services.close_hand(drive)
    services.close_hand(drive, force=True)
    assert [t.status for t in drive.hands.get(number=1).tables.order_by("number")] == [
        TableHand.Status.CONFIRMED, TableHand.Status.NOT_PLAYED, TableHand.Status.NOT_PLAYED]


def test_the_close_waiting_for_cards_also_says_closing_anyway_rings_the_bell_on_the_phones(organiser):
    """Found playing a mixed drive: with a table with cards still waiting and another still
    playing on the phones, the close said only "Waiting for Table 1. Close anyway to record
    Table 1 as not played.", though closing anyway also ends the hand on the phones."""
    drive = seated_drive(organiser, 8, start=False)
    services.set_table_mode(drive, 2, "digital")
    services.start_hand(drive)
    with pytest.raises(DriveError, match=r"^Waiting for Table 1\. Close anyway to record Table 1 as not played and "
                                         r"ring the bell at Table 2, still playing on the phones: its hand ends, "
                                         r"scored as it stands\.$"):
        services.close_hand(drive)
    assert drive.hands.get().tables.get(number=2).status == TableHand.Status.PLAYING  # nothing rung


def test_the_close_says_all_three_things_closing_anyway_does_in_one_sentence(organiser):
    drive = seated_drive(organiser, 12, start=False, preferred_table_size=4)
    services.set_table_mode(drive, 3, "digital")
    services.start_hand(drive)
    first = drive.hands.get().tables.get(number=1)
    enterer = first.seats.get(position=0).player
    phone_results.enter(drive, enterer, declared(4, 1), client_key="k", seen_revision=0,
                        shown=Shown(1, 1, enterer.pk))
    with pytest.raises(DriveError, match=r"^Waiting for Tables 1 and 2\. Close anyway to accept the result entered at "
                                         r"Table 1 as it stands, record Table 2 as not played and ring the bell at "
                                         r"Table 3, still playing on the phones: its hand ends, scored as it stands\.$"):
        services.close_hand(drive)


def test_close_applies_the_movement_rule(organiser):
    drive = seated_drive(organiser, 12, preferred_table_size=4)
    hand = drive.hands.get()
    before = seating_names(hand)
    declarer_seats = [1, 2, 3]
    for table, seat in zip(tables_of(hand), declarer_seats):
        services.organiser_result(drive, table, declared(4, seat), organiser)
    next_hand = services.close_hand(drive)
    expected = movement.move(before, [before[t][s] for t, s in enumerate(declarer_seats)])
    assert seating_names(next_hand) == expected
    assert next_hand.number == 2 and next_hand.status == Hand.Status.SEATING


def test_forced_close_records_missing_tables_as_not_played(organiser):
    drive = seated_drive(organiser, 8)
    hand = drive.hands.get()
    services.organiser_result(drive, hand.tables.get(number=1), declared(4, 2), organiser)
    services.close_hand(drive, force=True)
    second = hand.tables.get(number=2)
    assert second.status == TableHand.Status.NOT_PLAYED
    assert list(Score.objects.filter(result__table=second).values_list("points", flat=True)) == [0, 0, 0, 0]
    # The no-declaration rule with everyone on 0: the player on seat 1's left (seat 2) counts as declarer.
    assert second.result.mover == second.seats.get(position=1).player
    # No hand played at Table 2 (a late arrival whose one table was not played took
    # the booby prize): its players show no place and win no prize; Table 1's have played.
    played = {r.row.player_id: r.row.hands_played for r in standings(drive)}
    assert {played[s.player_id] for s in second.seats.all()} == {0}
    assert {played[s.player_id] for s in hand.tables.get(number=1).seats.all()} == {1}
    # One of them leaves: having played no hand, in no standings, as the organiser is told.
    leaver = second.seats.get(position=0).player
    assert not services.withdraw_player(drive, leaver).stays
    assert leaver.pk not in {r.row.player_id for r in standings(drive)}
    services.end_drive(drive)
    booby = selectors_prizes(drive, standings(drive))
    assert not {r.row.player_id for p in booby for r in p.ranked} & {s.player_id for s in second.seats.all()}
    # At the end, a player who played no hand has no place, and their phone says why.
    stayer = second.seats.get(position=1).player
    phone = Client()
    phone.cookies[f"ff_{drive.join_code}"] = stayer.token
    assert "You played no hand, so you have no place in its standings." in phone.get(f"/{drive.join_code}/me").content.decode()


def test_disputed_table_blocks_close_even_when_forced(organiser):
    drive = seated_drive(organiser, 8)
    hand = drive.hands.get()
    table = hand.tables.get(number=1)
    result = services.organiser_result(drive, table, declared(4, 0), organiser)
    from scoring import services as scoring

    scoring.set_status(result, Result.Status.DISPUTED, reason="wrong declarer")
    TableHand.objects.filter(pk=table.pk).update(status=TableHand.Status.DISPUTED)
    with pytest.raises(DriveError, match="Settle the dispute at Table 1"):
        services.close_hand(drive, force=True)


def test_standings_accumulate_over_hands(organiser):
    drive = seated_drive(organiser, 4, target="hands", target_hands=3)
    for _ in range(2):
        finish_all_tables(drive, organiser, declarer_seat=0)
        services.close_hand(drive)
        services.start_hand(drive)
    ranked = standings(drive)
    assert sum(r.total for r in ranked) == 30
    assert sum(r.facts[0] for r in ranked) == 2  # Film Fantasy's first fact: declarations


def test_drive_ends_after_the_agreed_number_of_hands_and_freezes(organiser):
    drive = seated_drive(organiser, 4, target="hands", target_hands=1)
    finish_all_tables(drive, organiser)
    assert services.close_hand(drive) is None
    drive.refresh_from_db()
    assert drive.status == Drive.Status.FINISHED
    assert drive.final_standings and drive.hands.count() == 1
    table = drive.hands.get().tables.get()
    with pytest.raises(DriveError, match="frozen"):
        services.organiser_result(drive, table, declared(4, 1), organiser, reason="late fix")
    # Nor can players leave or come back (found by a tester: the dashboard hid the buttons, the
    # server took the posts).
    first, second = drive.players.order_by("id")[:2]
    with pytest.raises(DriveError, match="frozen"):
        services.withdraw_player(drive, first)
    Player.objects.filter(pk=second.pk).update(active=False)
    with pytest.raises(DriveError, match="frozen"):
        services.rejoin_player(drive, second)
    assert list(drive.players.order_by("id").values_list("active", flat=True))[:2] == [True, False]


def test_drive_ends_when_someone_reaches_the_total(organiser):
    drive = seated_drive(organiser, 4, target="total", target_total=25)
    table = drive.hands.get().tables.get()
    services.organiser_result(drive, table, declared(4, 0, sets={1: 1}), organiser)
    assert services.close_hand(drive) is not None  # 15 is not 25
    services.start_hand(drive)
    table = drive.hands.get(number=2).tables.get()
    services.organiser_result(drive, table, declared(4, 0, nine=True), organiser)
    # Whoever declared twice now has 15 + 25 or so: at least 25.
    assert services.close_hand(drive) is None
    drive.refresh_from_db()
    assert drive.is_finished


def test_only_a_total_that_can_win_ends_the_drive(organiser):
    """A bot's total ended a drive at 30 points where no person had any. A player
    who left, or a bot, cannot win: their totals end no drive."""
    from dataclasses import replace

    from drive.ending import target_reached
    from drive.selectors import standings_rows

    drive = seated_drive(organiser, 4, target="total", target_total=25)
    table = drive.hands.get().tables.get()
    services.organiser_result(drive, table, declared(4, 0, nine=True), organiser)
    top = max(standings_rows(drive, live=True), key=lambda r: r.total)
    assert top.total >= 25 and target_reached(drive, 1)
    rows = standings_rows(drive, live=True)
    as_a_bot = [replace(r, bot=True) if r.name == top.name else r for r in rows]
    assert not target_reached(drive, 1, as_a_bot, tables=1)
    services.withdraw_player(drive, drive.players.get(name=top.name))  # leaves, their 25 or more kept
    assert services.close_hand(drive) is not None
    drive.refresh_from_db()
    assert not drive.is_finished


def test_a_home_game_level_at_the_top_at_its_total_plays_another_hand(organiser):
    """Film Fantasy's leaflet: "a tie at the top plays another hand" (a home game, one table;
    found by a review of the rules: the drive ended, the tie-breaks deciding). A drive of
    several tables ends there, its tie-breaks deciding; so does its agreed number of hands."""
    level = {**declared(4, 0, sets={0: 2, 1: 2}), "declarer": None}  # nobody declared: 10, 10, 0, 0
    drive = seated_drive(organiser, 4, target="total", target_total=10)
    services.organiser_result(drive, drive.hands.get().tables.get(), level, organiser)
    assert services.close_hand(drive) is not None  # 10 and 10: level at the top, at the total
    drive.refresh_from_db()
    assert not drive.is_finished
    services.start_hand(drive)
    services.organiser_result(drive, drive.hands.get(number=2).tables.get(), declared(4, 0), organiser)
    assert services.close_hand(drive) is None  # one of them ahead now
    drive.refresh_from_db()
    assert drive.is_finished

    either = seated_drive(organiser, 4, target="either", target_hands=1, target_total=10)
    services.organiser_result(either, either.hands.get().tables.get(), level, organiser)
    assert services.close_hand(either) is None  # its one hand played: the end, level or not

    # Level only with a player who has left (who can neither win nor break the tie): it ends.
    left = seated_drive(organiser, 4, target="total", target_total=10)
    table = left.hands.get().tables.get()
    services.organiser_result(left, table, level, organiser)
    services.withdraw_player(left, table.seats.get(position=1).player)
    assert services.close_hand(left) is None

    hall = seated_drive(organiser, 8, target="total", target_total=10)
    for table in hall.hands.get().tables.all():
        services.organiser_result(hall, table, level, organiser)
    assert services.close_hand(hall) is None  # a drive of two tables: the tie-breaks decide


def test_whichever_comes_first(organiser):
    drive = seated_drive(organiser, 4, target="either", target_hands=2, target_total=500)
    finish_all_tables(drive, organiser)
    services.close_hand(drive)
    services.start_hand(drive)
    finish_all_tables(drive, organiser)
    assert services.close_hand(drive) is None


def test_a_target_reached_between_hands_starts_no_further_hand(organiser):
    """Found by a probe from outside: with the next seating shown, the organiser lowered the
    drive's target to the hands already played (or a correction took someone to the total),
    and "Start hand" played a hand beyond it. The start is refused, nothing changed, with what
    to do; raising the target again lets the drive play on."""
    drive = seated_drive(organiser, 8, target="hands", target_hands=3, target_total=500)
    finish_all_tables(drive, organiser)
    services.close_hand(drive)
    Drive.objects.filter(pk=drive.pk).update(target_hands=1)  # the drive's page, saved
    with pytest.raises(DriveError, match="reached its target: end the drive now, or raise its target"):
        services.start_hand(drive, shown_hand=2)
    assert drive.hands.get(number=2).status == Hand.Status.SEATING
    assert not TableHand.objects.filter(hand__number=2, hand__drive=drive).exclude(state=None).exists()
    Drive.objects.filter(pk=drive.pk).update(target_hands=3)
    assert services.start_hand(drive, shown_hand=2).status == Hand.Status.PLAYING

    # A correction between hands that takes someone to the total: the same.
    drive = seated_drive(organiser, 4, target="total", target_total=25)
    table = drive.hands.get().tables.get()
    services.organiser_result(drive, table, declared(4, 0), organiser)
    services.close_hand(drive)
    services.organiser_result(drive, table, declared(4, 0, nine=True), organiser, reason="it had the Joker")
    with pytest.raises(DriveError, match="reached its target"):
        services.start_hand(drive)


def test_correction_needs_a_reason_and_is_logged(organiser):
    drive = seated_drive(organiser, 4)
    table = drive.hands.get().tables.get()
    services.organiser_result(drive, table, declared(4, 0), organiser)
    with pytest.raises(DriveError, match="reason"):
        services.organiser_result(drive, table, declared(4, 1), organiser, reason="  ")
    services.organiser_result(drive, table, declared(4, 1, nine=True), organiser, reason="Bob declared, not Ann")
    log = Correction.objects.get()
    assert log.reason == "Bob declared, not Ann" and log.by == organiser
    seats = list(table.seats.order_by("position"))
    assert log.old["points"][str(seats[0].player_id)] == 15
    assert log.new["points"][str(seats[1].player_id)] == 25
    assert Score.objects.filter(result__table=table, points=25).count() == 1


def test_impossible_entry_is_refused_and_changes_nothing(organiser):
    drive = seated_drive(organiser, 4)
    table = drive.hands.get().tables.get()
    bad = declared(4, 0, sets={1: 2, 2: 2, 3: 2})  # 2 declared + 6 = 8 sets, only 10 films… fine; make it worse
    bad["holdings"][1]["ice"] = "joker"
    bad["holdings"][2]["ice"] = "joker"
    with pytest.raises(DriveError, match="Joker"):
        services.organiser_result(drive, table, bad, organiser)
    assert not Result.objects.exists()


def test_late_arrival_between_hands_is_seated_and_keeps_everyone(organiser):
    drive = seated_drive(organiser, 8)
    finish_all_tables(drive, organiser)
    hand2 = services.close_hand(drive)
    services.add_players(drive, ["Latecomer"])
    names = [n for t in seating_names(hand2) for n in t]
    assert "Latecomer" in names and len(names) == 9 and len(set(names)) == 9


def test_late_arrival_during_a_hand_waits_for_the_next(organiser):
    drive = seated_drive(organiser, 8)
    services.add_players(drive, ["Latecomer"])
    assert "Latecomer" not in [n for t in seating_names(drive.hands.get()) for n in t]
    finish_all_tables(drive, organiser)
    hand2 = services.close_hand(drive)
    assert "Latecomer" in [n for t in seating_names(hand2) for n in t]


def test_withdrawn_player_keeps_their_points_and_is_unseated(organiser):
    drive = seated_drive(organiser, 9)
    finish_all_tables(drive, organiser)
    hand2 = services.close_hand(drive)
    leaver = hand2.tables.get(number=1).seats.get(position=0).player
    before = next(r.total for r in standings(drive) if r.name == leaver.name)
    services.withdraw_player(drive, leaver)
    names = [n for t in seating_names(hand2) for n in t]
    assert leaver.name not in names and len(names) == 8
    assert next(r.total for r in standings(drive) if r.name == leaver.name) == before


def test_a_player_withdrawn_before_playing_a_hand_is_in_no_standings(organiser):
    """Added by mistake (a bot too) and withdrawn before any hand: not ranked, not counted
    among the players; rejoining puts them back."""
    drive = make_drive(organiser, 8)
    mistake = services.add_players(drive, ["Mistake"])[0]
    services.withdraw_player(drive, mistake)
    hand = services.draw_seating(drive)
    assert "Mistake" not in [n for t in seating_names(hand) for n in t]
    services.start_hand(drive)
    finish_all_tables(drive, organiser)
    services.close_hand(drive)
    ranked = standings(drive)
    assert len(ranked) == 8 and "Mistake" not in [r.name for r in ranked]
    services.rejoin_player(drive, mistake)
    assert "Mistake" in [r.name for r in standings(drive)]


def test_a_late_arrival_who_never_played_is_in_no_final_standings_and_wins_no_booby(organiser):
    """Found by a probe from outside: a late arrival added during the last hand (seated only at
    the next, which never came) was frozen into the final standings on 0 points from 0 hands,
    and took the booby prize (and a place, "5th of 5") without playing a card. The final
    standings, like a withdrawn player's, hold only those who played a hand."""
    drive = seated_drive(organiser, 4, target="hands", target_hands=1)
    late = services.add_players(drive, ["Latecomer"])[0]
    table = drive.hands.get().tables.get()
    services.organiser_result(drive, table, declared(4, 0, sets={1: 1}), organiser)
    assert "Latecomer" in [r.name for r in standings(drive)]  # during the drive: they will play
    assert services.close_hand(drive) is None
    drive.refresh_from_db()
    ranked = standings(drive)
    assert [r.row.player_id for r in ranked if r.row.player_id == late.pk] == []
    assert len(ranked) == 4
    prizes = {p.key: p.ranked for p in selectors_prizes(drive, ranked)}
    assert "Latecomer" not in [r.name for group in prizes.values() for r in group]
    assert prizes["booby"] and all(r.row.hands_played == 1 for r in prizes["booby"])


def test_swap_two_players_between_hands(organiser):
    drive = seated_drive(organiser, 8, start=False)
    hand = drive.hands.get()
    a = hand.tables.get(number=1).seats.get(position=0).player
    b = hand.tables.get(number=2).seats.get(position=3).player
    services.swap_players(drive, a, b)
    assert hand.tables.get(number=1).seats.get(position=0).player == b
    assert hand.tables.get(number=2).seats.get(position=3).player == a
    services.start_hand(drive)
    with pytest.raises(DriveError, match="between hands"):
        services.swap_players(drive, a, b)


def test_database_refuses_a_player_seated_twice_in_one_hand(organiser):
    from django.db import IntegrityError, transaction

    drive = seated_drive(organiser, 8)
    hand = drive.hands.get()
    seat = Seat.objects.filter(hand=hand).first()
    other_table = hand.tables.exclude(pk=seat.table_id).first()
    with pytest.raises(IntegrityError), transaction.atomic():
        Seat.objects.create(table=other_table, hand=hand, player=seat.player, position=9)


def test_database_refuses_two_results_for_one_table(organiser):
    from django.db import IntegrityError, transaction

    drive = seated_drive(organiser, 4)
    table = drive.hands.get().tables.get()
    services.organiser_result(drive, table, declared(4, 0), organiser)
    with pytest.raises(IntegrityError), transaction.atomic():
        Result.objects.create(table=table, drive=drive, summary={}, source="phone", mover=table.seats.first().player)


def test_house_rule_switches_off_the_declarer_joker_penalty(organiser):
    drive = seated_drive(organiser, 4, house_rules={"declarer_joker_penalty": False})
    table = drive.hands.get().tables.get()
    summary = declared(4, 0)
    summary["holdings"][0]["ice"] = "joker"
    services.organiser_result(drive, table, summary, organiser)
    assert Score.objects.get(result__table=table, details__declarations=1).points == 15


def test_an_impossible_entry_names_the_players_not_seat_numbers(organiser):
    """Two Jokers entered at a one-pack table: the refusal names the two players as the
    dashboard shows them, not seats counted from 0."""
    drive = seated_drive(organiser, 4)
    summary = declared(4, 0)
    for seat in (1, 3):
        summary["holdings"][seat]["ice"] = "joker"
    with pytest.raises(services.DriveError) as refused:
        services.outcome_for(drive, 4, summary, ["Ann", "Fay", "Gus", "Bob"])
    assert "2 Jokers entered (\u2068Fay\u2069 and \u2068Bob\u2069); one pack has only 1." == str(refused.value)
