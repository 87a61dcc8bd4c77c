"""One example test per rule of docs/rules.md (Film Fantasy), named after the rule."""

import random
from collections import Counter

import pytest

from games.base import GameError
from games.film_fantasy import FilmFantasyHand, declaration, deck, film_names, group_by_film
from games.film_fantasy.cards import FILM_CARDS, PACK, card_name, cards_in_play, end_hand_size
from games.film_fantasy.bots import greedy_action as bot_action
from games.film_fantasy.hand import AUCTION, FINISHED, MAX_OFFERS_PER_SEAT, PASSING

from .conftest import make_hand

IF4 = ["11-1", "11-2", "11-3", "11-4"]


def s(film, copies=1):
    return list(FILM_CARDS[film]) * copies


# ---------------------------------------------------------------- the pack
def test_pack_has_eleven_films_of_four_and_one_joker():
    assert len(PACK) == 45
    assert Counter(c.split("-")[0] for c in PACK if c != "J") == {str(f): 4 for f in range(1, 12)}
    assert PACK.count("J") == 1


def test_film_names_are_the_eleven_titles_with_ice_follies_last():
    assert len(film_names) == 11
    assert film_names[0] == "Lucky Night" and film_names[10] == "Ice Follies of 1939"


def test_two_packs_hold_every_code_twice():
    assert Counter(deck(8, random.Random(1))) == {c: 2 for c in PACK}


def test_group_by_film_puts_the_joker_with_ice_follies():
    groups = group_by_film(["J", "11-2", "3-1"])
    assert [(g["film"], g["cards"]) for g in groups] == [(3, ["3-1"]), (11, ["11-2", "J"])]


# ---------------------------------------------------------------- cards in play
def _removed_sets(cards, packs):
    counts = Counter(cards)
    return sum(packs - counts[f"{f}-1"] for f in range(1, 11))


def test_two_players_remove_four_regular_sets():
    cards = deck(2, random.Random(5))
    assert len(cards) == 29 and _removed_sets(cards, 1) == 4


def test_three_players_remove_three_regular_sets():
    cards = deck(3, random.Random(5))
    assert len(cards) == 33 and _removed_sets(cards, 1) == 3


@pytest.mark.parametrize("players", [4, 5])
def test_four_and_five_players_use_one_whole_pack(players):
    assert Counter(deck(players, random.Random(2))) == Counter(PACK)


def test_six_players_two_packs_minus_six_regular_sets():
    cards = deck(6, random.Random(7))
    assert len(cards) == 66 and _removed_sets(cards, 2) == 6
    # The six are drawn from the 20 sets of both packs, so a film may lose both its sets (were
    # they drawn from the ten films, it never could: found by a review of the rules).
    from games.film_fantasy.cards import choose_removed_films

    draws = [choose_removed_films(6, random.Random(seed)) for seed in range(200)]
    assert all(len(films) == 6 and max(Counter(films).values()) <= 2 for films in draws)
    assert any(max(Counter(films).values()) == 2 for films in draws)


@pytest.mark.parametrize("players", [7, 8, 9, 10])
def test_seven_to_ten_players_use_two_whole_packs(players):
    assert len(deck(players, random.Random(3))) == 90


@pytest.mark.parametrize("players", [2, 3, 6])
def test_removed_sets_are_whole_regular_sets_never_ice_follies(players):
    for seed in range(30):
        counts = Counter(deck(players, random.Random(seed)))
        packs = 1 if players < 6 else 2
        assert all(counts[c] == packs for c in IF4 + ["J"])
        for f in range(1, 11):
            assert len({counts[c] for c in FILM_CARDS[f]}) == 1  # a film loses whole sets only


def test_removed_sets_are_random_seeded_and_logged():
    a = FilmFantasyHand.new(2, random.Random(11))
    b = FilmFantasyHand.new(2, random.Random(11))
    assert a.to_json() == b.to_json()
    assert a.log[0] == {"type": "removed_sets", "films": a.removed} and len(a.removed) == 4
    assert len({tuple(FilmFantasyHand.new(2, random.Random(seed)).removed) for seed in range(20)}) > 1


@pytest.mark.parametrize("players", [0, 1, 11, "4", True, None])
def test_table_of_fewer_than_two_or_more_than_ten_refused(players):
    with pytest.raises(GameError, match="2 to 10"):
        deck(players, random.Random(1))
    with pytest.raises(GameError):
        FilmFantasyHand.new(players, random.Random(1))


# ---------------------------------------------------------------- dealer
def test_dealer_is_who_receives_the_first_joker_dealt_face_up():
    for seed in range(20):
        h = FilmFantasyHand.new(5, random.Random(seed))
        draw = h.dealer_draw
        assert draw[-1] == "J" and "J" not in draw[:-1]
        assert h.dealer == (len(draw) - 1) % 5
        assert h.view(3)["dealer_draw"] == draw


def test_home_game_dealer_can_be_given_so_the_deal_passes_left():
    h = FilmFantasyHand.new(4, random.Random(1), dealer=2)
    assert h.dealer == 2 and h.dealer_draw == []


# ---------------------------------------------------------------- deal and passing
def test_deal_gives_four_each_starting_on_dealers_left():
    rng = random.Random(9)
    h = FilmFantasyHand.new(4, rng, dealer=1)
    assert [len(x) for x in h.hands] == [4, 4, 4, 4]
    assert h.phase == PASSING and len(h.stack) == 45 - 16
    # the first card dealt (top of the shuffled deck) went to seat 2, the dealer's left
    rng2 = random.Random(9)
    from games.film_fantasy.cards import build_deck, choose_removed_films

    cards = build_deck(4, choose_removed_films(4, rng2))
    rng2.shuffle(cards)
    assert h.hands[2][0] == cards[-1] and h.hands[3][0] == cards[-2] and h.hands[1][0] == cards[-4]


def test_pass_goes_to_the_left_and_last_seat_passes_to_first():
    h = make_hand([["1-1", "2-1", "3-1", "4-1"], ["5-1", "6-1", "7-1", "8-1"], ["9-1", "10-1", "1-2", "2-2"]],
                  stack=["3-2", "4-2", "5-2", "6-2"], dealer=0)
    h.apply(0, {"type": "pass", "card": "1-1"})
    h.apply(1, {"type": "pass", "card": "5-1"})
    h.apply(2, {"type": "pass", "card": "9-1"})
    assert "1-1" in h.hands[1] and "5-1" in h.hands[2] and "9-1" in h.hands[0]


def test_passes_are_simultaneous_and_a_choice_can_change_until_all_have_chosen():
    h = make_hand([["1-1", "2-1", "3-1", "4-1"], ["5-1", "6-1", "7-1", "8-1"]], stack=["3-2", "4-2", "5-2"])
    h.apply(0, {"type": "pass", "card": "1-1"})
    assert "1-1" in h.hands[0] and h.view(1)["pass_pending"] == [1]
    h.apply(0, {"type": "pass", "card": "2-1"})  # changed mind
    assert [e for e in h.log if e["type"] == "passed"] == [{"type": "passed", "seat": 0, "round": 1}]  # once
    h.apply(1, {"type": "pass", "card": "5-1"})
    assert "2-1" in h.hands[1] and "1-1" in h.hands[0] and "5-1" in h.hands[0]


def test_draw_gives_one_each_from_dealers_left_only_while_stack_covers_everyone():
    h = make_hand([["1-1", "2-1", "3-1", "4-1"], ["5-1", "6-1", "7-1", "8-1"], ["9-1", "10-1", "1-2", "2-2"]],
                  stack=["6-4", "3-2", "4-2", "5-2", "6-2"], dealer=0)
    for seat, card in [(0, "1-1"), (1, "5-1"), (2, "9-1")]:
        h.apply(seat, {"type": "pass", "card": card})
    assert "6-2" in h.hands[1] and "5-2" in h.hands[2] and "4-2" in h.hands[0]
    assert h.phase == AUCTION  # 2 left < 3 players: no further round


def test_odd_cards_stay_unused_face_down():
    h = make_hand([["1-1", "2-1", "3-1", "4-1"], ["5-1", "6-1", "7-1", "8-1"], ["9-1", "10-1", "1-2", "2-2"]],
                  stack=["6-4", "3-2", "4-2", "5-2", "6-2"])
    for seat, card in [(0, "1-1"), (1, "5-1"), (2, "9-1")]:
        h.apply(seat, {"type": "pass", "card": card})
    assert sorted(h.odd) == ["3-2", "6-4"] and h.view(0)["odd_cards"] == 2
    assert "6-4" not in h.view(0)["hand"]


def test_hands_end_the_passing_cycle_with_four_plus_one_per_full_draw():
    assert [end_hand_size(n) for n in range(2, 11)] == [14, 11, 11, 9, 11, 12, 11, 10, 9]
    assert [cards_in_play(n) % n for n in range(2, 11)] == [1, 0, 1, 0, 0, 6, 2, 0, 0]


def test_no_pass_after_final_draw():
    h = make_hand([["1-1", "2-1", "3-1", "4-1"], ["5-1", "6-1", "7-1", "8-1"]], stack=["3-2", "4-2"])
    h.apply(0, {"type": "pass", "card": "1-1"})
    h.apply(1, {"type": "pass", "card": "5-1"})
    assert h.phase == AUCTION and len(h.hands[0]) == 5
    before = h.to_json()
    with pytest.raises(GameError, match="auction"):
        h.apply(0, {"type": "pass", "card": "2-1"})
    assert h.to_json() == before


# ---------------------------------------------------------------- declaring
def test_declaration_is_two_complete_sets_of_four_different_cards():
    assert declaration(s(3) + s(5) + ["1-1"]) == s(3) + s(5)
    assert declaration(s(3) + ["5-1", "5-2", "5-3", "6-4"]) is None


def test_declaration_may_be_two_sets_of_one_film_with_two_packs():
    assert declaration(s(4, 2)) == sorted(s(4, 2))


def test_nine_card_declaration_is_ice_follies_four_with_joker():
    assert declaration(s(2) + IF4 + ["J"]) == s(2) + IF4 + ["J"]


def test_nine_card_declaration_preferred_over_eight():
    assert len(declaration(s(1) + s(2) + IF4 + ["J"])) == 9


def test_joker_with_three_ice_follies_is_not_a_set_for_declaring():
    assert declaration(s(2) + ["11-1", "11-2", "11-3", "J"]) is None


def test_declaration_refuses_unknown_codes_and_too_many_copies():
    with pytest.raises(GameError, match="12-1"):
        declaration(["12-1"])
    with pytest.raises(GameError, match="3 copies of 2-2"):
        declaration(["2-2"] * 3)
    with pytest.raises(GameError, match="3 copies of J"):
        declaration(["J"] * 3)
    with pytest.raises(ValueError):
        declaration("1-1")


def test_declaring_during_passing_ends_the_hand_at_once():
    h = make_hand([s(1) + s(2), ["3-1", "3-2", "3-3", "4-1"]], stack=["5-1", "5-2"])
    h.apply(1, {"type": "pass", "card": "4-1"})
    h.apply(0, {"type": "declare"})
    assert h.phase == FINISHED and h.ended_by == "declared_passing"
    assert "4-1" in h.hands[1]  # the chosen pass never moved
    assert h.points == [15, 0]


def test_declaring_in_the_auction_ends_it_and_voids_pending_offers():
    h = make_hand([s(1) + s(2), ["3-1", "3-2", "3-3", "4-1"], ["5-1"]], phase=AUCTION)
    h.apply(1, {"type": "offer", "to": 2, "cards": ["4-1"]})
    h.apply(0, {"type": "declare"})
    assert h.ended_by == "declared_auction" and h.offers == {}
    with pytest.raises(GameError, match="over"):
        h.apply(2, {"type": "accept", "offer": 1, "cards": ["5-1"]})


def test_invalid_declaration_is_refused_and_the_hand_goes_on():
    h = make_hand([s(1) + ["2-1"], s(3)], stack=["5-1", "5-2"])
    before = h.to_json()
    with pytest.raises(GameError, match="no declaration"):
        h.apply(0, {"type": "declare"})
    assert h.to_json() == before and h.phase == PASSING


# ---------------------------------------------------------------- auction
def test_auction_opens_at_once_after_the_final_draw():
    h = FilmFantasyHand.new(4, random.Random(4))
    while h.phase == PASSING:
        for seat in range(4):
            if h.phase == PASSING:
                h.apply(seat, {"type": "pass", "card": h.hands[seat][0]})
    assert h.phase == AUCTION and h.log[-1]["type"] == "auction_opened"
    assert [len(x) for x in h.hands] == [11] * 4 and len(h.odd) == 1


def test_offer_is_one_to_three_cards(auction_hand):
    # Four free cards (none in a pending offer: the count alone refuses them), and none.
    for cards in (["3-1", "1-1", "1-2", "2-1"], []):
        with pytest.raises(GameError, match="must be a list of 1 to 3 cards"):
            auction_hand.apply(0, {"type": "offer", "to": 1, "cards": cards})
    assert auction_hand.version == 0 and not auction_hand.view(0)["offers"]
    auction_hand.apply(0, {"type": "offer", "to": 1, "cards": ["1-1", "1-2", "2-1"]})


def test_offer_shows_only_count(auction_hand):
    auction_hand.apply(0, {"type": "offer", "to": 1, "cards": ["1-1", "2-1"]})
    target, other, offerer = auction_hand.view(1), auction_hand.view(2), auction_hand.view(0)
    assert target["offers"] == [{"id": 1, "from": 0, "to": 1, "count": 2}]
    assert other["offers"] == []
    assert offerer["offers"][0]["my_cards"] == ["1-1", "2-1"]
    assert "1-1" not in repr(target) and "1-1" not in repr(auction_hand.view(None))


def test_accept_swaps_the_same_number_of_cards_atomically(auction_hand):
    auction_hand.apply(0, {"type": "offer", "to": 1, "cards": ["1-1", "2-1"]})
    with pytest.raises(GameError, match="exactly 2"):
        auction_hand.apply(1, {"type": "accept", "offer": 1, "cards": ["4-1"]})
    auction_hand.apply(1, {"type": "accept", "offer": 1, "cards": ["4-1", "6-1"]})
    assert sorted(auction_hand.hands[0]) == ["1-2", "3-1", "4-1", "6-1"]
    assert sorted(auction_hand.hands[1]) == ["1-1", "2-1", "4-2", "5-1"]


def test_each_seat_is_told_the_cards_its_latest_draw_or_exchange_brought_while_it_holds_them():
    """A phone marks them "new", after a reload too (a reload lost the marks)."""
    h = make_hand([["1-1", "2-1", "3-1", "4-1"], ["5-1", "6-1", "7-1", "8-1"], ["9-1", "10-1", "1-2", "2-2"]],
                  stack=["6-4", "3-2", "4-2", "5-2"], dealer=0)
    assert [h.view(s)["received"] for s in range(3)] == [[], [], []]  # the deal brings nothing new
    for seat, card in [(0, "1-1"), (1, "5-1"), (2, "9-1")]:
        h.apply(seat, {"type": "pass", "card": card})
    # The pass from the right, then the card drawn (from the dealer's left: 1, 2, 0).
    assert [h.view(s)["received"] for s in range(3)] == [["9-1", "3-2"], ["1-1", "5-2"], ["5-1", "4-2"]]
    assert h.phase == AUCTION  # (one card left: no full draw round)
    h.apply(0, {"type": "offer", "to": 1, "cards": ["2-1", "3-1"]})
    h.apply(1, {"type": "accept", "offer": 1, "cards": ["6-1", "1-1"]})
    assert h.view(1)["received"] == ["2-1", "3-1"] and h.view(0)["received"] == ["6-1", "1-1"]
    assert h.view(2)["received"] == ["5-1", "4-2"]  # not part of it: its marks stay
    again = FilmFantasyHand.load(h.to_json())
    assert [again.view(s)["received"] for s in range(3)] == [h.view(s)["received"] for s in range(3)]
    # Given away, a card is no longer marked.
    h.apply(1, {"type": "offer", "to": 2, "cards": ["2-1"]})
    h.apply(2, {"type": "accept", "offer": 2, "cards": ["10-1"]})
    assert h.view(1)["received"] == ["10-1"] and h.view(2)["received"] == ["2-1"]
    h.apply(2, {"type": "offer", "to": 0, "cards": ["5-1"]})
    h.apply(0, {"type": "accept", "offer": 3, "cards": ["6-1"]})
    assert h.view(0)["received"] == ["5-1"] and h.view(2)["received"] == ["6-1"]


def test_target_declines_and_offerer_withdraws(auction_hand):
    auction_hand.apply(0, {"type": "offer", "to": 1, "cards": ["1-1"]})
    auction_hand.apply(0, {"type": "offer", "to": 2, "cards": ["1-2"]})
    with pytest.raises(GameError, match="Only the player the offer was made to can decline it"):
        auction_hand.apply(2, {"type": "decline", "offer": 1})
    auction_hand.apply(1, {"type": "decline", "offer": 1})
    with pytest.raises(GameError, match="Only the player who made the offer can withdraw it"):
        auction_hand.apply(2, {"type": "withdraw", "offer": 2})
    auction_hand.apply(0, {"type": "withdraw", "offer": 2})
    assert auction_hand.offers == {} and sorted(auction_hand.hands[0]) == ["1-1", "1-2", "2-1", "3-1"]


def test_refusals_speak_to_the_player_and_name_cards_as_the_phone_shows_them(auction_hand):
    """A refusal is shown on the phone of the seat that acted: "you", and cards by film and
    number as the game screen shows them, never seat numbers counted from 0 or card codes."""
    with pytest.raises(GameError, match="^You do not hold Serenade 4[.]$"):
        auction_hand.apply(0, {"type": "offer", "to": 1, "cards": ["3-4"]})
    auction_hand.apply(0, {"type": "offer", "to": 1, "cards": ["1-1"]})
    with pytest.raises(GameError, match="^Lucky Night 1 is in an offer of yours still open"):
        auction_hand.apply(0, {"type": "offer", "to": 2, "cards": ["1-1"]})
    with pytest.raises(GameError, match="^That offer was made to another player, not to you[.]$"):
        auction_hand.apply(2, {"type": "accept", "offer": 1, "cards": ["1-1"]})
    with pytest.raises(GameError, match="^You hold no declaration"):
        auction_hand.apply(2, {"type": "declare"})
    with pytest.raises(GameError, match="^You do not hold 2 of Serenade 1[.]$"):
        auction_hand.apply(0, {"type": "offer", "to": 1, "cards": ["3-1", "3-1"]})
    # A hand-made frame's "card" that is no code at all (found by a tester: a pass of ["3-4"] was
    # refused with "You do not hold ['3-4'] to pass."); an unknown code is named as sent.
    assert (card_name(["3-4"]), card_name(7), card_name("99-9")) == ("that card", "that card", "'99-9'")
    assert card_name("x" * 2000) == "that card"  # found from outside: echoed whole in the refusal


def test_a_seat_makes_at_most_fifty_offers_a_hand(auction_hand):
    """Project rule, found from outside: offer and withdraw, repeated, grew a hand's stored log
    without end, and with it every move's write. Fifty offers a seat; then answers and a
    declaration only; a stored hand keeps the count (one stored without it counts its log)."""
    h = auction_hand
    for n in range(MAX_OFFERS_PER_SEAT):
        h.apply(0, {"type": "offer", "to": 1, "cards": ["1-1"]})
        h.apply(0, {"type": "withdraw", "offer": h.next_offer - 1})
    assert h.offers_left(0) == 0 and h.offers_left(1) == MAX_OFFERS_PER_SEAT
    before = h.to_json()
    with pytest.raises(GameError, match="^You have made 50 offers this hand, the most one player may"):
        h.apply(0, {"type": "offer", "to": 2, "cards": ["1-1"]})
    assert h.to_json() == before
    h.apply(1, {"type": "offer", "to": 0, "cards": ["4-1"]})  # others still may, and seat 0 may answer
    h.apply(0, {"type": "accept", "offer": h.next_offer - 1, "cards": ["3-1"]})
    assert FilmFantasyHand.load(h.to_json()).offers_left(0) == 0
    old = {k: v for k, v in h.to_json().items() if k != "offers_made"}
    assert FilmFantasyHand.load(old).offers_made == h.offers_made
    # The bots know it: at the cap they make no offer.
    assert bot_action(h, 0, random.Random(1)) is None or bot_action(h, 0, random.Random(1))["type"] != "offer"


def test_offers_run_simultaneously(auction_hand):
    auction_hand.apply(0, {"type": "offer", "to": 1, "cards": ["1-1"]})
    auction_hand.apply(1, {"type": "offer", "to": 2, "cards": ["4-1"]})
    auction_hand.apply(2, {"type": "offer", "to": 0, "cards": ["7-1"]})
    assert len(auction_hand.offers) == 3


def test_card_in_pending_offer_cannot_be_offered_again(auction_hand):
    auction_hand.apply(0, {"type": "offer", "to": 1, "cards": ["1-1"]})
    with pytest.raises(GameError, match="in an offer of yours still open"):
        auction_hand.apply(0, {"type": "offer", "to": 2, "cards": ["1-1"]})
    auction_hand.apply(1, {"type": "decline", "offer": 1})
    auction_hand.apply(0, {"type": "offer", "to": 2, "cards": ["1-1"]})  # free again


def test_card_in_pending_offer_cannot_be_given_in_an_acceptance(auction_hand):
    auction_hand.apply(1, {"type": "offer", "to": 2, "cards": ["4-1"]})
    auction_hand.apply(0, {"type": "offer", "to": 1, "cards": ["1-1"]})
    with pytest.raises(GameError, match="in an offer of yours still open"):
        auction_hand.apply(1, {"type": "accept", "offer": 2, "cards": ["4-1"]})
    auction_hand.apply(1, {"type": "accept", "offer": 2, "cards": ["4-2"]})
    assert "4-1" in auction_hand.hands[1] and 1 in auction_hand.offers
