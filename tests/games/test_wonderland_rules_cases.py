"""The Game of Alice in Wonderland: rules cases played through the public API with hand-built
packs (``WonderlandHand.from_deck``), each exact, beside the examples of test_wonderland_rules.py:
the mate rule in whole tricks (a later player's mate, mates to several, a mate that does not
take), a two-player hand through its four deals, the mover's ties reached by play and the bell,
the Pool of Tears card left unused at five and six players, and the entry of a hand played with
cards, at the game, through the drive's service and on the organiser's preview (docs/rules.md, "The Game of Alice in
Wonderland")."""

import pytest

from drive import services
from games.base import GameError
from games.wonderland import PACK, WONDERLAND, WonderlandHand, count, deals
from tests.factories import make_drive

PLAY = "play"


def pack(players, dealer, first_deal, tail=()):
    """A pack whose first deal gives ``first_deal[k]`` (seven cards) to the k-th seat from the
    dealer's left (k = 0 leads), one card at a time; ``tail`` goes last, the rest between."""
    top = [first_deal[k][i] for i in range(7) for k in range(players)]
    rest = [c for c in PACK if c not in top and c not in tail]
    cards = top + rest + list(tail)
    assert sorted(cards) == sorted(PACK)
    return cards


def play(h, *cards):
    for c in cards:
        h.apply(h.turn, {"type": PLAY, "card": c})


def refused(h, seat, card, message):
    before, version = h.to_json(), h.version
    with pytest.raises(GameError) as exc:
        h.apply(seat, {"type": PLAY, "card": card})
    assert str(exc.value) == message
    assert h.to_json() == before and h.version == version


def play_out(h):
    while not h.finished:
        play(h, h.legal(h.turn)[0])


# ---------------------------------------------------------------- the mate rule in whole tricks
A_STAR_LED = [  # from the dealer's left: a star led, its plain mate held by the third player
    ["S5", "N1", "N2", "N3", "N4", "N5", "N6"],
    ["S3", "S4", "P9", "N7", "N8", "N9", "N10"],     # no mate of S5: follows with a star
    ["P5", "S6", "S7", "N11", "N12", "N13", "N14"],  # the mate of S5, though it holds stars
    ["P3", "N15", "N16", "N17", "N18", "N19", "N20"],  # the mate of S3, a picture played after the lead
]


@pytest.mark.parametrize("dealer", [0, 1, 2, 3])
def test_a_star_led_its_plain_mate_must_be_played_by_whoever_holds_it_and_the_led_star_takes(dealer):
    """Leaflet, NOTE: "any player who holds its mate must play it when his turn comes"."""
    h = WonderlandHand.from_deck(4, pack(4, dealer, A_STAR_LED), dealer)
    s0, s1, s2, s3 = [(dealer + k) % 4 for k in range(1, 5)]
    assert h.turn == s0 and h.hands[s0] == A_STAR_LED[0]
    play(h, "S5")
    assert h.legal(s1) == ["S3", "S4"]  # no mate: the led set
    refused(h, s1, "P9", "S5 was led and you hold a star picture: follow with one.")
    play(h, "S3")
    assert h.legal(s2) == ["P5"]
    refused(h, s2, "S7", "You hold the mate of S5: play P5.")
    refused(h, s2, "N11", "You hold the mate of S5: play P5.")
    play(h, "P5")
    assert h.legal(s3) == ["P3"]  # void in stars, yet bound to the mate of S3
    refused(h, s3, "N20", "You hold the mate of S3: play P3.")
    play(h, "P3")
    assert h.taken[s0] == ["S5", "S3", "P5", "P3"] and h.turn == s0 and h.trick == [] and h.version == 4
    assert h.last_trick["winner"] == s0


def test_the_star_mate_of_a_plain_led_does_not_take_when_a_higher_star_follows():
    """The leaflet's example: A leads plain 7, B must play star 7, "the star card taking"; in
    this project the highest card of the trick takes it, so a higher star played later does."""
    first = [["P7", "N1", "N2", "N3", "N4", "N5", "N6"],
             ["S7", "P3", "N7", "N8", "N9", "N10", "N11"],
             ["P8", "P9", "S1", "N12", "N13", "N14", "N15"],
             ["S16", "S2", "N16", "N17", "N18", "N19", "N20"]]
    h = WonderlandHand.from_deck(4, pack(4, 3, first), 3)
    play(h, "P7")
    refused(h, 1, "N7", "You hold the mate of P7: play S7.")
    play(h, "S7")
    assert h.legal(2) == ["P8", "P9"]  # P7 and S7 both down: follow the plain led
    refused(h, 2, "S1", "P7 was led and you hold a plain picture: follow with one.")
    play(h, "P9")
    assert h.legal(3) == ["S2", "S16", "N16", "N17", "N18", "N19", "N20"]  # no plain, no mate: any
    play(h, "S16")
    assert h.taken == [[], [], [], ["P7", "S7", "P9", "S16"]] and h.turn == 3


def test_with_mates_to_two_pictures_played_on_a_number_lead_the_mate_of_the_earlier_is_played():
    first = [["N5", "N6", "N7", "N8", "N9", "N10", "N11"],
             ["P2", "P10", "S11", "S12", "S13", "S14", "S15"],   # no number: any card
             ["S9", "P11", "P12", "P13", "P14", "P15", "P16"],   # no number, no mate: any card
             ["P9", "S2", "N1", "N2", "N3", "N4", "N12"]]        # the mates of both P2 and S9
    h = WonderlandHand.from_deck(4, pack(4, 0, first), 0)
    play(h, "N5", "P2", "S9")
    assert h.legal(0) == ["S2"]
    for card in ("P9", "N1", "N12"):
        refused(h, 0, card, "You hold the mate of P2: play S2.")
    play(h, "S2")
    assert h.taken[3] == ["N5", "P2", "S9", "S2"] and h.turn == 3  # star 9 beats the star mate 2


# ---------------------------------------------------------------- two players: four deals
def test_two_players_play_four_deals_of_seven_seven_seven_and_five_each_from_the_front_of_the_pack():
    # Dealer 0: seat 1 leads with numbers only; the dealer holds stars only and takes every
    # trick of the first deal, so the dealer (not the dealer's left) leads the second.
    first = [["N1", "N2", "N3", "N4", "N5", "N6", "N7"], ["S10", "S11", "S12", "S13", "S14", "S15", "S16"]]
    cards = pack(2, 0, first)
    h = WonderlandHand.from_deck(2, cards, 0)
    assert deals(2) == [7, 7, 7, 5] and h.hands == [cards[1:14:2], cards[0:14:2]] and h.turn == 1
    play(h, "N1")
    assert h.legal(0) == first[1]  # no number, no mate: any card
    play(h, "S10")
    for k in range(1, 7):  # the dealer leads each star; seat 1, no star and no mate, plays any card
        assert h.turn == 0 and h.legal(1) == []
        play(h, f"S{10 + k}")
        assert h.legal(1) == first[0][k - 1 + 1:] and h.version == 2 * k + 1
        play(h, f"N{1 + k}")
    assert h.taken == [["N1", "S10"] + [c for k in range(1, 7) for c in (f"S{10 + k}", f"N{1 + k}")], []]
    assert h.version == 14
    # the card that emptied the hands dealt the next seven each, in the same single step
    assert h.deal == 2 and h.hands == [cards[15:28:2], cards[14:28:2]] and h.turn == h.leader == 0
    starts = {2: [cards[15:28:2], cards[14:28:2]]}
    while not h.finished:
        deal = h.deal
        play(h, h.legal(h.turn)[0])
        if h.deal != deal:
            starts[h.deal] = [list(x) for x in h.hands]
            assert h.turn == h.last_trick["winner"]
    assert starts[3] == [cards[29:42:2], cards[28:42:2]] and starts[4] == [cards[43:52:2], cards[42:52:2]]
    assert h.finished and h.turn is None and h.trick == [] and h.hands == [[], []] and h.version == 52
    assert sorted(h.taken[0] + h.taken[1]) == sorted(PACK)  # all 52 dealt and taken: none unused
    o = h.outcome()
    assert o.points == count(h.taken) and o.details["pool_of_tears"] in (0, 1)
    before = h.to_json()
    with pytest.raises(GameError, match="^The hand is over.$"):
        h.apply(0, {"type": PLAY, "card": "N1"})
    assert h.to_json() == before


# ---------------------------------------------------------------- the mover's ties, by play and the bell
TWO_PAIRS = [  # from the dealer's left: two tricks, each with a pair, to the dealer then its left
    ["P3", "S5", "N1", "N2", "N3", "N4", "N5"],
    ["P1", "P4", "N6", "N7", "N8", "N9", "N10"],
    ["P2", "P6", "N11", "N12", "N13", "N14", "N15"],
    ["S3", "P5", "N16", "N17", "N18", "N19", "N20"],
]


@pytest.mark.parametrize("dealer", [0, 1, 2, 3])
def test_equal_points_and_cards_go_to_the_dealers_left_before_the_dealer(dealer):
    h = WonderlandHand.from_deck(4, pack(4, dealer, TWO_PAIRS), dealer)
    left = (dealer + 1) % 4
    play(h, "P3", "P1", "P2")
    refused(h, dealer, "P5", "You hold the mate of P3: play S3.")
    play(h, "S3")  # the dealer takes the pair 3 and leads
    assert h.turn == dealer
    play(h, "P5", "S5", "P4", "P6")  # the dealer's left must play the mate, and takes the pair 5
    assert h.turn == left and h.version == 8
    h.stop()
    o = h.outcome()
    expected = [0] * 4
    expected[dealer] = expected[left] = 10  # a pair each; four cards each: a tie, no ten for the most
    assert o.points == expected and o.details["cards"][dealer] == o.details["cards"][left] == 4
    assert o.mover == o.winner == left


NUMBERS_LATE = [  # from the dealer's left
    ["P3", "N2", "N3", "N4", "N5", "N6", "N7"],
    ["S3", "N1", "N8", "N9", "N10", "N11", "N12"],
    ["P1", "N20", "N19", "N13", "N14", "N15", "N16"],
    ["P2", "N17", "N18", "S4", "S6", "S7", "S8"],
]


def test_the_bell_after_each_trick_a_lone_pair_then_a_tie_for_most_then_equal_points_to_more_cards():
    dealer = 3
    h = WonderlandHand.from_deck(4, pack(4, dealer, NUMBERS_LATE), dealer)
    play(h, "P3", "S3", "P1", "P2")  # seat 1 takes the pair 3
    after_one = WonderlandHand.load(h.to_json())
    play(h, "N1", "N20", "N17", "N2")  # seat 2 takes four numbers
    after_two = WonderlandHand.load(h.to_json())
    play(h, "N19", "N18", "N3", "N8")  # seat 2 again: eight cards, the most
    for hand, points, mover in ((after_one, [0, 20, 0, 0], 1),   # a pair and the most cards
                                (after_two, [0, 10, 0, 0], 1),   # four cards each: nobody has the most
                                (h, [0, 10, 10, 0], 2)):         # 10 each: more cards (8 against 4)
        hand.stop()
        o = hand.outcome()
        assert (o.points, o.mover, o.winner) == (points, mover, mover)


# ---------------------------------------------------------------- the Pool of Tears card
@pytest.mark.parametrize("players,unused", [(5, 2), (6, 4)])
def test_a_house_rule_pool_of_tears_card_left_unused_scores_nobody(players, unused):
    cards = [c for c in PACK if c != "S9"] + ["S9"]
    h = WonderlandHand.from_deck(players, cards, players - 1, pool_of_tears="S9")
    play_out(h)
    assert len(h.stock) == unused and h.stock[-1] == "S9"
    o = h.outcome()
    assert o.details["pool_of_tears"] is None and o.points == count(h.taken, "S9")
    sizes = [len(t) for t in h.taken]
    most = [10 if sizes.count(max(sizes)) == 1 and s == max(sizes) else 0 for s in sizes]
    assert o.points == [10 * p + m for p, m in zip(o.details["pairs"], most)]
    # the same pack under the default rule: plain 16 was dealt, and its taker scores 20
    h = WonderlandHand.from_deck(players, cards, players - 1)
    play_out(h)
    taker = h.outcome().details["pool_of_tears"]
    assert "P16" in h.taken[taker] and h.outcome().points[taker] >= 20


@pytest.mark.parametrize("taken,points", [
    ([["N1", "N2"], ["N3", "N4"], ["N5"]], [0, 0, 0]),                  # two level at the top: nobody
    ([["S1", "P1", "N1"], ["S2", "P2", "N2"]], [10, 10]),               # pairs count on a tie for most
    ([["N1", "N2", "N3"], ["N4", "N5"], ["S6", "P6"]], [10, 0, 10]),    # the most by one card
    ([["P16"], ["N1", "N2"]], [20, 10]),                                # Alice alone, the most elsewhere
    ([["S16"], ["N1", "N2"]], [0, 10]),                                 # star 16 is not the default card
])
def test_the_count_in_each_tie_and_split(taken, points):
    assert count(taken) == points


# ---------------------------------------------------------------- a hand played with cards
def entry(dealer, pool, pairs, cards, stopped=False):
    return {"dealer": dealer, "pool_of_tears": pool, "stopped": stopped,
            "holdings": [{"pairs": p, "cards": c} for p, c in zip(pairs, cards)]}


@pytest.mark.parametrize("players,dealt", [(2, 52), (3, 51), (4, 52), (5, 50), (6, 48)])
def test_the_entry_asks_about_every_card_dealt_at_each_table_size(players, dealt):
    spec = WONDERLAND.entry_spec(players)
    stopped = next(f for f in spec["table"] if f["name"] == "stopped")
    assert stopped["choices"][0] == [False, f"Yes: all {dealt} cards dealt were played"]
    cards = next(f for f in spec["seat"] if f["name"] == "cards")
    assert [v for v, _ in cards["choices"]] == list(range(0, dealt + 1, players))


@pytest.mark.parametrize("players,summary,message", [
    (6, entry(0, 1, [0] * 6, [12, 12, 12, 6, 6, 6]), "54 cards taken in all, but at 6 players only 48 are played"),
    (5, entry(0, 1, [0] * 5, [15, 15, 10, 10, 5]), "55 cards taken in all, but at 5 players only 50 are played"),
    (6, entry(0, 1, [0] * 6, [8, 10, 6, 6, 6, 12]), "Seat 0: 8 cards taken, but every trick holds 6 cards"),
    (3, entry(0, 1, [2, 0, 0], [3, 24, 24]), "Seat 0: 2 pairs need 4 cards, but only 3 were taken."),
    (4, entry(0, 1, [5, 4, 4, 4], [12, 12, 12, 16]), "17 pairs entered in all, but the pack has only 16."),
    (4, entry(0, 4, [0] * 4, [12, 12, 12, 16]), "must be one of the 4 players at this table, or nobody"),
    (5, entry(0, 4, [0] * 5, [15, 15, 10, 10, 0], stopped=True), "Seat 4 took no cards"),
    (3, entry(0, None, [16, 0, 0], [33, 9, 9]), "All 16 pairs were taken, so somebody took the Pool of Tears"),
    (2, entry(1, None, [0, 0], [26, 26], stopped=True), "All 52 cards of the pack were taken"),
])
def test_impossible_totals_are_refused_naming_what_is_wrong(players, summary, message):
    with pytest.raises(GameError, match=message):
        WONDERLAND.outcome_from_summary(players, summary)


@pytest.mark.parametrize("players,summary,points,mover", [
    (3, entry(0, None, [1, 1, 1], [18, 15, 18]), [10, 10, 10], 2),  # Alice unused; 18 cards: seat 2 before the dealer
    (5, entry(2, None, [0, 1, 0, 1, 0], [10, 10, 10, 10, 10]), [0, 10, 0, 10, 0], 3),  # the dealer's left first
    (4, entry(0, None, [0, 0, 0, 0], [8, 4, 4, 0], stopped=True), [10, 0, 0, 0], 0),   # stopped: Alice untaken
    (4, entry(3, 2, [1, 0, 0, 1], [12, 12, 12, 16]), [10, 0, 20, 20], 3),   # 20 each: more cards
    (4, entry(1, None, [0] * 4, [0] * 4, stopped=True), [0, 0, 0, 0], 2),  # nothing taken: the dealer's left
])
def test_an_entered_hand_scores_and_names_its_mover_as_a_hand_played_on_the_phones(players, summary, points, mover):
    o = WONDERLAND.outcome_from_summary(players, summary)
    assert o.points == points and o.mover == mover
    assert o.winner == (mover if max(points) else None)


@pytest.mark.django_db
def test_the_drives_entry_refuses_impossible_totals_naming_the_players_and_the_house_card(organiser):
    drive = make_drive(organiser, 0, game="wonderland", house_rules={"pool_of_tears": "S7"})
    names = ["Ann", "Bob", "Cy", "Di"]
    cases = [
        (entry(0, 1, [0, 0, 0, 0], [12, 0, 16, 24]),
         "\u2068Bob\u2069 took no cards, so cannot have taken the Pool of Tears card (Star picture 7)."),
        (entry(0, 0, [0, 0, 3, 0], [12, 12, 4, 24]), "\u2068Cy\u2069: 3 pairs need 6 cards, but only 4 were taken."),
        (entry(0, 0, [0, 0, 0, 0], [16, 16, 16, 16]), "64 cards taken in all, but at 4 players only 52 are played"),
    ]
    for summary, message in cases:
        with pytest.raises(services.ImpossibleAnswers) as exc:
            services.outcome_for(drive, 4, summary, names)
        assert str(exc.value).startswith(message), str(exc.value)
    o = services.outcome_for(drive, 4, entry(0, 1, [0, 2, 0, 0], [12, 12, 12, 16]), names)
    assert o.points == [0, 40, 0, 10] and o.mover == 1


def form(dealer, pool, pairs, cards, stopped=False):
    """The result form's answers (the entry's questions, as the pages send them)."""
    data = {"dealer": str(dealer), "pool_of_tears": "none" if pool is None else str(pool), "stopped": str(stopped)}
    for i, (p, c) in enumerate(zip(pairs, cards)):
        data[f"seat{i}_pairs"], data[f"seat{i}_cards"] = str(p), str(c)
    return data


@pytest.mark.django_db
def test_the_organisers_preview_shows_the_top_scorer_and_refuses_impossible_totals_by_name(organiser_client, organiser):
    drive = make_drive(organiser, 0, game="wonderland", preferred_table_size=3)
    services.add_players(drive, ["Ann", "Bob", "Cy"])
    organiser_client.post(f"/drives/{drive.pk}/draw", {"hand": "0"})
    assert organiser_client.post(f"/drives/{drive.pk}/start", {"hand": "1"}).status_code == 302
    table = drive.hands.get().tables.get()
    names = [s.player.name for s in table.seats.select_related("player").order_by("position")]
    url = f"/drives/{drive.pk}/results/{table.pk}/preview"
    # 20 each for two pairs and for the Pool of Tears card: more cards (18 against 15) win it
    answer = organiser_client.post(url, form(0, 1, [2, 0, 0], [15, 18, 18])).json()
    assert [(r["points"], r["won"]) for r in answer["points"]] == [(20, False), (20, True), (0, False)]
    # 10 each, Alice unused: 18 cards for seats 0 and 2; the dealer (seat 1)'s left, seat 2, first
    answer = organiser_client.post(url, form(1, None, [1, 1, 1], [18, 15, 18])).json()
    assert [(r["points"], r["won"]) for r in answer["points"]] == [(10, False), (10, False), (10, True)]
    answer = organiser_client.post(url, form(0, 0, [0, 3, 0], [27, 3, 21])).json()
    assert answer == {"ok": False, "message": f"\u2068{names[1]}\u2069: 3 pairs need 6 cards, but only 3 were taken."}
    answer = organiser_client.post(url, form(0, None, [0, 0, 0], [18, 18, 18])).json()
    assert answer["message"] == "54 cards taken in all, but at 3 players only 51 are played in a hand."
