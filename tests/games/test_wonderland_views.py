"""The Game of Alice in Wonderland: the dealer on the phones, what a seat's view shows, the game
object, the entry of a hand played with cards (docs/rules.md, "The Game of Alice in Wonderland")."""

import json
import random

import pytest

from games.base import GameError
from games.wonderland import PACK, WONDERLAND, Wonderland, WonderlandHand

from .wonderland_support import FOUR, four_hand, play, stacked


# ---------------------------------------------------------------- the dealer, views, entry
def test_on_the_phones_the_drive_draws_the_dealer_seeded_and_logged():
    a = WONDERLAND.new_hand(5, random.Random(42))
    b = WONDERLAND.new_hand(5, random.Random(42))
    assert a == b and a.log[0] == {"type": "dealer", "seat": a.dealer}
    assert a.view(None)["dealer"] == a.dealer and a.turn == (a.dealer + 1) % 5
    assert {WONDERLAND.new_hand(5, random.Random(s)).dealer for s in range(30)} == set(range(5))


def test_a_view_shows_only_the_seats_own_cards_and_its_legal_cards_on_its_turn():
    h = four_hand()
    v = h.view(0)
    assert v["game"] == "wonderland" and v["hand"] == ["S3", "P7", "N1", "N2", "N3", "N4", "N5"]
    assert v["legal"] == v["hand"] and v["counts"] == [7, 7, 7, 7] and v["turn"] == 0
    assert h.view(1)["legal"] == []
    spectator = h.view(None)
    assert "hand" not in spectator and "legal" not in spectator
    del spectator["pool_of_tears"]  # the house rule's card code, not a card dealt
    assert not set(json.dumps(spectator).replace('"', " ").split()) & set(PACK)


def test_game_object_describes_the_game_of_alice_in_wonderland():
    g = WONDERLAND
    assert (g.slug, g.name, g.min_players, g.max_players) == ("wonderland", "The Game of Alice in Wonderland", 2, 6)
    h = g.new_hand(3, random.Random(0))
    assert g.load_hand(json.loads(json.dumps(h.to_json()))) == h
    assert g.bot_action(h, h.turn, random.Random(0))["card"] in h.legal(h.turn)
    # What changes with every card played, whoever played it, is not what a seat's choice rests on.
    assert set(g.chatter_keys) == {"version", "log", "log_from"} and set(g.chatter_keys) <= set(h.view(0))
    with pytest.raises(GameError):
        g.new_hand(7, random.Random(0))


def test_entry_asks_who_dealt_each_players_pairs_and_cards_and_who_took_the_pool_of_tears():
    spec = WONDERLAND.entry_spec(3)
    assert [f["name"] for f in spec["table"]] == ["dealer", "pool_of_tears", "stopped"]
    assert spec["table"][2]["after_seats"] and spec["table"][2]["default"] is False
    assert spec["table"][1]["optional"] and "default" not in spec["table"][0]
    assert [f["name"] for f in spec["seat"]] == ["pairs", "cards"]
    assert [v for v, _ in spec["seat"][1]["choices"]] == list(range(0, 52, 3))  # 51 cards in play at 3


@pytest.mark.parametrize("players, unused", [(2, False), (3, True), (4, False), (5, True), (6, True)])
def test_the_entry_says_the_pool_of_tears_may_be_unused_only_where_cards_stay_unused(players, unused):
    """Found in a browser: at 2 and 4 players every card is dealt, yet "Nobody" said the Pool of
    Tears card might be "unused"."""
    label = WONDERLAND.entry_spec(players)["table"][1]["none_label"]
    assert label == ("Nobody (unused, or the hand was stopped)" if unused else "Nobody (the hand was stopped)")


def test_an_entered_hand_scores_pairs_the_pool_of_tears_and_most_cards():
    o = WONDERLAND.outcome_from_summary(4, {"dealer": 0, "pool_of_tears": 2, "holdings": [
        {"pairs": 2, "cards": 20}, {"pairs": 1, "cards": 8}, {"pairs": 0, "cards": 12}, {"pairs": 1, "cards": 12}]})
    assert o.points == [30, 10, 20, 10] and o.mover == 0
    assert o.details == {"pairs": [2, 1, 0, 1], "cards": [20, 8, 12, 12], "pool_of_tears": 2}
    nobody = WONDERLAND.outcome_from_summary(2, {"dealer": 1, "pool_of_tears": None, "holdings": [
        {"pairs": 1, "cards": 20}, {"pairs": 1, "cards": 20}]})
    assert nobody.points == [10, 10] and nobody.mover == 0  # tie: the dealer's left


@pytest.mark.parametrize("players,summary,message", [
    (4, {"holdings": [{"pairs": 0, "cards": 28}, {"pairs": 0, "cards": 28}, {}, {}]}, "only 52 are played"),
    (3, {"holdings": [{"pairs": 0, "cards": 27}, {"pairs": 0, "cards": 27}, {}]}, "only 51 are played"),
    (4, {"holdings": [{"pairs": 0, "cards": 5}, {}, {}, {}]}, "come in 4s"),
    (4, {"holdings": [{"pairs": 3, "cards": 4}, {}, {}, {}]}, "3 pairs need 6 cards"),
    (2, {"holdings": [{"pairs": 9, "cards": 26}, {"pairs": 8, "cards": 26}]}, "only 16"),
    (4, {"pool_of_tears": 1, "holdings": [{"pairs": 0, "cards": 4}, {}, {}, {}]}, "took no cards"),
    (4, {"holdings": [{}, {}, {}]}, "one entry per seat"),
    (4, {"holdings": [{"pairs": -1}, {}, {}, {}]}, "whole numbers"),
    (4, {"dealer": 4, "holdings": [{}, {}, {}, {}]}, "dealer"),
    (4, {"holdings": [{"pairz": 1}, {}, {}, {}]}, "unknown field"),
    (7, {"holdings": [{}] * 7}, "2 to 6 players"),
    # Found by a rules review: a summary with no dealer was taken, its ties going to seat 0 first.
    (4, {"pool_of_tears": None, "holdings": [{"pairs": 0, "cards": 4}, {"pairs": 0, "cards": 4}, {}, {}]},
     "Say who dealt"),
])
def test_impossible_entries_are_refused_saying_what_is_wrong(players, summary, message):
    with pytest.raises(GameError, match=message):
        WONDERLAND.outcome_from_summary(players, summary)


def test_a_digital_hands_summary_scores_as_the_hand_did():
    h = WONDERLAND.new_hand(5, random.Random(8))
    while not h.finished:
        play(h, h.legal(h.turn)[0])
    summary = WONDERLAND.hand_summary(h)
    assert WONDERLAND.outcome_from_summary(5, summary) == h.outcome()


def test_a_seats_view_on_its_turn_says_which_rule_forbids_its_other_cards():
    h = four_hand()
    assert h.view(0)["must"] is None  # leading: any card
    play(h, "P7")
    assert h.view(1)["must"] == {"rule": "mate", "of": "P7"}  # seat 1 holds S7: only the trick's card named
    assert h.view(2)["must"] is None  # not its turn
    play(h, "S7")
    assert h.view(2)["must"] == {"rule": "follow", "led": "P7"} and h.view(2)["legal"] == ["P1", "P9"]
    assert WonderlandHand.from_deck(4, stacked(4, FOUR, 3), 3).view(None).get("must") is None


# ---------------------------------------------------------------- defects pinned
def test_the_pool_of_tears_question_names_the_card_as_the_drive_form_does():
    """"Who took Alice and the Pool of Tears (S7)?", a card code; and "Alice and the
    Pool of Tears" for a card that is not Alice. The question names
    the card as the drive form's house rule does ("Star picture 7")."""
    rule = Wonderland.house_rules[0]
    for code in ("S7", "P16", "P1"):
        game = WONDERLAND.with_rules({"pool_of_tears": code})
        label = game.entry_spec(4)["table"][1]["label"]
        assert label == f"Who took the Pool of Tears card ({dict(rule.choices)[code]})?"
    assert WONDERLAND.with_rules({"pool_of_tears": "S7"}).entry_spec(4)["table"][1]["label"] == (
        "Who took the Pool of Tears card (Star picture 7)?")


def test_refusals_number_seats_from_one_and_start_with_a_capital():
    """A refusal in lower case. Every refusal met while bots play whole hands, with
    every card from every seat tried at each step, starts with a capital letter; a seat is
    numbered as the players count (from 1), never from 0."""
    h = four_hand()
    with pytest.raises(GameError) as err:
        h.apply(2, {"type": "play", "card": "P9"})
    assert str(err.value) == "It is not your turn: seat 1 plays next."  # seat 0, counted from 1
    seen = set()
    for seed, players in enumerate((2, 3, 4, 5, 6)):
        rng = random.Random(seed)
        h = WONDERLAND.new_hand(players, rng)
        while not h.finished:
            for seat in range(-1, players + 1):
                for card in [*PACK, "X1", 7]:
                    try:
                        WonderlandHand.load(h.to_json()).apply(seat, {"type": "play", "card": card})
                    except GameError as exc:
                        seen.add(str(exc))
            seat = h.turn
            h.apply(seat, WONDERLAND.bot_action(h, seat, rng))
        for action in ({"type": "play", "card": "S1"}, {"type": "stop"}):
            try:
                h.apply(0, action)
            except GameError as exc:
                seen.add(str(exc))
    assert len(seen) > 20
    for message in seen:
        assert message[0].isupper(), message
        assert "seat 0" not in message.lower() and "from 0" not in message, message


def test_a_hand_stopped_before_anyone_scored_has_no_top_scorer_and_no_winner():
    """The organiser's bell before the first trick, every seat on 0, and one of them
    labelled "top scorer" (the screen marks the result's ``mover``). Nobody scored, so nobody won
    and the result names no top scorer; the dealer's left still moves up (the drive's movement)."""
    h = four_hand()  # dealer 3
    h.stop()
    o = h.outcome()
    assert o.points == [0, 0, 0, 0] and o.mover == 0 and o.winner is None
    for seat in (None, 0, 1):
        result = h.view(seat)["result"]
        assert result["mover"] is None and result["winner"] is None
    # A hand where someone scored: its top scorer is named and wins the hand.
    h = four_hand()
    play(h, "P7", "S7", "P9", "P5")
    h.stop()
    o = h.outcome()
    assert o.points == [0, 20, 0, 0] and o.mover == o.winner == 1
    assert h.view(None)["result"]["mover"] == h.view(None)["result"]["winner"] == 1
    assert WONDERLAND.outcome_from_summary(4, WONDERLAND.hand_summary(h)) == o
