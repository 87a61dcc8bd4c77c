"""A drive of The Game of Alice in Wonderland, two hands played with cards, from the drive form to the
standings: entered on a phone and confirmed by another, or by the organiser; the standings keep
pairs and cards taken; the Pool of Tears house rule chosen on the drive form is the one the drive
scores by; and no Film Fantasy word on any of its pages."""

from __future__ import annotations

import csv
import html
import io
import re

import pytest
from django.test import Client

from drive import selectors, services
from drive.models import Drive
from scoring.models import Result
from tests.factories import make_drive, shown_for
from tests.test_game_words import other_games_words

WORDS = other_games_words("wonderland")

pytestmark = pytest.mark.django_db

NAMES = ["Ann", "Bob", "Cy", "Di", "Ed", "Fay", "Gus", "Hal"]


def phone_for(drive, player) -> Client:
    client = Client()
    client.cookies[f"ff_{drive.join_code}"] = player.token
    return client


def answers(dealer: int, pool: int | None, pairs: list[int], cards: list[int], stopped: bool = False) -> dict:
    """The Wonderland entry form's fields (games/wonderland/entry.py's questions)."""
    data = {"dealer": str(dealer), "pool_of_tears": "none" if pool is None else str(pool), "stopped": str(stopped)}
    for i, (p, c) in enumerate(zip(pairs, cards, strict=True)):
        data[f"seat{i}_pairs"], data[f"seat{i}_cards"] = str(p), str(c)
    return data


def seated(table) -> list:
    return [s.player for s in table.seats.select_related("player").order_by("position")]


def text(response) -> str:
    assert response.status_code == 200, response.status_code
    return response.content.decode()


def no_film_fantasy_words(page: str, where: str) -> None:
    found = WORDS.search(page)
    assert not found, f"{where}: {found.group(0)!r} in {page[max(0, found.start() - 80):found.end() + 80]!r}"


def test_a_wonderland_drive_of_two_hands_with_cards_from_the_form_to_the_standings(organiser_client, organiser):
    form = text(organiser_client.get("/drives/new"))
    assert 'name="rule_wonderland_pool_of_tears"' in form
    response = organiser_client.post("/drives/new", {
        "name": "Wonderland night", "date": "2026-12-05", "game": "wonderland",
        "rule_wonderland_pool_of_tears": "S16", "target": "hands", "target_hands": 2, "target_total": 100,
        "preferred_table_size": 4, "play_mode": "physical", "suspense_hands": 0})
    assert response.status_code == 302
    drive = Drive.objects.get()
    assert drive.game == "wonderland" and drive.house_rules == {"pool_of_tears": "S16"}
    # The drive scores by the chosen card: whoever takes star 16 gets the 20, not plain 16's taker.
    assert drive.game_rules.pool_of_tears == "S16"
    from games.wonderland import count
    assert count([["S16", "N1"], ["P16", "N2"]], drive.game_rules.pool_of_tears) == [20, 0]
    assert count([["S16", "N1"], ["P16", "N2"]]) == [0, 20]  # the default card, plain 16

    base = f"/drives/{drive.pk}"
    # The dashboard says the rule it plays by (a tester found it only on the forms).
    assert "The Pool of Tears card (20 points): Star picture 16" in text(organiser_client.get(f"{base}/"))
    organiser_client.post(f"{base}/players", {"names": "\n".join(NAMES)})
    organiser_client.post(f"{base}/draw", {"hand": "0"})
    assert organiser_client.post(f"{base}/start", {"hand": "1"}).status_code == 302
    hand = drive.hands.get()
    t1, t2 = hand.tables.order_by("number")

    # Table 1 on a phone: the form asks Wonderland's questions, naming the drive's card; another
    # player confirms.
    p1 = seated(t1)
    enterer, confirmer = phone_for(drive, p1[0]), phone_for(drive, p1[1])
    page = text(enterer.get(f"/{drive.join_code}/enter"))
    assert "Who took the Pool of Tears card (Star picture 16)?" in page and "Pairs taken" in page and "Cards taken" in page
    no_film_fantasy_words(page, "the phone's result form")
    # Players with cards learn which card is the Pool of Tears before they play (a tester could not).
    assert "20 for the Pool of Tears card (Star picture 16)" in text(enterer.get(f"/{drive.join_code}/me"))
    assert "The Pool of Tears card is Star picture 16: 20 points" in text(enterer.get(f"/{drive.join_code}/play"))
    # Pairs [2, 1, 0, 0]; Cy took the Pool of Tears card; Ann and Di level on the most cards: nobody's 10.
    entry = {**answers(0, 2, [2, 1, 0, 0], [16, 12, 8, 16]), "client_key": "w1", "seen_revision": "0",
             **shown_for(p1[0], 1, 1)}
    assert enterer.post(f"/{drive.join_code}/enter", entry).status_code == 302
    result = Result.objects.get(table=t1)
    # The player asked to confirm sees what was entered, and who it makes move up (a tester saw
    # points only: Ann and Cy on 20, and the cards taken decide).
    waiting = re.sub(r"<[^>]+>|[\u2066-\u2069]", "", text(confirmer.get(f"/{drive.join_code}/me")))
    assert f"Who dealt? {p1[0].name}" in waiting
    assert f"Who took the Pool of Tears card (Star picture 16)? {p1[2].name}" in waiting
    assert "Pairs taken (+10 each): 2 · Cards taken: 16" in waiting and "Cards taken: 8" in waiting
    assert f"{p1[0].name} stays at the top table · {p1[1].name} moves down" in waiting  # at Table 1
    no_film_fantasy_words(waiting, "the confirmer's page")
    confirmer.post(f"/{drive.join_code}/confirm", {**shown_for(p1[1], 1, 1), "seen_revision": result.revision})
    result.refresh_from_db()
    assert result.status == "confirmed"
    assert {s.player.name: (s.points, s.details) for s in result.scores.select_related("player")} == {
        p1[0].name: (20, {"pairs": 2, "cards_taken": 16}), p1[1].name: (10, {"pairs": 1, "cards_taken": 12}),
        p1[2].name: (20, {"cards_taken": 8}), p1[3].name: (0, {"cards_taken": 16})}

    # Table 2 by the organiser, from paper: Ed's 3 pairs, the Pool of Tears and the most cards.
    p2 = seated(t2)
    page = text(organiser_client.get(f"{base}/results/{t2.pk}"))
    assert "(Star picture 16)" in page
    no_film_fantasy_words(page, "the organiser's result form")
    response = organiser_client.post(f"{base}/results/{t2.pk}", {
        **answers(1, 0, [3, 0, 1, 0], [24, 8, 12, 8]), "seen_revision": "0"})
    assert response.status_code == 302
    assert Result.objects.get(table=t2).summary["pool_of_tears"] == 0

    pages = {
        "dashboard": organiser_client.get(f"{base}/"),
        "print table cards": organiser_client.get(f"{base}/print/tables"),
        "board": Client().get(f"/{drive.join_code}/board"),
        "phone": enterer.get(f"/{drive.join_code}/me"),
    }
    for where, response in pages.items():
        no_film_fantasy_words(text(response), where)
    # The table card's how-to says which card takes a trick (a tester asked: which is highest?).
    assert "star pictures beat plain pictures, which beat numbers" in text(pages["print table cards"])
    assert organiser_client.post(f"{base}/close", {"hand": "1"}).status_code == 302

    # Hand 2: every table entered by the organiser, then the standings.
    assert organiser_client.post(f"{base}/start", {"hand": "2"}).status_code == 302
    hand2 = drive.hands.get(number=2)
    for table in hand2.tables.order_by("number"):
        no_film_fantasy_words(text(organiser_client.get(f"{base}/results/{table.pk}")), "hand 2's result form")
        response = organiser_client.post(f"{base}/results/{table.pk}", {
            **answers(2, 1, [1, 1, 0, 0], [12, 12, 8, 20]), "seen_revision": "0"})
        assert response.status_code == 302
    assert organiser_client.post(f"{base}/close", {"hand": "2"}).status_code == 302
    drive.refresh_from_db()

    # The standings: points, then pairs, then cards taken, each player's totals over both hands.
    by_name = {r.name: r for r in selectors.standings(drive)}
    expected = {}
    for result in Result.objects.filter(table__hand__drive=drive):
        for score in result.scores.select_related("player"):
            total, pairs, cards = expected.get(score.player.name, (0, 0, 0))
            expected[score.player.name] = (total + score.points, pairs + score.details.get("pairs", 0),
                                           cards + score.details.get("cards_taken", 0))
    assert {name: (r.total, *r.facts) for name, r in by_name.items()} == expected
    assert sum(pairs for _, pairs, _ in expected.values()) == 2 + 1 + 3 + 1 + 2 * 2
    assert sum(cards for _, _, cards in expected.values()) == 52 + 52 + 2 * 52
    # The hands' export explains each row's points by what was answered (a tester could not).
    rows = list(csv.reader(io.StringIO(organiser_client.get(f"{base}/export/hands.csv").content.decode("utf-8-sig"))))
    said = [row[rows[0].index("answers")] for row in rows[1:]]
    assert len(said) == 4 * 4 and all(re.fullmatch(r"Who dealt\? .+; Who took the Pool of Tears card \(Star picture "
                                                   r"16\)\? .+; Pairs taken \(\+10 each\): \d+; Cards taken: \d+", a)
                                      for a in said), said
    no_film_fantasy_words(" ".join(said), "the hands' export")
    page = text(organiser_client.get(f"{base}/standings"))
    assert "Pairs" in page and "Cards taken" in page and "Most pairs" in page
    # The prize says what its number counts ("Most pairs: Cy (7)").
    most = max(pairs for _, pairs, _ in expected.values())
    assert re.search(rf"Most pairs:</strong> [^<]*<bdi>[^<]+</bdi>(&nbsp;|\xa0)\({most}\xa0pairs?\)", page), page
    assert "More pairs first, then more cards taken." in page
    no_film_fantasy_words(page, "the standings")
    for where, response in {"dashboard": organiser_client.get(f"{base}/"),
                            "board": Client().get(f"/{drive.join_code}/board"),
                            "phone": enterer.get(f"/{drive.join_code}/me")}.items():
        no_film_fantasy_words(text(response), f"{where} at the end")


def bare(page: str) -> str:
    """A page's text without tags or the isolates around names."""
    return html.unescape(re.sub(r"<[^>]+>", "", page)).replace("\u2068", "").replace("\u2069", "")


def hand_one_at_a_table_of_four(organiser_client, organiser):
    """A Wonderland drive of four at one table, hand 1 started by the organiser's pages: the
    drive's address, the table and its players in seat order."""
    drive = make_drive(organiser, 0, name="Wonderland evening", game="wonderland", preferred_table_size=4)
    services.add_players(drive, ["Bob", "Di", "Fay", "Gus"])
    base = f"/drives/{drive.pk}"
    organiser_client.post(f"{base}/draw", {"hand": "0"})
    assert organiser_client.post(f"{base}/start", {"hand": "1"}).status_code == 302
    table = drive.hands.get().tables.get()
    return base, table, seated(table)


def test_a_wonderland_result_records_its_top_scorer_as_the_winner(organiser_client, organiser):
    """The top scorer, who moves up (docs/rules.md), is the hand's winner."""
    base, table, players = hand_one_at_a_table_of_four(organiser_client, organiser)
    # 10, 20, 0 and 30 points: the last seat's 2 pairs and the most cards; the second took the Pool of Tears.
    response = organiser_client.post(f"{base}/results/{table.pk}", {
        **answers(0, 1, [1, 0, 0, 2], [12, 8, 8, 24]), "seen_revision": "0"})
    assert response.status_code == 302
    result = Result.objects.get(table=table)
    assert result.winner == result.mover == players[3]
    # The dashboard's table card marks the hand's winner, as the other games' notes do (found by
    # QA: "Di 10 · Fay 20 · Bob 0 · Gus 30", nothing to say who won), and nobody else.
    card = bare(text(organiser_client.get(f"{base}/")))
    assert f"{players[3].name} 30 (won the hand)" in card and card.count("(won the hand)") == 1


def test_the_corrections_log_says_which_answers_changed(organiser_client, organiser):
    """A tester changed who dealt and a player's pairs; the log showed the points, all
    "unchanged" for a tie-break, and not what had been changed."""
    base, table, players = hand_one_at_a_table_of_four(organiser_client, organiser)
    assert organiser_client.post(f"{base}/results/{table.pk}", {
        **answers(0, 1, [1, 0, 0, 2], [12, 8, 8, 24]), "seen_revision": "0"}).status_code == 302
    assert organiser_client.post(f"{base}/results/{table.pk}", {
        **answers(2, 1, [1, 0, 0, 2], [12, 8, 12, 20]), "seen_revision": "1",
        "reason": "Fay dealt, and took a trick more"}).status_code == 302
    log = re.sub(r"<[^>]+>", "", text(organiser_client.get(f"{base}/log")))
    assert f"Who dealt? {players[0].name} → {players[2].name}" in log
    assert f"{players[2].name}: Cards taken 8 → 12" in log and f"{players[3].name}: Cards taken 24 → 20" in log
    assert "Pairs taken" not in log  # unchanged answers are not listed


def test_a_wonderland_hand_closed_on_the_phones_before_anyone_scored_was_won_by_nobody(organiser_client, organiser):
    """The other side: the organiser closes a digital hand before the first trick; every seat has
    0, nobody won it, and the dealer's left still moves up."""
    drive = make_drive(organiser, 4, game="wonderland", preferred_table_size=4, play_mode="digital")
    base = f"/drives/{drive.pk}"
    organiser_client.post(f"{base}/draw", {"hand": "0"})
    assert organiser_client.post(f"{base}/start", {"hand": "1"}).status_code == 302
    assert organiser_client.post(f"{base}/close", {"hand": "1", "force": "1"}).status_code == 302
    result = Result.objects.get()
    assert result.winner is None and result.mover is not None
    assert all(s.points == 0 for s in result.scores.all())


def test_cards_taken_short_of_those_dealt_are_refused_unless_the_bell_stopped_the_hand(organiser_client, organiser):
    """Cards taken that added up to fewer than were dealt (40 of 52 at
    four players) were accepted without a word. A hand played out takes every card dealt; only
    the bell leaves some untaken (its last trick going to nobody), which the entry asks."""
    base, table, players = hand_one_at_a_table_of_four(organiser_client, organiser)
    short = answers(0, 1, [1, 0, 0, 2], [12, 8, 8, 12])
    page = text(organiser_client.post(f"{base}/results/{table.pk}", {**short, "seen_revision": "0"}))
    assert ("40 cards taken in all, but a hand played out at 4 players takes all 52 dealt: count the cards again, "
            "or say the bell stopped the hand.") in page
    assert not Result.objects.filter(table=table).exists()
    assert "Were all the cards played?" in page and "No: the bell stopped the hand" in page
    stopped = answers(0, 1, [1, 0, 0, 2], [12, 8, 8, 12], stopped=True)
    assert organiser_client.post(f"{base}/results/{table.pk}", {**stopped, "seen_revision": "0"}).status_code == 302
    assert Result.objects.get(table=table).summary["stopped"] is True
    # More than were dealt: refused whatever is answered.
    page = text(organiser_client.post(f"{base}/results/{table.pk}", {
        **answers(0, 1, [1, 0, 0, 2], [16, 16, 12, 12], stopped=True), "seen_revision": "1", "reason": "recount"}))
    assert "56 cards taken in all, but at 4 players only 52 are played in a hand." in page


def _entered_before_the_bell_question(organiser_client, organiser):
    """A hand's result as stored before the entry asked "Were all the cards played?": no ``stopped``."""
    base, table, players = hand_one_at_a_table_of_four(organiser_client, organiser)
    organiser_client.post(f"{base}/results/{table.pk}", {**answers(0, 1, [1, 0, 0, 2], [12, 8, 8, 24]),
                                                         "seen_revision": "0"})
    result = Result.objects.get(table=table)
    Result.objects.filter(pk=result.pk).update(summary={k: v for k, v in result.summary.items() if k != "stopped"})
    return base, table, players, Result.objects.get(pk=result.pk)


PLAYED_OUT = {"dealer": 0, "pool_of_tears": 1, "stopped": False,
              "holdings": [{"pairs": p, "cards": c} for p, c in zip([1, 0, 0, 2], [12, 8, 8, 24])]}


def test_a_result_recorded_before_the_bell_question_sent_back_as_it_stands_is_nothing_to_correct(
        organiser_client, organiser):
    """Its page shows the question at "Yes: all played"; sent back so, it is the result as it stands."""
    base, table, _, result = _entered_before_the_bell_question(organiser_client, organiser)
    assert 'name="stopped" value="False"' in organiser_client.get(f"{base}/results/{table.pk}").content.decode()
    with pytest.raises(services.DriveError, match="nothing to correct"):
        services.organiser_result(table.hand.drive, table, PLAYED_OUT, organiser, reason="looked again",
                                  seen_revision=result.revision)
    assert not result.corrections.exists()


def test_a_disputed_entry_recorded_before_the_bell_question_kept_as_it_stands_is_confirmed_not_corrected(
        organiser_client, organiser):
    base, table, players, result = _entered_before_the_bell_question(organiser_client, organiser)
    Result.objects.filter(pk=result.pk).update(status=Result.Status.DISPUTED, entered_by=players[0],
                                               source=Result.Source.PHONE)
    services.organiser_result(table.hand.drive, table, PLAYED_OUT, organiser, reason="it stands",
                              seen_revision=result.revision)
    assert [c.changed for c in result.corrections.all()] == [False]
    assert "confirmed by the organiser" in text(organiser_client.get(f"{base}/results/{table.pk}"))
