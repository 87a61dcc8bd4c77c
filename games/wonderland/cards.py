"""The pack and the rules of one trick (docs/rules.md, "The Game of Alice in Wonderland").

Codes: ``"S1"``..``"S16"`` star pictures, ``"P1"``..``"P16"`` plain pictures, ``"N1"``..``"N20"``
number cards. The first letter is the set; S n and P n are mates (a pair). Everything here is a
pure function of its arguments; refusals raise ``GameError`` (a ``ValueError``).
"""

from __future__ import annotations

import random
from typing import Any, Iterable, Sequence

from ..base import GameError, check_rng, short

MIN_PLAYERS, MAX_PLAYERS = 2, 6
DEAL_SIZE = 7
STARS = [f"S{n}" for n in range(1, 17)]
PLAINS = [f"P{n}" for n in range(1, 17)]
NUMBERS = [f"N{n}" for n in range(1, 21)]
PACK: list[str] = STARS + PLAINS + NUMBERS
PICTURES = frozenset(STARS + PLAINS)
DEFAULT_POOL_OF_TEARS = "P16"  # "Alice and the Pool of Tears": the project's reading (docs/rules.md)

# Rank: every star beats every plain and number card, every plain every number card; within one
# set the higher number wins (leaflet: "Each set takes by its number ...").
_SET_RANK = {"N": 0, "P": 100, "S": 200}
RANK: dict[str, int] = {c: _SET_RANK[c[0]] + int(c[1:]) for c in PACK}
MATE: dict[str, str] = {**{f"S{n}": f"P{n}" for n in range(1, 17)}, **{f"P{n}": f"S{n}" for n in range(1, 17)}}
SET_NAMES = {"S": "star picture", "P": "plain picture", "N": "number card"}
# Display order: stars, plains, numbers (the sets in rank order), each by number.
SORT_KEY: dict[str, int] = {c: (2 - _SET_RANK[c[0]] // 100) * 100 + int(c[1:]) for c in PACK}


def check_players(players: Any) -> int:
    if type(players) is not int or not MIN_PLAYERS <= players <= MAX_PLAYERS:
        raise GameError(
            f"The Game of Alice in Wonderland is played by {MIN_PLAYERS} to {MAX_PLAYERS} players "
            f"at a table, not {players!r}."
        )
    return players


def check_pool_of_tears(card: Any) -> str:
    """The house rule's Pool of Tears card: it must be a picture code (default ``"P16"``)."""
    if not isinstance(card, str) or card not in PICTURES:
        raise GameError(f"The Pool of Tears card must be a picture card, S1-S16 or P1-P16, not {card!r}.")
    return card


def deck(players: int, rng: random.Random) -> list[str]:
    """The 52 cards, shuffled by ``rng``; refused outside 2-6 players."""
    check_players(players)
    cards = list(PACK)
    check_rng(rng).shuffle(cards)
    return cards


def deals(players: int) -> list[int]:
    """Cards each player receives in each deal of a hand, in order: seven while at least seven
    each remain, then one equal share of what is left; the cards over stay unused.
    ``deals(4) == [7, 6]``, ``deals(3) == [7, 7, 3]``, ``deals(2) == [7, 7, 7, 5]``."""
    n = check_players(players)
    left, out = len(PACK), []
    while left >= DEAL_SIZE * n:
        out.append(DEAL_SIZE)
        left -= DEAL_SIZE * n
    if left // n:
        out.append(left // n)
    return out


def cards_in_play(players: int) -> int:
    """How many cards are dealt in one hand (the rest stay unused)."""
    return sum(deals(players)) * players


def card_name(code: Any) -> str:
    """A card in a refusal: its code ("P7", as "You hold the mate of P7: play S7." names it); an
    unknown code as given ('Q9'); anything that is no code at all (a list, None, a long string:
    a hand-made frame) as "that card"."""
    if isinstance(code, str) and code in RANK:
        return code
    return repr(code) if isinstance(code, str) and len(code) <= 12 else "that card"


def picture_name(code: str) -> str:
    """A picture card as the drive's forms name it: "Star picture 7", "Plain picture 16" (the
    house rule's choices, the entry's Pool of Tears question)."""
    return f"{'Star' if code[0] == 'S' else 'Plain'} picture {code[1:]}"


def _listed(cards: Any, what: str) -> list[Any]:
    """``cards`` as a list, refused (``GameError``) when it is no list of cards at all (None, a
    number, a string, a mapping): the public functions take what a caller hands them."""
    if isinstance(cards, (str, bytes, dict)) or not isinstance(cards, Iterable):
        raise GameError(f"{what} must be a list of cards, not {short(repr(cards))}.")
    return list(cards)


def _check_codes(cards: Sequence[Any], what: str) -> None:
    for c in cards:
        if not isinstance(c, str) or c not in RANK:
            raise GameError(f"{what}: {short(repr(c))} is not a card (S1-S16, P1-P16, N1-N20).")


def _check_once(cards: Sequence[str]) -> None:
    seen: set[str] = set()
    for c in cards:
        if c in seen:
            raise GameError(f"{c} is given twice: there is one of each card.")
        seen.add(c)


def _legal(hand: list[str], trick: Sequence[str]) -> list[str]:
    """``legal_plays`` without checks, for the engine and the bots."""
    if not trick:
        return hand
    mate = MATE.get
    for c in trick:  # rules 1 and 3: the mate of the earliest played picture whose mate is held
        m = mate(c)
        if m is not None and m in hand:
            return [m]
    led = trick[0][0]
    follow = [c for c in hand if c[0] == led]  # rule 2: follow the led card's set
    return follow or hand  # rule 3: otherwise any card


def _trick_cards(trick: Sequence[Any]) -> list[Any]:
    """A trick's cards in the order played: codes, or a hand's ``trick`` as it stands
    (``[{"seat": s, "card": c}]``), whose cards are taken."""
    return [c["card"] if isinstance(c, dict) and "card" in c else c for c in trick]


def legal_plays(hand: Iterable[str], trick: Sequence[str]) -> list[str]:
    """The cards of ``hand`` (in its order) that may be played on ``trick`` (cards in the order
    played, ``[]`` when leading; a hand's ``trick``, with who played each, is taken as its
    cards): the mate of a picture in the trick if held (with mates to several, the mate of the
    earliest played); otherwise a card of the led card's set if held; otherwise any card."""
    hand = _listed(hand, "The hand")
    trick = _trick_cards(_listed(trick, "The trick"))
    _check_codes(hand, "The hand")
    _check_codes(trick, "The trick")
    return _legal(hand, trick)


def why_illegal(hand: list[str], trick: Sequence[str], card: str) -> str:
    """What a player is told when ``card`` (held) is not among ``_legal(hand, trick)``."""
    for c in trick:
        m = MATE.get(c)
        if m is not None and m in hand:
            return f"You hold the mate of {c}: play {m}."
    led = trick[0]
    return f"{led} was led and you hold a {SET_NAMES[led[0]]}: follow with one."


def rule_in_force(hand: list[str], trick: Sequence[str]) -> dict[str, str] | None:
    """Why some cards of ``hand`` may not be played on ``trick``, for the player's screen:
    ``{"rule": "mate", "of": c}`` (the mate of ``c``, a picture in the trick, must be played) or
    ``{"rule": "follow", "led": c}`` (a card of the led card's set must be played); None when any
    card may be played. It names cards of the trick only, never one of the hand."""
    if not trick:
        return None
    for c in trick:
        m = MATE.get(c)
        if m is not None and m in hand:
            return {"rule": "mate", "of": c}
    led = trick[0]
    follow = [c for c in hand if c[0] == led[0]]
    return {"rule": "follow", "led": led} if follow and len(follow) < len(hand) else None


def trick_winner(trick: Sequence[str]) -> int:
    """Index in ``trick`` (codes, or a hand's ``trick`` with who played each) of the card that
    takes it: the highest-ranked card."""
    trick = _trick_cards(_listed(trick, "The trick"))
    if not trick:
        raise GameError("An empty trick has no winner.")
    _check_codes(trick, "The trick")
    rank = RANK
    best = 0
    for i in range(1, len(trick)):
        if rank[trick[i]] > rank[trick[best]]:
            best = i
    return best


def pairs_in(cards: Iterable[str]) -> int:
    """Pairs (S n with P n) among ``cards``."""
    held = set(cards)
    return sum(1 for n in range(1, 17) if f"S{n}" in held and f"P{n}" in held)


def count(taken: Sequence[Sequence[str]], pool_of_tears: str = DEFAULT_POOL_OF_TEARS) -> list[int]:
    """Each player's points from the cards each has taken: 10 per pair, 20 for the Pool of Tears
    card, 10 for the most cards taken (nobody on a tie). Refuses unknown or repeated cards and a
    Pool of Tears card that is not a picture."""
    check_pool_of_tears(pool_of_tears)
    piles = [_listed(t, "Each player's cards taken") for t in _listed(taken, "The cards taken")]
    for pile in piles:
        _check_codes(pile, "Cards taken")
    _check_once([c for pile in piles for c in pile])
    points = [10 * pairs_in(p) + (20 if pool_of_tears in p else 0) for p in piles]
    sizes = [len(p) for p in piles]
    most = max(sizes, default=0)
    if most and sizes.count(most) == 1:  # (no cards taken is never "the most")
        points[sizes.index(most)] += 10
    return points


def choose_mover(points: Sequence[int], cards_taken: Sequence[int], dealer: int) -> int:
    """The hand's top scorer; ties to more cards taken, then the first clockwise from the
    dealer's left (docs/rules.md)."""
    n = len(points)
    order = [(dealer + k) % n for k in range(1, n + 1)]
    return max(order, key=lambda s: (points[s], cards_taken[s], -order.index(s)))


def winner_of(points: Sequence[int], mover: int) -> int | None:
    """Who won the hand: the mover, the top scorer; nobody when nobody scored (a hand stopped
    before anyone scored: the mover still moves up, but won nothing)."""
    return mover if max(points) > 0 else None


def standing_facts(pairs: list[int], cards: list[int]) -> list[dict[str, int]]:
    """Each seat's standings facts for a hand (``games.base.Fact``): pairs and cards taken."""
    return [{"pairs": p, "cards_taken": c} for p, c in zip(pairs, cards)]
