"""Rules cases of /work/shared/design/ALICE.md (docs/rules.md, "Alice") not pinned elsewhere:
whole hands played from hand-built packs through the public API only (``AliceHand.from_deck``,
``apply``, ``stop``, ``outcome`` and the attributes ``turn``, ``hands``, ``row``, ``stock``,
``laid``, ``answering``, ``finished``, ``version``), no state edited by hand; and the entry of a
hand played with cards, in the game and through the drive's service and pages.

Seats are numbered clockwise from 0; "left" of seat i is seat i+1.
"""

import copy
import html
import random
import re

import pytest

from drive import services
from games.alice import ALICE, PACK, AliceHand, GameError
from scoring.models import Result
from tests.factories import seated_drive

from .alice_support import deal


def pack(hands, row, stock, dealer):
    """The 44 cards in the order that deals ``hands[seat]`` to each seat (one card at a time from
    the dealer's left), then ``row``, then the stock, its top first."""
    n = len(hands)
    cards = [hands[(dealer + 1 + j) % n][r] for r in range(len(hands[0])) for j in range(n)] + list(row) + list(stock)
    assert sorted(cards) == sorted(PACK)
    return cards


def state(h):
    return copy.deepcopy(h.to_json())


def act(h, seat, **action):
    """An accepted action: exactly one version more, however much it did."""
    v = h.version
    h.apply(seat, action)
    assert h.version == v + 1


def ask(h, seat, to, card):
    act(h, seat, type="ask", to=to, card=card)


def take(h, seat, card):
    act(h, seat, type="take", card=card)


def refused(h, seat, action, words=None):
    """A refused action: a ValueError in players' words, the hand exactly as it was."""
    before = state(h)
    with pytest.raises(ValueError) as err:
        h.apply(seat, action)
    assert isinstance(err.value, GameError) and state(h) == before
    message = str(err.value)
    assert message[0].isupper() and not re.search(r"\bseat 0\b", message), message
    if words is not None:
        assert message == words
    return message


def tail(h, k):
    return [{key: e[key] for key in e if key in ("type", "seat")} for e in h.log[-k:]]


# ---------------------------------------------------------------- six players, every move by the API
# Dealer seat 5: seat 0 begins. 5 cards each; the stock holds the 7 cards left after the row.
SIX = [["A1", "A2", "A3", "A4", "G1"], ["B1", "B2", "B3", "B4", "G2"], ["C1", "C2", "C3", "C4", "G3"],
       ["D1", "D2", "D3", "D4", "G4"], ["E1", "E2", "E3", "E4", "H1"], ["F1", "F2", "F3", "F4", "H2"]]
SIX_ROW = ["A5", "B5", "C5", "D5", "E5", "F5", "WR"]
SIX_STOCK = ["H3", "H4", "H5", "G5", "WR", "CC", "CC"]


def six_after_a_set_each():
    """Each seat in turn takes its set's fifth card from the row: laid at once, the gap filled
    in place from the stock's top."""
    h = AliceHand.from_deck(6, pack(SIX, SIX_ROW, SIX_STOCK, 5), 5)
    assert h.turn == 0 and h.hands == SIX and h.row == SIX_ROW and h.stock == SIX_STOCK and h.version == 0
    filled = list(SIX_STOCK)
    for seat, card in enumerate(SIX_ROW[:6]):
        assert h.turn == seat
        take(h, seat, card)
        assert h.row[seat] == filled.pop(0) and h.laid[seat] == ["ABCDEF"[seat]]
    assert h.row == ["H3", "H4", "H5", "G5", "WR", "CC", "WR"] and h.stock == ["CC"] and h.turn == 0
    return h


def six_after_seven_sets():
    """Seat 0 asks three players for G2-G4 (each handed over at once: no White Rabbit), then takes
    G5, the seventh set; the gap takes the stock's last card."""
    h = six_after_a_set_each()
    for to in (1, 2, 3):
        ask(h, 0, to, f"G{to + 1}")
        assert h.turn == 0 and h.answering is None
    take(h, 0, "G5")
    assert h.laid[0] == ["A", "G"] and h.stock == [] and h.row == ["H3", "H4", "H5", "CC", "WR", "CC", "WR"]
    assert h.turn == 1 and h.hands[1] == [] and not h.finished  # no cards, but the row: it plays
    return h


def test_six_players_each_laying_one_set_the_last_of_them_to_lay_moves_up():
    h = six_after_a_set_each()
    h.stop()
    o = h.outcome()
    assert o.points == [5] * 6 and o.mover == 5 and o.winner == 5


def test_a_player_ahead_on_sets_moves_up_whoever_laid_last():
    h = six_after_seven_sets()
    h.stop()
    assert h.outcome().points == [10, 5, 5, 5, 5, 5] and h.outcome().mover == 0


def test_the_eighth_set_taken_from_the_row_ends_the_hand_at_once():
    h = six_after_seven_sets()
    take(h, 1, "H3")
    take(h, 2, "H4")
    take(h, 3, "CC")
    assert h.row == ["H5", "WR", "CC", "WR"]  # the stock is empty: the row shrinks
    for to, card in ((5, "H2"), (1, "H3"), (2, "H4")):
        ask(h, 4, to, card)
        assert h.turn == 4
    take(h, 4, "H5")
    assert h.finished and h.turn is None and h.answering is None
    assert h.laid == [["A", "G"], ["B"], ["C"], ["D"], ["E", "H"], ["F"]]
    assert tail(h, 3) == [{"type": "took", "seat": 4}, {"type": "laid", "seat": 4}, {"type": "ended"}]
    o = h.outcome()
    assert o.points == [10, 5, 5, 5, 10, 5] and o.mover == 4 and o.winner == 4  # tied with seat 0, laid last
    version = h.version
    for seat in range(6):
        refused(h, seat, {"type": "take", "card": "WR"}, "The hand is over.")
    with pytest.raises(ValueError):
        h.stop()
    assert h.version == version


def six_with_the_row_empty():
    """Play on until the row is empty: seat 2 holds only a White Rabbit and is skipped."""
    h = six_after_seven_sets()
    take(h, 1, "H3")
    take(h, 2, "WR")
    take(h, 3, "H4")
    ask(h, 4, 5, "H2")
    take(h, 4, "H5")
    take(h, 5, "CC")
    take(h, 0, "CC")
    assert h.row == ["WR"]
    take(h, 1, "WR")
    assert h.row == [] and h.hands[2] == ["WR"]
    assert h.turn == 3 and tail(h, 3) == [{"type": "took", "seat": 1}, {"type": "skipped", "seat": 2},
                                          {"type": "turn", "seat": 3}]
    assert h.may(2) == [] and h.may(3) == ["ask"]
    refused(h, 3, {"type": "take", "card": "WR"}, "The row is empty: ask another player for a card.")
    for to, card in ((4, "H1"), (4, "H2"), (4, "H5")):
        ask(h, 3, to, card)
    assert sorted(h.hands[3]) == ["H1", "H2", "H4", "H5"] and h.hands[4] == []
    ask(h, 3, 1, "H3")  # seat 1 holds H3 and a White Rabbit: it must answer
    assert h.turn == 3 and h.answering == 1 and h.waiting_for() == 1 and h.may(1) == ["give", "rabbit"]
    return h


@pytest.mark.parametrize("answer", ["give", "timeout"])
def test_the_eighth_set_handed_over_after_the_rabbit_question_ends_the_hand(answer):
    h = six_with_the_row_empty()
    act(h, 1, type=answer)
    assert h.finished and h.turn is None and h.answering is None and "WR" in h.hands[1]
    assert h.laid[3] == ["D", "H"] and h.played == []
    assert h.outcome().points == [10, 5, 5, 10, 5, 5] and h.outcome().mover == 3


def test_after_a_rabbit_refusal_every_seat_that_can_do_nothing_is_skipped_in_turn():
    h = six_with_the_row_empty()
    act(h, 1, type="rabbit")
    assert h.played == ["WR"] and "WR" not in h.hands[1] and "H3" in h.hands[1] and h.answering is None
    # From the asker's left: seat 4 (no cards), 5 and 0 (only a Cheshire Cat) are skipped.
    assert h.turn == 1
    assert tail(h, 4) == [{"type": "skipped", "seat": 4}, {"type": "skipped", "seat": 5},
                          {"type": "skipped", "seat": 0}, {"type": "turn", "seat": 1}]
    for card in ("H4", "H1", "H2", "H5"):
        ask(h, 1, 3, card)
    assert h.finished and h.laid[1] == ["B", "H"]
    assert h.outcome().points == [10, 10, 5, 5, 5, 5] and h.outcome().mover == 1  # tied with seat 0, laid last


# ---------------------------------------------------------------- the mover
def test_a_tie_goes_to_the_tied_player_who_laid_last_not_to_a_later_one_with_fewer_sets():
    hands = [["A1", "A2", "A3", "A4", "A5", "B1", "B2"], ["D1", "D2", "D3", "D4", "D5", "E1", "E2"],
             ["B3", "E3", "F1", "F2", "F3", "F4", "G1"], ["B4", "E4", "G2", "G3", "G4", "H1", "H2"]]
    row = ["B5", "E5", "F5", "H3", "H4", "H5", "C1"]
    stock = ["C2", "C3", "C4", "C5", "G5", "WR", "WR", "CC", "CC"]
    h = AliceHand.from_deck(4, pack(hands, row, stock, 3), 3)
    assert h.laid == [["A"], ["D"], [], []] and h.turn == 0  # both laid at the deal
    ask(h, 0, 2, "B3")
    ask(h, 0, 3, "B4")
    take(h, 0, "B5")
    ask(h, 1, 2, "E3")
    ask(h, 1, 3, "E4")
    take(h, 1, "E5")
    take(h, 2, "F5")  # seat 2 lays the latest set, but has only one
    assert h.row == ["C2", "C3", "C4", "H3", "H4", "H5", "C1"] and h.turn == 3
    h.stop()
    o = h.outcome()
    assert o.points == [10, 10, 5, 0] and o.mover == 1 and o.winner == 1


# ---------------------------------------------------------------- asking
def test_an_asker_whose_success_leaves_it_no_set_card_may_still_take_from_the_row_and_only_that():
    h = deal(3, [["A1", "A2", "A3", "A4", "WR", "WR", "CC"], ["A5", "B2", "B3", "C2", "D2", "E2", "F2"],
                 ["B4", "C3", "D3", "E3", "F3", "G1", "CC"]], row=["G2", "G3", "G4", "G5", "H1", "H2", "H3"], dealer=2)
    ask(h, 0, 1, "A5")
    assert h.laid[0] == ["A"] and sorted(h.hands[0]) == ["CC", "WR", "WR"]
    assert h.turn == 0 and h.may(0) == ["take"]
    refused(h, 0, {"type": "ask", "to": 2, "card": "B5"})
    take(h, 0, "H1")
    assert h.turn == 1


def test_at_two_players_a_rabbit_refusal_gives_the_turn_to_the_refuser_and_a_failed_ask_to_the_other():
    h = deal(2, [["A1", "A2", "B1", "C1", "D1", "E1", "F1"], ["A3", "B2", "WR", "C2", "D2", "E2", "F2"]], dealer=1)
    assert h.turn == 0
    ask(h, 0, 1, "A3")
    assert h.answering == 1 and h.turn == 0
    act(h, 1, type="rabbit")
    assert h.turn == 1 and "A3" in h.hands[1] and h.played == ["WR"]
    refused(h, 1, {"type": "take", "card": "WR"}, "A White Rabbit is not in the row.")  # out of play
    ask(h, 1, 0, "B1")  # no Rabbit left at the table's hands: handed over at once
    assert "B1" in h.hands[1] and h.turn == 1
    ask(h, 1, 0, "A4")  # not held, and no Cat: the turn passes at once
    assert h.turn == 0 and h.answering is None


@pytest.mark.parametrize("call", [
    lambda: AliceHand.new(4, random.Random(1), dealer=4),
    lambda: AliceHand.from_deck(6, list(PACK), 6),
    lambda: AliceHand.from_deck(2, list(PACK) + ["WR"]),
    lambda: ALICE.entry_spec(7),
    lambda: ALICE.entry_spec(1),
    lambda: ALICE.outcome_from_summary(7, {"dealer": 0, "holdings": [{"sets": 1}] * 7}),
])
def test_a_dealer_or_a_table_size_that_cannot_be_is_a_value_error(call):
    with pytest.raises(ValueError):
        call()


# ---------------------------------------------------------------- a hand entered from cards
def entry(dealer, sets, last_set=None, **more):
    return {"dealer": dealer, "last_set": last_set, "holdings": [{"sets": k} for k in sets], **more}


def test_all_eight_sets_entered_with_the_bell_said_to_have_stopped_the_hand_are_refused():
    with pytest.raises(ValueError) as err:
        ALICE.outcome_from_summary(3, entry(0, (4, 3, 1), stopped=True))
    assert str(err.value) == ("All 8 sets entered, so the hand was played out, not stopped by the bell: "
                              "answer \"Yes: all 8 sets were laid\", or count the sets again.")
    assert ALICE.outcome_from_summary(3, entry(0, (4, 3, 1), stopped=False)).points == [20, 15, 5]
    assert ALICE.outcome_from_summary(3, entry(0, (4, 3, 1))).mover == 0


@pytest.mark.parametrize("players,sets,last,points,mover", [
    (2, (8, 0), None, [40, 0], 0),
    (2, (4, 4), 0, [20, 20], 0),
    (6, (2, 2, 1, 1, 1, 1), 1, [10, 10, 5, 5, 5, 5], 1),
    (6, (0, 0, 0, 0, 0, 8), None, [0, 0, 0, 0, 0, 40], 5),
])
def test_an_entry_at_two_to_six_players_scores_five_a_set_and_names_the_mover(players, sets, last, points, mover):
    o = ALICE.outcome_from_summary(players, entry(players - 1, sets, last, stopped=False))
    assert (o.points, o.mover, o.winner) == (points, mover, mover)


@pytest.mark.parametrize("value", [True, "3", 2.0, None])
def test_a_number_of_sets_that_is_not_a_whole_number_is_refused(value):
    with pytest.raises(ValueError, match="Seat 1: the sets laid must be a whole number from 0 to 8"):
        ALICE.outcome_from_summary(3, {"dealer": 0, "holdings": [{"sets": 1}, {"sets": value}, {"sets": 1}]})


# ---------------------------------------------------------------- the drive: service and pages
def plain(text):
    return text.replace("\u2068", "").replace("\u2069", "")


@pytest.mark.django_db
def test_the_drive_refuses_impossible_totals_naming_the_players_and_saves_nothing(organiser, organiser_client):
    drive = seated_drive(organiser, 4, game="alice")
    table = drive.hands.get().tables.get()
    names = [s.player.name for s in table.seats.select_related("player").order_by("position")]
    cases = [
        (entry(3, (5, 4, 0, 0)), f"9 sets entered ({names[0]} 5 and {names[1]} 4), but the pack holds only 8."),
        (entry(3, (3, 3, 1, 1), stopped=True),
         f"{names[0]} and {names[1]} tie on 3 sets each: say which of them laid a set last."),
        (entry(3, (3, 2, 1, 1), stopped=False), "7 sets entered in all, but a hand played out ends when all 8 are "
                                                 "laid: count the sets again, or say the bell stopped the hand."),
        (entry(3, (3, 2, 2, 1), stopped=True), "All 8 sets entered, so the hand was played out, not stopped by the "
                                                "bell: answer \"Yes: all 8 sets were laid\", or count the sets again."),
    ]
    for summary, words in cases:
        with pytest.raises(services.ImpossibleAnswers) as err:
            services.organiser_result(drive, table, summary, organiser)
        assert plain(str(err.value)) == words
    assert not Result.objects.filter(table=table).exists()
    # The organiser's result form says it too, and keeps nothing.
    url = f"/drives/{drive.pk}/results/{table.pk}"
    data = {"dealer": "3", "last_set": "none", "stopped": "True", "seen_revision": "0",
            **{f"seat{i}_sets": str(k) for i, k in enumerate((3, 2, 2, 1))}}
    page = organiser_client.post(url, data)
    assert page.status_code == 200
    assert "All 8 sets entered, so the hand was played out" in html.unescape(plain(page.content.decode()))
    assert not Result.objects.filter(table=table).exists()
    response = organiser_client.post(url, {**data, "stopped": "False"})
    assert response.status_code == 302
    result = Result.objects.get(table=table)
    assert sorted(s.points for s in result.scores.all()) == [5, 10, 10, 15] and result.mover.name == names[0]
