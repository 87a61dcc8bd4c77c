"""Film Fantasy: rules cases played through the public API, each exact, beside the examples of
test_film_fantasy_rules.py and test_film_fantasy_scoring.py: whole passing cycles at every table
size from a known shuffle, declaring at each moment of a hand and what it voids, the auction's
offers in both directions at once, a table of holdings scored with and without a declaration,
the mover's ties from every dealer, and the entry of a hand played with cards, at the game,
through the drive's service, on a phone and on the organiser's preview (docs/rules.md, "Film
Fantasy")."""

import random
from collections import Counter

import pytest

from drive import services
from games.base import GameError
from games.film_fantasy import (FILM_FANTASY, FilmFantasyHand, cards_in_play, declaration, deck, end_hand_size,
                                packs_for, score_hand)
from tests.drive.phones_support import entry_data, phone_for, seat_players, text
from tests.factories import seated_drive

from .conftest import make_hand

IF4 = ["11-1", "11-2", "11-3", "11-4"]
PACK = [f"{f}-{n}" for f in range(1, 12) for n in range(1, 5)] + ["J"]
SIZES = {2: (1, 4, 29), 3: (1, 3, 33), 4: (1, 0, 45), 5: (1, 0, 45), 6: (2, 6, 66),
         7: (2, 0, 90), 8: (2, 0, 90), 9: (2, 0, 90), 10: (2, 0, 90)}


def s(film, copies=1):
    return [f"{film}-{n}" for n in range(1, 5)] * copies


def refused(h, seat, action, message):
    before = h.to_json()
    with pytest.raises(GameError, match=message):
        h.apply(seat, action)
    assert h.to_json() == before


def pass_all(h, choose=lambda hand: hand[0]):
    for seat in range(h.players):
        h.apply(seat, {"type": "pass", "card": choose(h.hands[seat])})


# ---------------------------------------------------------------- the pack and the passing cycle
@pytest.mark.parametrize("players", range(2, 11))
def test_a_whole_passing_cycle_at_each_table_size_from_a_known_shuffle(players):
    """The deal from the dealer's left, the draws from the dealer's left while the stack covers
    everyone, no pass after the final draw, the odd cards unused; removed sets are whole regular
    sets, never Ice Follies or a Joker."""
    packs, removed, total = SIZES[players]
    assert (packs_for(players), cards_in_play(players)) == (packs, total)
    dealer = players - 1
    cards = deck(players, random.Random(31))  # the shuffle FilmFantasyHand.new makes with a given dealer
    h = FilmFantasyHand.new(players, random.Random(31), dealer=dealer)
    counts = Counter(cards)
    assert len(cards) == total and len(h.removed) == removed
    assert all(counts[c] == packs for c in IF4 + ["J"])
    assert sum(packs - counts[f"{f}-1"] for f in range(1, 11)) == removed
    assert all(len({counts[c] for c in s(f)}) == 1 for f in range(1, 11))
    order = [(dealer + k) % players for k in range(1, players + 1)]  # from the dealer's left
    for k, seat in enumerate(order):  # one card at a time, round the table, four times
        assert h.hands[seat] == [cards[-1 - k - players * r] for r in range(4)]
    stack = cards[: -4 * players]
    rounds = 0
    while h.phase == "passing":
        passed = [h.hands[seat][0] for seat in range(players)]
        before = [list(x) for x in h.hands]
        pass_all(h)
        rounds += 1
        for seat in range(players):  # the pass from the right, then the card drawn in turn
            drawn = stack[-1 - order.index(seat)]
            assert Counter(h.hands[seat]) == (Counter(before[seat]) - Counter([passed[seat]])
                                              + Counter([passed[seat - 1], drawn]))
        stack = stack[:-players]
    assert rounds == (total - 4 * players) // players
    assert [len(x) for x in h.hands] == [end_hand_size(players)] * players == [4 + rounds] * players
    assert h.view(0)["odd_cards"] == total % players and sorted(h.odd) == sorted(stack)
    assert len(stack) < players and Counter(h.odd) + sum(map(Counter, h.hands), Counter()) == counts
    refused(h, 0, {"type": "pass", "card": h.hands[0][0]}, "Passing is over: the auction is open.")


@pytest.mark.parametrize("players", [6, 8, 10])
def test_with_two_packs_the_first_joker_dealt_face_up_chooses_the_dealer(players):
    for seed in range(25):
        h = FilmFantasyHand.new(players, random.Random(seed))
        assert h.dealer_draw.count("J") == 1 and h.dealer_draw[-1] == "J"
        assert h.dealer == (len(h.dealer_draw) - 1) % players
        assert h.view(None)["dealer_drawn"] == len(h.dealer_draw)


def test_the_draws_stop_when_the_stack_no_longer_covers_everyone():
    three = [["1-1", "2-1", "3-1", "4-1"], ["5-1", "6-1", "7-1", "8-1"], ["9-1", "10-1", "1-2", "2-2"]]
    h = make_hand(three, stack=["6-4", "3-2", "4-2", "5-2", "6-2", "7-2"], dealer=2)
    pass_all(h)
    assert h.phase == "passing" and h.stack == ["6-4", "3-2", "4-2"]  # three left: one more round
    assert "7-2" in h.hands[0] and "6-2" in h.hands[1] and "5-2" in h.hands[2]
    pass_all(h)
    assert h.phase == "auction" and h.odd == [] and [len(x) for x in h.hands] == [6, 6, 6]
    h = make_hand(three, stack=["6-4", "3-2", "4-2", "5-2", "6-2"], dealer=2)
    pass_all(h)
    assert h.phase == "auction" and sorted(h.odd) == ["3-2", "6-4"] and h.stack == []


# ---------------------------------------------------------------- declaring, and what it voids
def test_a_declaration_straight_after_the_deal_ends_the_hand_before_any_pass():
    h = make_hand([s(1) + s(2), ["3-1", "3-2", "3-3", "4-1"]], stack=["5-1", "5-2", "5-3"])
    h.apply(0, {"type": "declare"})
    assert (h.phase, h.ended_by, h.points, h.stack) == ("finished", "declared_passing", [15, 0], ["5-1", "5-2", "5-3"])
    for seat, action in [(1, {"type": "pass", "card": "4-1"}), (1, {"type": "declare"}),
                         (1, {"type": "offer", "to": 0, "cards": ["4-1"]})]:
        refused(h, seat, action, "The hand is over.")
    with pytest.raises(GameError, match="The hand is over."):
        h.stop()


def test_a_declaration_after_a_draw_voids_the_pass_already_chosen_and_draws_nothing():
    """The draw completes the second seat's sets; the first has chosen its next pass: nothing
    moves, and no card is drawn."""
    h = make_hand([["1-1", "2-1", "3-1", "4-1"], s(5) + ["6-1", "6-2", "6-3", "7-2"]],
                  stack=["3-2", "3-3", "6-4", "7-1"], dealer=1)
    h.apply(0, {"type": "pass", "card": "1-1"})
    h.apply(1, {"type": "pass", "card": "7-2"})  # then seat 0 (the dealer's left) draws 7-1, seat 1 6-4
    assert h.phase == "passing" and sorted(h.hands[1]) == sorted(s(5) + s(6) + ["1-1"])
    h.apply(0, {"type": "pass", "card": "2-1"})
    h.apply(1, {"type": "declare"})
    assert (h.ended_by, h.points, h.stack) == ("declared_passing", [0, 15], ["3-2", "3-3"])
    assert sorted(h.hands[0]) == ["2-1", "3-1", "4-1", "7-1", "7-2"]
    assert h.view(0)["my_pass"] is None and h.view(0)["pass_pending"] == []


def test_declaring_in_the_auction_voids_the_offers_made_to_and_by_the_declarer():
    h = make_hand([s(1) + s(2) + ["3-1"], ["4-1", "4-2"], ["5-1", "5-2"]], phase="auction")
    h.apply(0, {"type": "offer", "to": 1, "cards": ["3-1", "1-1"]})
    h.apply(2, {"type": "offer", "to": 0, "cards": ["5-1"]})
    h.apply(1, {"type": "offer", "to": 2, "cards": ["4-1"]})
    h.apply(0, {"type": "declare"})
    assert h.offers == {} and h.log[-1] == {"type": "offers_void", "count": 3}
    assert sorted(h.hands[0]) == sorted(s(1) + s(2) + ["3-1"]) and h.hands[1] == ["4-1", "4-2"]
    assert h.points == [15, 0, 0] and h.view(0)["declaration"] == s(1) + s(2)
    refused(h, 1, {"type": "accept", "offer": 1, "cards": ["4-1", "4-2"]}, "The hand is over.")


@pytest.mark.parametrize("hand,declared", [
    (s(3) + s(7), s(3) + s(7)),
    (s(4, 2), sorted(s(4, 2))),                                           # one film twice, two packs
    (IF4 + ["J"] + s(2) + s(5), s(2) + IF4 + ["J"]),                      # nine cards before eight
    (IF4 * 2 + ["J", "J"], sorted(IF4 * 2) + ["J"]),                      # both Ice Follies fours, one Joker
    (s(6) + ["11-1", "11-2", "11-3", "J"], None),                         # the Joker replaces no card
    (s(6) + ["6-1", "6-2", "6-3", "J", "J"], None),
    (["3-1", "3-1", "3-2", "3-2", "3-3", "3-3", "3-4"], None),            # seven cards of one film: one set
    (s(1) + ["2-1", "2-2", "2-3", "2-3"], None),
])
def test_what_is_a_declaration(hand, declared):
    assert declaration(hand) == declared
    h = make_hand([hand] + [[]] * 5, phase="auction")
    if declared is None:
        refused(h, 0, {"type": "declare"}, "You hold no declaration")
    else:
        h.apply(0, {"type": "declare"})
        assert h.view(0)["declaration"] == declared
        assert h.outcome().details == {"nine_card": len(declared) == 9}


# ---------------------------------------------------------------- the auction
def test_offers_both_ways_between_two_players_at_once_each_stand_on_their_own():
    h = make_hand([["1-1", "1-2", "1-3", "2-1"], ["4-1", "4-2", "4-3", "5-1"], ["7-1", "7-2"]], phase="auction")
    h.apply(0, {"type": "offer", "to": 1, "cards": ["1-1", "2-1"]})
    h.apply(1, {"type": "offer", "to": 0, "cards": ["4-1", "4-2", "4-3"]})
    h.apply(2, {"type": "offer", "to": 1, "cards": ["7-1"]})
    assert [e["count"] for e in h.log if e["type"] == "offer"] == [2, 3, 1]
    assert all("cards" not in e for e in h.log) and "4-1" not in repr(h.view(0)) + repr(h.view(2))
    assert h.view(1)["offers"][0] == {"id": 1, "from": 0, "to": 1, "count": 2}
    # Seat 1's three cards are held for its own offer: it answers seat 0's with others, or none.
    refused(h, 1, {"type": "accept", "offer": 1, "cards": ["4-1", "5-1"]}, "in an offer of yours still open")
    refused(h, 1, {"type": "accept", "offer": 1, "cards": ["5-1"]}, "exactly 2 cards, not 1")
    refused(h, 1, {"type": "accept", "offer": 3, "cards": ["5-1", "4-1"]}, "exactly 1 card, not 2")
    h.apply(1, {"type": "accept", "offer": 3, "cards": ["5-1"]})
    assert sorted(h.hands[1]) == ["4-1", "4-2", "4-3", "7-1"] and sorted(h.hands[2]) == ["5-1", "7-2"]
    assert sorted(h.offers) == [1, 2]  # the others stand
    # Seat 0's two cards are held for its offer to seat 1: three free cards it has not.
    refused(h, 0, {"type": "accept", "offer": 2, "cards": ["1-2", "1-3", "2-1"]}, "in an offer of yours still open")
    h.apply(1, {"type": "decline", "offer": 1})
    h.apply(0, {"type": "accept", "offer": 2, "cards": ["1-1", "1-2", "2-1"]})
    assert sorted(h.hands[0]) == ["1-3", "4-1", "4-2", "4-3"] and sorted(h.hands[1]) == ["1-1", "1-2", "2-1", "7-1"]
    assert h.offers == {} and [e["type"] for e in h.log[-2:]] == ["declined", "exchange"]


def test_a_refused_offer_names_what_is_wrong_and_changes_nothing():
    h = make_hand([["1-1", "1-2", "1-3", "1-4"], ["4-1"], ["7-1"]], phase="auction")
    refused(h, 0, {"type": "offer", "to": 0, "cards": ["1-1"]}, "An offer goes to another seat")
    refused(h, 0, {"type": "offer", "to": 3, "cards": ["1-1"]}, "An offer goes to another seat")
    refused(h, 0, {"type": "offer", "to": 1, "cards": ["1-1", "1-2", "1-3", "1-4"]}, "1 to 3 cards")
    refused(h, 0, {"type": "offer", "to": 1, "cards": ["4-1"]}, "You do not hold Good-Bye Mr. Chips 1.")
    refused(h, 1, {"type": "decline", "offer": 1}, "There is no pending offer 1")
    h = make_hand([["1-1"], ["4-1"]], stack=["5-1"])
    refused(h, 0, {"type": "offer", "to": 1, "cards": ["1-1"]}, "Offers are made only once the auction is open.")


def test_with_two_packs_a_second_copy_is_free_while_the_first_is_in_an_offer():
    h = make_hand([["3-1", "3-1", "3-2"], ["4-1", "4-2"], ["5-1"]] + [[]] * 3, phase="auction")
    h.apply(0, {"type": "offer", "to": 1, "cards": ["3-1"]})
    h.apply(0, {"type": "offer", "to": 2, "cards": ["3-1"]})
    refused(h, 0, {"type": "offer", "to": 1, "cards": ["3-1"]}, "^Serenade 1 is in an offer of yours still open")
    h.apply(1, {"type": "accept", "offer": 1, "cards": ["4-2"]})
    h.apply(2, {"type": "accept", "offer": 2, "cards": ["5-1"]})
    assert sorted(h.hands[0]) == ["3-2", "4-2", "5-1"] and h.hands[1] == ["4-1", "3-1"] and h.hands[2] == ["3-1"]


# ---------------------------------------------------------------- scoring every holding
NON_DECLARER = [  # (holding, points) at a table of six (two packs)
    ([], 0), (["11-1", "11-2", "11-3"], 0), (IF4, 5), (IF4 + ["J"], 10), (["11-1", "11-2", "11-4", "J"], 5),
    (["J"], -5), (["J", "11-1", "11-2"], -5), (["J", "J"], -10), (IF4 * 2, 10), (IF4 * 2 + ["J"], 15),
    (IF4 * 2 + ["J", "J"], 20), (IF4 + ["J", "J"], 5), (["11-1", "11-1", "11-2", "11-2", "11-3", "11-4", "J", "J"], 10),
    (s(3, 2), 10), (s(3) + ["3-1", "3-2", "3-3"], 5), (s(3) + s(4) + ["J"], 5),
    (s(3) + s(4) + ["11-1", "11-2", "11-3", "J"], 15),
]


@pytest.mark.parametrize("holding,points", NON_DECLARER)
def test_every_holding_of_a_player_who_did_not_declare(holding, points):
    assert score_hand([holding] + [[]] * 5, None)[0] == points
    h = make_hand([holding, s(1) + s(2)] + [[]] * 4, phase="auction")
    h.apply(1, {"type": "declare"})
    assert h.points[:2] == [points, 15]
    h = make_hand([holding] + [[]] * 5, phase="auction")
    h.stop()
    assert h.points[0] == points and h.outcome().winner is None


DECLARER = [  # (holding, points with the house rule on, and off)
    (s(1) + s(2) + ["J"], 10, 15),
    (s(1) + s(2) + ["J", "11-1", "11-2", "11-4"], 15, 15),   # the Joker stands with three different outside
    (s(1) + s(2) + ["J", "11-1", "11-2", "11-2"], 10, 15),   # three, not all different
    (s(1) + s(2) + s(3) + IF4, 15, 15),                      # only the declaration scores
    (s(1) + IF4 + ["J"], 25, 25),
    (s(1) + s(2) + IF4 + ["J"], 25, 25),                     # nine cards laid, not eight
    (s(1) + IF4 + ["J", "J"], 20, 25),                       # two packs: the other Joker alone
    (s(1) + IF4 + ["J", "J", "11-1", "11-2", "11-3"], 25, 25),
    (s(1) + s(2) + ["J", "J"], 5, 15),
    (s(1) + s(2) + ["J", "J", "11-1", "11-2", "11-3"], 10, 15),
]


@pytest.mark.parametrize("holding,on,off", DECLARER)
def test_every_holding_of_the_declarer_with_the_house_rule_on_and_off(holding, on, off):
    for penalty, points in ((True, on), (False, off)):
        assert score_hand([holding] + [[]] * 5, 0, declarer_joker_penalty=penalty)[0] == points
        h = make_hand([holding, ["3-1"]] + [[]] * 4, phase="auction", penalty=penalty)
        h.apply(0, {"type": "declare"})
        assert h.points[:2] == [points, 0] and h.outcome().mover == 0


# ---------------------------------------------------------------- a hand ended without a declaration
def test_a_hand_stopped_while_passing_scores_everyone_and_moves_nothing_more():
    h = make_hand([s(1) + ["J"], IF4, ["2-1", "2-2"]], stack=["5-1", "5-2", "5-3"], dealer=2)
    h.apply(0, {"type": "pass", "card": "J"})
    h.stop()
    assert h.hands[0] == s(1) + ["J"] and h.stack == ["5-1", "5-2", "5-3"]
    assert (h.points, h.ended_by, h.outcome().mover, h.outcome().winner) == ([0, 5, 0], "stopped", 1, None)


@pytest.mark.parametrize("dealer,mover", [(0, 2), (1, 2), (2, 3), (3, 0)])
def test_the_mover_of_a_hand_nobody_declared_is_the_first_top_scorer_from_the_dealers_left(dealer, mover):
    h = make_hand([s(1), ["2-1"], s(3), s(4)], phase="auction", dealer=dealer)
    h.stop()
    assert h.points == [5, 0, 5, 5] and h.outcome().mover == mover


@pytest.mark.parametrize("dealer", range(6))
def test_a_table_where_everybody_scores_nothing_or_less_moves_the_dealers_left(dealer):
    h = make_hand([["J"], ["2-1"], [], ["J"], [], []], phase="auction", dealer=dealer)
    h.stop()
    best = [s for s in range(6) if h.points[s] == 0]
    assert h.points == [-5, 0, 0, -5, 0, 0]
    assert h.outcome().mover == next((dealer + k) % 6 for k in range(1, 7) if (dealer + k) % 6 in best)


# ---------------------------------------------------------------- a hand played with cards
def summary(players, declarer=None, nine=False, dealer=0, **seats):
    holdings = [{"sets": 0, "ice": "none"} for _ in range(players)]
    for key, value in seats.items():
        holdings[int(key[1:])] = value
    return {"declarer": declarer, "nine_card": nine, "dealer": dealer, "holdings": holdings}


@pytest.mark.parametrize("hands,declarer,dealer", [
    ([s(1) + s(2) + ["J", "11-1"], IF4[1:], s(3) + ["4-1"]], 0, 0),
    ([s(1) + IF4 + ["J"], s(3), ["J"], [], ["4-1"], []], 0, 2),
    ([s(1) + s(2) + ["J", "J"], IF4 * 2, [], [], [], []], 0, 5),
    ([["J"], s(1), ["2-1"], s(3)], None, 0),
    ([["J"], s(1), ["2-1"], s(3)], None, 2),
])
def test_a_hand_entered_as_it_was_played_scores_and_moves_as_the_phones_would(hands, declarer, dealer):
    h = make_hand(hands, phase="auction", dealer=dealer)
    h.apply(declarer, {"type": "declare"}) if declarer is not None else h.stop()
    entered = FILM_FANTASY.outcome_from_summary(len(hands), FILM_FANTASY.hand_summary(h))
    played = h.outcome()
    assert (entered.points, entered.mover, entered.winner, entered.details) == (
        played.points, played.mover, played.winner, played.details)


@pytest.mark.parametrize("players,entry,points", [
    # Seven players, three sets each beside the declaration: it holds the Ice Follies four.
    (7, summary(7, 0, s0={"sets": 1}, **{f"s{i}": {"sets": 3} for i in range(1, 7)}), [15] * 7),
    (10, summary(10, 0, s0={"sets": 0, "ice": "joker"}, s1={"sets": 2, "ice": "none"}), [10, 10] + [0] * 8),
    (2, summary(2, 1, True, s0={"sets": 3}, s1={"sets": 1}), [15, 25]),
    (9, summary(9, None, s0={"sets": 0, "ice": "five", "ice2": "joker_three"}), [15] + [0] * 8),
])
def test_entries_at_the_edge_of_what_a_table_holds_are_accepted(players, entry, points):
    assert FILM_FANTASY.outcome_from_summary(players, entry).points == points


@pytest.mark.parametrize("players,entry,message", [
    (7, summary(7, **{f"s{i}": {"sets": 3} for i in range(7)}),
     "21 regular sets entered, but only 20 regular sets are in play at 7 players."),
    (2, summary(2, 0, True, s1={"ice": "joker"}), "2 Jokers entered (Seat 1 plus the nine-card declaration); one pack"),
    (3, summary(3, s1={"ice": "joker_three"}, s2={"ice": "four"}), "need 7 Ice Follies cards"),
    (10, summary(10, s0={"sets": 2, "ice": "four"}), "Seat 0: what was entered needs 12 cards, but at 10 players a "
                                                     "hand ends with 9."),
    (10, summary(10, 0, True, s0={"ice": "joker"}), "the declaration is 9 of the 9 cards a hand ends with at 10 "
                                                    "players, which leaves 0 beside it"),
    (8, summary(8, 0, True, s1={"ice": "five"}, s2={"ice": "joker"}), "3 Jokers entered"),
    (9, summary(9, s0={"ice": "five", "ice2": "four"}, s1={"ice": "four"}), "need 12 Ice Follies cards"),
    (2, summary(2, 0, False, s0={"ice": "five"}), "declared eight cards but also shows an Ice Follies four with a Joker"),
    (6, summary(6, s0={"ice": "four", "ice2": "joker"}),
     'Seat 0: a Joker beside an Ice Follies four is a set of five: choose "The four with the Joker (+10)" in place '
     "of the two groups."),
])
def test_impossible_entries_at_each_table_size_are_refused_saying_why(players, entry, message):
    with pytest.raises(GameError) as exc:
        FILM_FANTASY.outcome_from_summary(players, entry)
    assert message in str(exc.value)
    assert "'" not in str(exc.value).replace("'s", "")  # no field names or codes


@pytest.mark.django_db
def test_the_drives_service_names_the_players_in_a_refusal(organiser):
    drive = seated_drive(organiser, 6, preferred_table_size=6, start=False)
    names = ["Ann", "Bob", "Cy", "Di", "Ed", "Flo"]
    with pytest.raises(services.ImpossibleAnswers) as exc:
        services.outcome_for(drive, 6, summary(6, 0, s0={"sets": 1}), names)
    assert str(exc.value).startswith("\u2068Ann\u2069 declared: the declaration is 8 of the 11 cards")
    with pytest.raises(services.ImpossibleAnswers) as exc:
        services.outcome_for(drive, 6, summary(6, 0, True, s2={"ice": "five"}, s4={"ice": "joker"}), names)
    assert str(exc.value).startswith("3 Jokers entered (\u2068Cy\u2069 and \u2068Ed\u2069 plus the nine-card")
    assert services.outcome_for(drive, 6, summary(6, None, dealer=5, s1={"sets": 1}, s3={"sets": 1}), names).mover == 1


@pytest.mark.django_db
def test_a_phone_and_the_organiser_are_told_in_plain_words_and_nothing_is_recorded(organiser, organiser_client):
    from scoring.models import Result

    drive = seated_drive(organiser, 6, preferred_table_size=6)
    table = drive.hands.get().tables.get()
    players = seat_players(table)
    data = {**entry_data(6, 1, by=players[0]), "seat0_ice": "four", "seat0_ice2": "joker"}
    for i in range(1, 6):
        data[f"seat{i}_ice2"] = "none"
    said = text(phone_for(drive, players[0]).post(f"/{drive.join_code}/enter", data))
    assert f'<bdi>{players[0].name}</bdi>: a Joker beside an Ice Follies four is a set of five: choose "The four with the ' \
           'Joker (+10)" in place of the two groups.' in said
    answer = organiser_client.post(f"/drives/{drive.pk}/results/{table.pk}/preview", data).json()
    assert answer["ok"] is False and "choose \"The four with the Joker (+10)\"" in answer["message"]
    data.update(seat0_ice="five", seat0_ice2="none", seat2_ice="joker", nine_card="True")
    answer = organiser_client.post(f"/drives/{drive.pk}/results/{table.pk}/preview", data).json()
    assert answer == {"ok": False, "message": f"3 Jokers entered (\u2068{players[0].name}\u2069 and \u2068"
                                              f"{players[2].name}\u2069 plus the nine-card declaration); two packs "
                                              "have only 2."}
    assert not Result.objects.exists()
