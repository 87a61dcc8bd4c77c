"""The contract between a game and the drive: everything the drive, tables and scoring rely on.

The drive (models, movement, standings, pages) knows nothing about cards. Each game is a
package under ``games/`` (pure Python, no Django) that subclasses ``Game`` and registers one
instance by its slug (``games.register``); its screens live in ``templates/games/<slug>/`` and
``static/games/<slug>/``. ``docs/games.md`` walks through it with Film Fantasy as the example.

What a game states:

- **Table sizes**: ``min_players`` to ``max_players`` at a table.
- **House rules**: ``house_rules``, plain descriptions (``HouseRule``) that the drive's form turns
  into fields; ``with_rules`` returns the game configured by a drive's choices.
- **Entering a hand played with cards**: ``entry_spec(players)`` (the questions, rendered by the
  drive as a form) and ``outcome_from_summary(players, summary)`` (the points, the winner, the
  mover and the standings facts of those answers; an impossible entry is a ``GameError``).
- **The digital hand**: ``new_hand``/``load_hand`` give a ``HandState`` (a state machine with
  per-seat and spectator views); ``chatter_keys`` are the view keys that change with other
  seats' moves without changing what a seat decides on; ``hand_summary`` turns a finished
  digital hand into an entry summary (for the organiser's correction form); ``bot_action``
  plays a seat; ``screen_data`` is what the game's screen script needs besides the view;
  ``hidden_cards`` and ``public_card_keys`` say what a seat's phone may never be sent (the
  privacy check's reading of ``HandState.hands`` and the views).
- **Movement**: ``Outcome.mover`` is the seat that moves up; ``mover_without_winner`` picks it
  when a table's hand is closed with nobody having won.
- **Standings**: ``facts`` are the per-hand facts kept for each player (``Score.details``) and
  totalled over the drive, in tie-break order after the points; ``prizes`` are the game's own
  prize categories beside winner, runner-up and booby; ``tie_break_words`` and the facts'
  words are every word the standings show for them; ``winner_note`` marks a hand's winner
  where no fact's note does.
- **Words for the room**: ``movement_words`` (who moves after a hand) and ``how_to_play`` (a few
  sentences on the phones and the table cards); ``target_total``, the drive form's suggested
  total to reach.

This package imports nothing from Django.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any, ClassVar, Mapping, Protocol, Sequence


class GameError(ValueError):
    """A refused input or action; the message says what is wrong, in players' words."""


@dataclass(frozen=True)
class Outcome:
    """The result of one finished hand at one table.

    ``points[i]`` is seat i's score for the hand. ``mover`` is the seat that moves up a table.
    ``winner`` is the seat that won the hand (in Film Fantasy, the declarer), or None when
    nobody did. ``facts[i]`` holds seat i's standings facts for this hand (whole numbers keyed
    by the game's ``Fact.key``; a fact left out is 0); empty means none for anybody.
    ``details`` holds any other game-specific facts of the hand, for the game's own use.
    """

    points: list[int]
    mover: int
    winner: int | None = None
    facts: list[dict[str, int]] = field(default_factory=list)
    details: dict[str, Any] = field(default_factory=dict)

    def facts_of(self, seat: int) -> dict[str, int]:
        """Seat ``seat``'s standings facts, only those that are not 0."""
        if seat >= len(self.facts):
            return {}
        return {key: value for key, value in self.facts[seat].items() if value}


@dataclass(frozen=True)
class HouseRule:
    """A house rule a drive may set: a yes/no rule, or one of ``choices`` (value, words).

    ``key`` is its name in ``Drive.house_rules`` and the keyword of the game's constructor;
    ``label`` and ``help`` are the drive form's words for it."""

    key: str
    label: str
    default: Any
    help: str = ""
    choices: tuple[tuple[str, str], ...] = ()

    @property
    def kind(self) -> str:
        return "choice" if self.choices else "bool"

    def clean(self, game_name: str, value: Any) -> Any:
        """``value`` if it is allowed for this rule, else a ``GameError`` saying why."""
        if self.kind == "bool":
            if not isinstance(value, bool):
                raise GameError(f"{game_name}, house rule {self.key} ({self.label}): true or false, not {value!r}.")
            return value
        if value not in [v for v, _words in self.choices]:
            words = ", ".join(f"{v} ({w})" for v, w in self.choices)
            raise GameError(f"{game_name}, house rule {self.key} ({self.label}): one of {words}; not {value!r}.")
        return value


@dataclass(frozen=True)
class Fact:
    """A per-hand fact the standings keep for each player: a whole number in ``Score.details``
    under ``key``, totalled over the drive by summing (or, with ``best``, by taking the player's
    best single hand). ``label`` heads its standings column; ``note`` follows a player's points
    on a hand where the fact is not 0 ("declared"). ``hand_key`` and ``hand_label`` name one
    hand's value where it is not the drive's (the hands' CSV column, the score card's heading:
    "won" for "hands_won", "Sets" for "Best hand (sets)"); the key and the label by default."""

    key: str
    label: str
    note: str = ""
    best: bool = False
    hand_key: str = ""
    hand_label: str = ""

    def __post_init__(self) -> None:
        object.__setattr__(self, "hand_key", self.hand_key or self.key)
        object.__setattr__(self, "hand_label", self.hand_label or self.label)


# The drive's own columns of its CSV exports (drive/exports.py), around a game's facts: the hands
# CSV has a column for each fact by its ``hand_key`` between ``HANDS_CSV_BEFORE`` and
# ``HANDS_CSV_AFTER``, the standings CSV one by its ``key`` between ``STANDINGS_CSV_BEFORE`` and
# ``STANDINGS_CSV_AFTER``. ``games.register`` refuses a game whose facts would clash with them.
HANDS_CSV_BEFORE = ("hand", "table", "player", "points")
HANDS_CSV_AFTER = ("mover", "status", "source", "corrected", "ended_by", "entered_by", "confirmed_by", "bot_stood_in",
                   "answers")
STANDINGS_CSV_BEFORE = ("rank", "tied", "player", "total")
STANDINGS_CSV_AFTER = ("hands_played", "left", "bot")


def csv_clashes(facts: Sequence[Fact]) -> list[str]:
    """What is wrong with ``facts`` as columns of the CSV exports, in words (empty: nothing): a
    fact's ``hand_key`` that is one of the hands CSV's own columns or another fact's, a ``key``
    that is one of the standings CSV's own columns or another fact's."""
    said = []
    for attribute, fixed, export in (("hand_key", HANDS_CSV_BEFORE + HANDS_CSV_AFTER, "hands"),
                                     ("key", STANDINGS_CSV_BEFORE + STANDINGS_CSV_AFTER, "standings")):
        seen: set[str] = set()
        for fact in facts:
            name = getattr(fact, attribute)
            if name in fixed:
                said.append(f"the fact {fact.key!r} has the {attribute} {name!r}, one of the {export} CSV's own columns "
                            f"({', '.join(fixed)})")
            elif name in seen:
                said.append(f"two facts have the {attribute} {name!r}, one column of the {export} CSV")
            seen.add(name)
    return said


def short(text: str) -> str:
    """Something a frame named, in a refusal: as given when short, else cut (a frame may be
    4,096 characters long, and a refusal goes back to the phone whole)."""
    return text if len(text) <= 24 else text[:20] + "…"


def check_rng(rng: Any) -> random.Random:
    """``rng`` if it can shuffle and sample as ``random.Random`` does (a deck is shuffled with it),
    else a ``GameError``: ``deck(4, None)`` is refused like any other bad argument."""
    if not all(callable(getattr(rng, name, None)) for name in ("shuffle", "sample", "randrange")):
        raise GameError(f"Cards are shuffled with a random.Random (e.g. random.Random(7)), not {short(repr(rng))}.")
    return rng


def and_list(words: list[str]) -> str:
    """Words as players read a list: "A", "A and B", "A, B and C" (for a game's messages)."""
    return words[0] if len(words) == 1 else f"{', '.join(words[:-1])} and {words[-1]}"


def check_seat(seat: Any, players: int, spectator: bool = False) -> None:
    """``seat`` is a seat of a table of ``players`` (an ``int``, never a ``bool``; with
    ``spectator``, also None: a spectator's); else a ``GameError`` that says so."""
    if spectator and seat is None:
        return
    if type(seat) is not int or not 0 <= seat < players:
        raise GameError(f"That seat is not at this table of {players} players.")


def action_type(action: Any, shapes: Mapping[str, frozenset[str]]) -> str:
    """The ``type`` of an engine action, once the action is an object with exactly the fields
    its type takes (``shapes``: each type's fields, ``type`` included); else a ``GameError``
    that says what is wrong in words (a phone never sends such an action; a hand-made frame may)."""
    if type(action) is not dict:
        raise GameError("An action must be an object with a 'type'.")
    kind = action.get("type")
    allowed = shapes.get(kind) if isinstance(kind, str) else None
    if allowed is None:
        raise GameError(f"There is no action {short(repr(kind))} in this game: "
                        f"its actions are {and_list(sorted(shapes))}.")
    if len(action) != len(allowed) or not allowed.issuperset(action):
        fields = [f"'{f}'" for f in sorted(allowed - {"type"})]
        missing = [f"'{f}'" for f in sorted(allowed.difference(action))]
        if missing:  # "The action 'take' is missing 'card'."
            takes = f" (it takes {and_list(fields)})" if len(fields) > len(missing) else ""
            raise GameError(f"The action '{kind}' is missing {and_list(missing)}{takes}.")
        extra = [f"'{short(str(k))}'" for k in sorted(map(str, action)) if k not in allowed]
        takes = f" (only {and_list(fields)})" if fields else ""
        raise GameError(f"The action '{kind}' takes no {and_list(extra)}{takes}.")
    return kind


@dataclass(frozen=True)
class Prize:
    """A game's own prize: everybody still in the drive with the highest total of ``fact``,
    when that total is above 0. ``title`` is its name on the standings and the board;
    ``units``: what the fact counts, for one and for more, said after the winner's number there
    ("Most pairs: Cy (7 pairs)"; a bare "(7)" says nothing); empty: the number alone."""

    key: str
    title: str
    fact: str
    units: tuple[str, str] = ("", "")


@dataclass(frozen=True)
class Awaited:
    """A decision the server times (``Game.awaited``): ``seat`` must answer within ``seconds``,
    else the server applies ``action`` for it."""

    seat: int
    seconds: float
    action: dict[str, Any]


STOPPED = "stopped"  # a hand's ``ended_by`` after ``stop()``, the organiser's bell, in every game


class HandState(Protocol):
    """A digital hand. Every accepted action bumps ``version``; refused ones change nothing
    (a ``GameError``). ``view(None)`` is the spectator's view, with no seat's cards. ``players``
    is the number of seats. ``ended_by`` is None until the hand ends, then how it ended in the
    game's own code; ``stop()`` (the organiser's bell) makes it ``"stopped"``.

    What ``view`` and ``to_json`` return is read, never changed, by their callers (views go to
    JSON text at once): a game may share parts of its state with them rather than copy them.
    Alice and Wonderland share their public log's entries, which they never change once
    appended (a long hand's log is hundreds of entries, read on every move)."""

    players: int
    version: int
    dealer: int
    finished: bool
    ended_by: str | None
    hands: list[list[str]]  # each seat's cards, by the codes its views name them by (``Game.hidden_cards``)

    def apply(self, seat: int, action: dict[str, Any]) -> None: ...
    def view(self, seat: int | None) -> dict[str, Any]: ...
    def to_json(self) -> dict[str, Any]: ...
    def outcome(self) -> Outcome: ...
    def stop(self) -> None: ...


def top_scorer(points: Sequence[int], dealer: int) -> int:
    """The top scorer of a hand; on a tie, the first of them clockwise from the dealer's left
    (seats ``dealer + 1``, ``dealer + 2``, ... wrapping round, the dealer last).

    Refused with ``ValueError``: fewer than two seats, a point value that is not an integer, or a
    dealer seat outside the table.
    """
    seats = len(points)
    if seats < 2:
        raise ValueError(f"a table needs at least two players, got {seats} scores")
    for seat, value in enumerate(points):
        if isinstance(value, bool) or not isinstance(value, int):
            raise ValueError(f"seat {seat}'s points must be a whole number, got {value!r}")
    if isinstance(dealer, bool) or not isinstance(dealer, int) or not 0 <= dealer < seats:
        raise ValueError(f"dealer must be a seat from 0 to {seats - 1}, got {dealer!r}")
    best = max(points)
    for step in range(1, seats + 1):
        seat = (dealer + step) % seats
        if points[seat] == best:
            return seat
    raise AssertionError("unreachable: some seat holds the maximum")


class Game:
    """A game the drive can run. Subclass it, fill in the class attributes and the methods that
    raise ``NotImplementedError``, and register one instance (``games.register``)."""

    slug: ClassVar[str]
    name: ClassVar[str]
    min_players: ClassVar[int]
    max_players: ClassVar[int]
    house_rules: ClassVar[tuple[HouseRule, ...]] = ()
    facts: ClassVar[tuple[Fact, ...]] = ()
    prizes: ClassVar[tuple[Prize, ...]] = ()
    # One sentence under the standings: how players level on points are told apart.
    tie_break_words: ClassVar[str] = "Players level on points share the place."
    # The words after the points of a hand's winner (``Outcome.winner``) where no fact's note
    # says it already ("won the hand": Wonderland, whose facts note nothing; Film Fantasy's
    # "declared" and Alice's "mover" are notes of their facts). "" for none.
    winner_note: ClassVar[str] = ""
    # A sentence for the table cards and the phones: who moves after a hand.
    movement_words: ClassVar[str] = (
        "After each hand the winner moves UP a table and the player on the winner's left moves DOWN."
    )
    # A few sentences for the phones and the table cards: how a hand is played, in brief.
    how_to_play: ClassVar[str] = ""
    # The drive form's suggested total to reach ("first to …"): the leaflet's default where it
    # names one, else about seven hands of an average player's points (``manage.py simulate``),
    # so an evening is not over after two hands.
    target_total: ClassVar[int] = 50
    # A home game (a drive of one table) that reaches its total with players level at the top:
    # True, they play another hand (Film Fantasy's leaflet); False, the tie-breaks decide, as in
    # a drive of several tables.
    level_at_the_total_plays_on: ClassVar[bool] = False
    chatter_keys: ClassVar[tuple[str, ...]] = ("version",)
    # View keys whose cards say nothing of any seat's hand (Film Fantasy's dealer draw, dealt face
    # up from a separate shuffle; Wonderland's Pool of Tears card, a house rule's): the privacy
    # check over hundreds of hands (tests/tables/test_privacy_many_hands.py) does not look in them.
    public_card_keys: ClassVar[tuple[str, ...]] = ()
    # The words only this game says (its cards, its moves), a regular expression matched in any
    # case; write a space inside a word as ``[\s_-]*`` so "ice follies", "ice_follies" and
    # "Ice-Follies" all match. tests/test_game_words.py keeps them out of the generic code and off
    # every other game's pages.
    own_words: ClassVar[str] = ""

    def rules(self) -> dict[str, Any]:
        """The house rules this game object plays by, every one named."""
        return {rule.key: getattr(self, rule.key) for rule in self.house_rules}

    def rules_in_words(self) -> list[str]:
        """Each house rule as this game object plays it, in the drive form's words
        ("Declarer's stray Joker costs 5: yes"), for the organiser's pages."""
        said = []
        for rule in self.house_rules:
            value = getattr(self, rule.key)
            words = ("yes" if value else "no") if rule.kind == "bool" else dict(rule.choices).get(value, str(value))
            said.append(f"{rule.label}: {words}")
        return said

    def with_rules(self, rules: dict[str, Any]) -> "Game":
        """This game with a drive's house rules (a dict by ``HouseRule.key``; a rule left out
        keeps its current value). An unknown rule or a value not allowed is a ``GameError``."""
        if not isinstance(rules, dict):
            raise GameError("House rules must be an object.")
        if not rules:
            return self
        known = {rule.key: rule for rule in self.house_rules}
        unknown = sorted(str(key) for key in rules if key not in known)
        if unknown:
            raise GameError(f"Unknown house rule(s) for {self.name}: {', '.join(unknown)}.")
        values = self.rules()
        values.update({key: known[key].clean(self.name, value) for key, value in rules.items()})
        return type(self)(**values)

    def entry_spec(self, players: int) -> dict[str, Any]:
        """The questions about a hand played with cards: ``{"table": [field...], "seat":
        [field...]}`` and optionally ``"seat_help"`` (a line above the players' rows), each field
        ``{"name", "label", "type": "seat" | "choice", "choices", "default", "optional",
        "none_label", "help", "missing", "after_seats", "asked_if"}`` (scoring/forms.py renders
        it; docs/games.md says what each key does)."""
        raise NotImplementedError

    def outcome_from_summary(self, players: int, summary: dict[str, Any]) -> Outcome:
        raise NotImplementedError

    def hand_summary(self, state: HandState) -> dict[str, Any]:
        raise NotImplementedError

    def new_hand(self, players: int, rng: random.Random, dealer: int | None = None) -> HandState:
        """A dealt hand for ``players`` seats, shuffled with ``rng``. ``dealer``: the seat that
        deals (a home game passes the deal to the left after each hand); None: the dealer is
        drawn as the game's rules say (in a drive, before every hand: the people change)."""
        raise NotImplementedError

    def load_hand(self, data: dict[str, Any]) -> HandState:
        raise NotImplementedError

    def bot_action(self, state: HandState, seat: int, rng: random.Random) -> dict[str, Any] | None:
        raise NotImplementedError

    def hidden_cards(self, state: HandState, seat: int) -> set[str]:
        """The card codes that nothing sent to ``seat``'s phone may name in ``state`` (the privacy
        check's reading): by default every card in another seat's hand (``state.hands``) less the
        seat's own (two copies of a card share a code). A game adds what nobody may see yet (a
        stock, deals to come) and leaves out what the table has seen (a card handed over in the
        open and named by the public log)."""
        own = set(state.hands[seat])
        return {card for other, hand in enumerate(state.hands) if other != seat for card in hand} - own

    def awaited(self, state: HandState) -> Awaited | None:
        """The decision of ``state`` the server times, if any (default: none). A game that times
        answers keeps a ``deadline`` (a Unix time or None) on its hand state, stored by
        ``to_json`` and cleared by the engine when the decision is made; the server sets it,
        applies ``action`` once it has passed, and refuses that action from a phone."""
        return None

    def mover_without_winner(self, points: Sequence[int], dealer: int) -> int:
        """Who moves up from a table whose hand was closed with nobody having won: by default
        the top scorer, a tie going to the first clockwise from the dealer's left."""
        return top_scorer(points, dealer)

    def screen_data(self) -> dict[str, Any]:
        """JSON the game's screen script reads besides the view (names of sets, say)."""
        return {}

    def refusal_words(self, message: str) -> str:
        """A refusal of ``apply`` (a ``GameError``'s message, whose cards are codes: the public
        API's) as a player's phone says it, its cards in the words the game's screen uses
        (default: as it is)."""
        return message


def check_table_size(game: Game, players: Sequence[Any] | int) -> int:
    n = players if isinstance(players, int) else len(players)
    if not isinstance(n, int) or isinstance(n, bool) or not game.min_players <= n <= game.max_players:
        raise GameError(
            f"{game.name} is played by {game.min_players} to {game.max_players} players "
            f"at a table, not {n}."
        )
    return n
