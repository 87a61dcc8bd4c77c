"""The rules of docs/rules.md, "Alice", that concern play on the phones and entry with cards: the
dealer drawn by the drive, refusals, versions, views and the log, a stored hand, the game object
and its house rule, a hand entered with cards. The rest: test_alice_rules.py.
"""

import json
import random
import re

import pytest

from games.alice import ALICE, AliceHand, GameError, card_name
from games.alice.hand import STOPPED

from .alice_support import ROW, ROW_F, S1, ask, deal, refused, take, three


# ---------------------------------------------------------------- the dealer and digital play
def test_on_the_phones_the_drive_draws_the_dealer_seeded_and_logged():
    a = ALICE.new_hand(5, random.Random("drive-1-1"))
    b = ALICE.new_hand(5, random.Random("drive-1-1"))
    assert a == b
    assert a.log[0]["type"] == "deal" and a.log[0]["dealer"] == a.dealer
    assert a.view(None)["dealer"] == a.dealer
    assert len({ALICE.new_hand(4, random.Random(k)).dealer for k in range(40)}) == 4


def test_a_refused_action_says_why_and_changes_nothing():
    h = three()
    refused(h, 0, {"type": "ask", "to": 1}, "The action 'ask' is missing 'card' (it takes 'card' and 'to').")
    refused(h, 0, {"type": "pass", "to": 1}, "The action 'pass' takes no 'to'.")
    refused(h, 0, {"type": "take", "card": "ZZ"}, "There is no card 'ZZ' in the row.")
    refused(h, 0, {"type": "take", "card": "Z" * 13}, "There is no such card in the row.")
    refused(h, 0, {"type": "dance"}, "There is no action 'dance' in this game: its actions are ask, cat, give, pass, rabbit, take and timeout.")
    refused(h, 0, "take", "object")
    refused(h, 9, {"type": "take", "card": "G2"}, "not at this table")
    refused(h, 0, {"type": "give"}, "Nobody is waiting")
    refused(h, 0, {"type": "cat"}, "You can play a Cheshire Cat only just after an ask of yours has failed")
    refused(h, 0, {"type": "pass"}, "You can pass only just after an ask of yours has failed")
    assert "x" * 20 not in refused(h, 0, {"type": "take", "card": "x" * 2000})  # never echoed at length
    assert card_name("x" * 2000) == card_name([1]) == "that card"
    for card in (5, None, [1]):  # no code at all: said as such, not "no card that card"
        refused(h, 0, {"type": "ask", "to": 1, "card": card}, "That is not a card of the pack: ask for one of A1 to H5.")
    refused(h, 0, {"type": "ask", "to": 1, "card": "Z9"}, "There is no card 'Z9' in the pack")


def test_refusals_number_seats_as_the_players_do_from_one():
    """"Ask another seat from 0 to 3, not 0.": the engine's seats, counted from 0,
    in a message for a player. Refusals say "you" or number seats from 1, as players count them."""
    h = deal(4, [["A1", "A2", "B1", "C1", "D1", "E1", "F1"], ["A3", "B2", "B3", "C2", "D2", "E2", "WR"],
                 ["A4", "B4", "C3", "D3", "E3", "F3", "G1"], ["A5", "B5", "C4", "D4", "E4", "F4", "F5"]],
             row=ROW, dealer=3)  # seat 0 (the players' seat 1) begins
    assert refused(h, 0, {"type": "ask", "to": 0, "card": "A3"}) == "You cannot ask yourself: ask another player."
    assert "0" not in refused(h, 0, {"type": "ask", "to": 4, "card": "A3"})
    assert refused(h, 2, {"type": "take", "card": "G2"}) == "It is not your turn: seat 1 is to play."
    ask(h, 0, 1, "A3")  # seat 1 holds A3 and a White Rabbit: it chooses
    assert refused(h, 0, {"type": "take", "card": "G2"}) == (
        f"Wait: seat 2 must first answer whether to hand {card_name('A3')} to you.")
    assert refused(h, 2, {"type": "take", "card": "G2"}) == (
        f"Wait: seat 2 must first answer whether to hand {card_name('A3')} to seat 1.")
    assert refused(h, 3, {"type": "give"}) == "Only seat 2 can answer this (give is not yours to choose)."
    assert refused(h, 3, {"type": "timeout"}) == "Only seat 2's time can run out now."


def test_no_refusal_counts_seats_from_zero():
    """Every refusal met while bots play whole hands, with every action from every seat tried
    at each step: none names a seat counted from 0 ("seat 0", "from 0"), each starts with a capital."""
    seen = set()
    for seed in range(6):
        rng = random.Random(seed)
        h = ALICE.new_hand(3 + seed % 3, rng)
        while not h.finished:
            n = h.players
            tries = [{"type": "ask", "to": to, "card": c} for to in range(-1, n + 1) for c in ("A1", "H5")]
            tries += [{"type": t} for t in ("give", "rabbit", "cat", "pass", "timeout")]
            tries += [{"type": "take", "card": "A1"}]
            for seat in range(n):
                for action in tries:
                    try:
                        AliceHand.load(h.to_json()).apply(seat, action)
                    except GameError as err:
                        seen.add(str(err))
            seat = next(s for s in range(n) if ALICE.bot_action(h, s, rng) is not None)
            h.apply(seat, ALICE.bot_action(h, seat, rng))
    assert len(seen) > 5
    for message in seen:
        assert message[0].isupper(), message
        assert not re.search(r"\b[Ss]eats? 0\b|from 0\b", message), message


def test_every_accepted_action_bumps_the_version():
    h = three()
    v = h.version
    take(h, 0, "G2")
    assert h.version == v + 1


def test_a_view_shows_only_the_seats_own_cards_and_the_stock_as_a_count():
    h = three(stock=["WR"])
    v = h.view(1)
    assert v["game"] == "alice" and v["hand"] == sorted(S1)
    assert v["counts"] == [7, 7, 7] and v["stock"] == len(h.stock) and isinstance(v["stock"], int)
    assert v["row"] == ROW and v["turn"] == 0 and v["may"] == []
    assert "hand" not in h.view(None) and "hands" not in v
    assert h.view(0)["may"] == ["take", "ask"]


def test_the_public_log_tells_who_asked_whom_for_what_and_what_followed():
    h = three(s0=["A1", "A2", "B1", "C1", "D1", "E1", "CC"], s1=["A3", "B2", "B3", "C2", "D2", "E2", "WR"])
    ask(h, 0, 2, "A5")
    h.apply(0, {"type": "cat"})
    ask(h, 0, 1, "B2")
    take(h, 0, "G2")
    log = h.view(None)["log"]
    assert {"type": "asked", "seat": 0, "to": 2, "card": "A5"} in log
    assert {"type": "not_held", "seat": 2, "card": "A5"} in log
    assert {"type": "cat", "seat": 0} in log
    assert {"type": "handed", "seat": 1, "to": 0, "card": "B2"} in log
    assert {"type": "took", "seat": 0, "card": "G2", "filled": h.row[0]} in log
    assert log[-1] == {"type": "turn", "seat": 1}


def test_a_finished_view_shows_the_points_and_the_mover():
    h = three(s0=["A1", "A2", "A3", "A4", "A5", "B1", "C1"], s1=["B2", "B3", "C2", "D2", "E2", "F2", "H4"],
              s2=["B4", "C3", "D3", "E3", "F3", "F4", "G1"])
    h.stop()
    v = h.view(2)
    assert v["finished"] and v["points"] == [5, 0, 0] and v["mover"] == 0 and v["ended_by"] == STOPPED


def test_a_stored_hand_loads_back_exactly():
    h = three(s1=["A3", "B2", "B3", "C2", "D2", "E2", "WR"])
    ask(h, 0, 1, "A3")
    data = json.loads(json.dumps(h.to_json()))
    assert data["game"] == "alice"
    again = AliceHand.load(data)
    assert again == h and again.to_json() == h.to_json()
    with pytest.raises(GameError):
        AliceHand.load({**data, "game": "film-fantasy"})
    with pytest.raises(GameError):
        AliceHand.load({**data, "stock": data["stock"] + ["A1"]})


def test_a_stored_hand_with_seats_out_of_place_is_refused_not_played():
    """Found by review: a turn of seat 8 at a table of three loaded, and the table was stuck; no
    turn on a hand not over loaded, and the next action crashed (TypeError); a dealer of infinity
    raised OverflowError, not the game's refusal."""
    h = three(s1=["A3", "B2", "B3", "C2", "D2", "E2", "WR"])
    ask(h, 0, 1, "A3")
    data = json.loads(json.dumps(h.to_json()))
    for bad in ({**data, "turn": 7}, {**data, "turn": None}, {**data, "dealer": float("inf")},
                {**data, "answering": 3}, {**data, "pending": {**data["pending"], "to": -1}},
                {**data, "version": -1}, {**data, "ended_by": "stopped"}):
        with pytest.raises(GameError, match="Not a stored Alice hand"):
            AliceHand.load(bad)


# ---------------------------------------------------------------- a hand played with cards
def entry(dealer=0, sets=(0, 0, 0), last_set=None):
    return {"dealer": dealer, "last_set": last_set, "holdings": [{"sets": k} for k in sets]}


def test_the_game_object_describes_alice_and_its_one_house_rule_is_the_time_to_answer():
    assert (ALICE.slug, ALICE.name, ALICE.min_players, ALICE.max_players) == ("alice", "Alice", 2, 6)
    assert ALICE.with_rules({}) is ALICE
    assert ALICE.rules() == {"answer_seconds": "20"}
    with pytest.raises(GameError, match="Unknown house rule"):
        ALICE.with_rules({"declarer_joker_penalty": True})
    with pytest.raises(GameError, match="one of 10 .*not '15'"):
        ALICE.with_rules({"answer_seconds": "15"})
    h = ALICE.load_hand(ALICE.new_hand(3, random.Random(1)).to_json())
    assert ALICE.bot_action(h, h.turn, random.Random(0)) is not None
    assert h.answer_seconds == 20
    quick = ALICE.with_rules({"answer_seconds": "10"})
    assert ALICE.load_hand(quick.new_hand(3, random.Random(1)).to_json()).answer_seconds == 10


def test_the_server_is_told_which_answer_it_times_and_what_it_sends_when_time_runs_out():
    h = three(s1=["A3", "B2", "B3", "C2", "D2", "E2", "WR"])
    assert ALICE.awaited(h) is None
    ask(h, 0, 1, "A3")
    awaited = ALICE.awaited(h)
    assert (awaited.seat, awaited.seconds, awaited.action) == (1, 20, {"type": "timeout"})
    h.apply(1, {"type": "give"})
    assert ALICE.awaited(h) is None


def test_a_hand_stored_before_the_time_to_answer_was_kept_loads_with_the_default():
    data = ALICE.new_hand(3, random.Random(2)).to_json()
    del data["answer_seconds"]
    assert AliceHand.load(data).answer_seconds == 20
    with pytest.raises(GameError, match="answer time"):
        AliceHand.load({**data, "answer_seconds": -1})


def test_entering_a_hand_played_with_cards_asks_who_dealt_the_sets_each_laid_and_who_laid_last_when_tied():
    spec = ALICE.entry_spec(4)
    assert [f["name"] for f in spec["table"]] == ["dealer", "last_set", "stopped"]
    dealer, last, stopped = spec["table"]
    assert stopped["after_seats"] and stopped["default"] is False
    assert [label for _, label in stopped["choices"]] == ["Yes: all 8 sets were laid", "No: the bell stopped the hand"]
    assert dealer["type"] == "seat" and "default" not in dealer and not dealer.get("optional")
    assert last["type"] == "seat" and last["optional"]
    assert [f["name"] for f in spec["seat"]] == ["sets"]
    assert [c[0] for c in spec["seat"][0]["choices"]] == list(range(9))


def test_an_entered_hand_scores_five_a_set_and_the_most_sets_moves_up():
    o = ALICE.outcome_from_summary(3, entry(0, (3, 1, 4)))
    assert o.points == [15, 5, 20] and o.mover == 2 and o.details == {"sets": [3, 1, 4]}


def test_an_entered_tie_moves_the_tied_player_who_laid_a_set_last_and_no_set_the_dealers_left():
    assert ALICE.outcome_from_summary(3, entry(0, (3, 3, 2), last_set=1)).mover == 1
    assert ALICE.outcome_from_summary(3, entry(1, (0, 0, 0))).mover == 2
    assert ALICE.outcome_from_summary(3, entry(2, (0, 0, 0))).mover == 0


@pytest.mark.parametrize("summary,words", [
    # "Seat 2" (counted from 0) is what the drive turns into the player's name (tests/games/test_alice_drive.py).
    (entry(0, (5, 3, 1)), "9 sets entered (Seat 0 5, Seat 1 3 and Seat 2 1), but the pack holds only 8."),
    (entry(0, (3, 3, 2)), "Seat 0 and Seat 1 tie on 3 sets each: say which of them laid a set last."),
    (entry(0, (1, 1, 0)), "Seat 0 and Seat 1 tie on 1 set each: say which of them laid a set last."),
    (entry(0, (3, 3, 2), last_set=2), "Seat 2 is not one of the players tied on most sets (Seat 0 and Seat 1)"),
    (entry(0, (4, 3, 1), last_set=1), "Seat 0 alone laid the most sets (4), so there is no tie to break"),
    # Naming the one leader too (accepted, and the player checking read of a tie).
    (entry(0, (4, 3, 1), last_set=0), "Seat 0 alone laid the most sets (4), so there is no tie to break"),
    (entry(0, (0, 0, 0), last_set=1), "Nobody laid a set, so there is no tie to break"),
    (entry(3, (1, 0, 0)), "The dealer must be one of the 3 players at this table."),
    ({"holdings": [{"sets": 1}] * 3}, "Say who dealt"),
    (entry(0, (9, 0, 0)), "Seat 0: the sets laid must be a whole number from 0 to 8"),
    (entry(0, (1, -1, 0)), "Seat 1: the sets laid"),
    ({"dealer": 0, "holdings": [{"sets": 1}] * 2}, "one entry per seat: 3"),
    ({"dealer": 0, "holdings": [{"sets": 1, "ice": "five"}] * 3}, "Seat 0: unknown field(s): ice."),
    ({**entry(), "declarer": 1}, "Unknown summary field(s): declarer."),
])
def test_impossible_entries_are_refused_saying_what_is_wrong(summary, words):
    with pytest.raises(GameError) as err:
        ALICE.outcome_from_summary(3, summary)
    assert words in str(err.value)


def test_a_digital_hand_summary_enters_back_to_the_same_result():
    s0 = ["A1", "A2", "A3", "A4", "A5", "C1", "D1"]
    s2 = ["H1", "H2", "H3", "H4", "H5", "E3", "G1"]
    h = three(s0, ["B1", "B2", "B3", "C2", "D2", "E2", "F2"], s2, row=ROW_F, dealer=2)
    h.stop()
    summary = ALICE.hand_summary(h)
    assert summary == {"dealer": 2, "last_set": 2, "stopped": True, "holdings": [{"sets": 1}, {"sets": 0}, {"sets": 1}]}
    o = ALICE.outcome_from_summary(3, summary)
    assert (o.points, o.mover) == (h.outcome().points, h.outcome().mover)


def test_sets_short_of_eight_are_refused_unless_the_bell_stopped_the_hand():
    """A phone sent the form as it opens (every player on 0 sets) and
    a table's 6 sets of 8, each accepted without a word. A hand played with cards ends when the
    eighth set is laid; fewer are a miscount, or the bell stopped it, which the entry asks."""
    played_out = {**entry(0, (0, 0, 0)), "stopped": False}
    with pytest.raises(GameError) as err:
        ALICE.outcome_from_summary(3, played_out)
    assert str(err.value) == ("0 sets entered in all, but a hand played out ends when all 8 are laid: "
                              "count the sets again, or say the bell stopped the hand.")
    with pytest.raises(GameError, match="^6 sets entered in all"):
        ALICE.outcome_from_summary(3, {**entry(0, (3, 2, 1)), "stopped": False})
    # All eight, or fewer when the bell stopped the hand, or a record made before it was asked.
    assert ALICE.outcome_from_summary(3, {**entry(0, (4, 3, 1)), "stopped": False}).mover == 0
    assert ALICE.outcome_from_summary(3, {**entry(0, (3, 2, 1)), "stopped": True}).points == [15, 10, 5]
    assert ALICE.outcome_from_summary(3, entry(0, (3, 2, 1))).points == [15, 10, 5]
    # More than the pack holds stays refused either way; a tie is asked about first.
    with pytest.raises(GameError, match="but the pack holds only 8"):
        ALICE.outcome_from_summary(3, {**entry(0, (5, 3, 1)), "stopped": True})
    with pytest.raises(GameError, match="tie on 3 sets each"):
        ALICE.outcome_from_summary(3, {**entry(0, (3, 3, 0)), "stopped": False})
    with pytest.raises(GameError, match="'stopped' must be true"):
        ALICE.outcome_from_summary(3, {**entry(0, (4, 3, 1)), "stopped": "no"})


def test_a_digital_hand_played_out_is_summarised_as_not_stopped():
    rng = random.Random(11)
    h = ALICE.new_hand(3, rng)
    while not h.finished:
        seat = h.waiting_for() if h.waiting_for() is not None else h.turn
        h.apply(seat, ALICE.bot_action(h, seat, rng))
    summary = ALICE.hand_summary(h)
    assert summary["stopped"] is False and sum(x["sets"] for x in summary["holdings"]) == 8
    assert ALICE.outcome_from_summary(3, summary).points == h.outcome().points
