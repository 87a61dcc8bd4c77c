"""Reads for the drive pages. Each runs a fixed number of queries, whatever the drive's size."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

from django.db.models import (
    BooleanField, Count, Exists, ExpressionWrapper, IntegerField, Max, OuterRef, Prefetch, Q, QuerySet, Sum,
)
from django.db.models.fields.json import KeyTextTransform
from django.db.models.functions import Cast, Coalesce
from django.utils.html import format_html, format_html_join

from common.bidi import bdi
from drive import movement
from drive.models import Drive, LateEntry, Player
from scoring import standings as ranking
from scoring.models import Correction, Score, played
from tables.frames import STOOD_IN
from tables.models import Hand, Seat, TableHand


def drives_for(user) -> QuerySet[Drive]:
    return Drive.objects.filter(organiser=user).annotate(player_count=Count("players")).order_by("-date", "-id")


def current_hand(drive: Drive) -> Hand | None:
    return Hand.objects.current(drive)


def latest_hand_number(drive: Drive) -> int:
    """The current hand's number (0 before the first), without loading the hand."""
    return drive.hands.aggregate(latest=Max("number"))["latest"] or 0


def standings_rows(drive: Drive, *, live: bool = False) -> list[ranking.Row]:
    """Every player's totals over confirmed results (one query). A finished drive's are frozen."""
    if drive.final_standings is not None and not live:
        return [ranking.Row(**{**row, "facts": tuple(row.get("facts", ()))}) for row in drive.final_standings]
    return _rows(drive, Q(scores__counted=True))


def _rows(drive: Drive, counted: Q) -> list[ranking.Row]:
    """One aggregate query; only the columns a row needs (no full Player objects). Each of the
    game's standings facts is totalled from ``Score.details`` (summed, or the best hand's)."""
    players = Player.objects.filter(drive=drive)
    facts = drive.game_rules.facts
    totals = {
        f"fact_{i}": Coalesce((Max if fact.best else Sum)(
            Cast(KeyTextTransform(fact.key, "scores__details"), IntegerField()), filter=counted), 0)
        for i, fact in enumerate(facts)
    }
    players = players.values_list("pk", "name", "active", "bot").annotate(
        total=Coalesce(Sum("scores__points", filter=counted), 0),
        # A table recorded as not played is no hand played (no place, no prize; a correction
        # replaces the summary, and the flag).
        n_hands=Count("scores", filter=counted & played("scores__")),
        **totals,
    )
    # A player (or bot) who left having played no hand is in no standings: never ranked, not
    # counted among the players (seated only at tables recorded as not played, they played
    # none). Once they have played, their points stay, the row marked "left". A bot is ranked
    # and shown like anyone, marked so that it wins no prize (``ranking.prizes``).
    return [
        ranking.Row(name=name, total=total, facts=tuple(fact_totals), hands_played=hands, player_id=pk,
                    left=not active, bot=bot is not None)
        for pk, name, active, bot, total, hands, *fact_totals in players
        if active or hands
    ]


def standings(drive: Drive) -> list[ranking.Ranked]:
    return ranking.rank(standings_rows(drive))


@dataclass(frozen=True)
class PrizeList:
    """One prize: its title and who wins it (standings order), each with the number shown
    beside the name: the total, or for a game's own prize the total of its fact."""

    key: str
    title: str
    ranked: list[ranking.Ranked]
    fact: int | None = None  # index in Row.facts of the number shown; None: the total
    units: tuple[str, str] = ("", "")  # the fact's, for one and for more (games.base.Prize)

    @property
    def entries(self) -> list[tuple[ranking.Ranked, str]]:
        """Each winner with the number said beside the name: "100 points", "7 pairs" (or the
        number alone, for a fact the game names no units of)."""
        units = ("point", "points") if self.fact is None else self.units
        out = []
        for r in self.ranked:
            n = r.total if self.fact is None else r.facts[self.fact]
            unit = units[0] if n == 1 else units[1]
            out.append((r, f"{n}\xa0{unit}" if unit else str(n)))
        return out


def prizes(drive: Drive, ranked: list[ranking.Ranked]) -> list[PrizeList]:
    """The prizes in the order they are given: winner(s), runner-up, booby prize, then the
    game's own (``games.base.Prize``). The board reveals them in reverse."""
    game = drive.game_rules
    index = {fact.key: i for i, fact in enumerate(game.facts)}
    lists = ranking.prizes(ranked, [(p.key, index[p.fact]) for p in game.prizes])
    winners = lists["winners"]
    return [
        PrizeList("winners", "Winner" if len(winners) < 2 else "Winners", winners),
        PrizeList("runner_up", "Runner-up", lists["runner_up"]),
        PrizeList("booby", "Booby prize", lists["booby"]),
        *(PrizeList(p.key, p.title, lists[p.key], index[p.fact], p.units) for p in game.prizes),
    ]


def tables_of(hand: Hand | None, players: list[Player] | None = None) -> list[TableHand]:
    """The hand's tables with their seated players and results: three queries, any size. Each
    table's ``result_reviewed``: the organiser has saved its result (the phones say so), and
    ``result_corrected``: with other answers (not an entry confirmed or upheld as it stood).

    Without each table's digital state and recent client keys (JSON the pages never show; a
    dealt table's state is the whole hand's): ``TableHand.is_dealt`` reads the annotation
    ``state_stored`` instead. ``players``: the drive's players, already read with their
    ``bot`` (``drive_view``): the seats and scores are given those, not 400 more of each."""
    if hand is None:
        return []
    seats = Seat.objects.order_by("position")
    # A result's points in seat order, as the table's card lists the seats (not by name): a
    # result's scores are written in seat order (the outcome's points are by seat), one insert
    # each, so their ids are in seat order (a subquery for each seat cost a hand's close 20 ms).
    scores = Score.objects.order_by("pk")
    if players is None:
        seats = seats.select_related("player", "player__bot")
        scores = scores.select_related("player")
    tables = list(
        hand.tables.order_by("number")
        .defer("state", "client_keys")
        .annotate(state_stored=ExpressionWrapper(Q(state__isnull=False), output_field=BooleanField()),
                  result_reviewed=Exists(Correction.objects.filter(result__table=OuterRef("pk"))),
                  result_corrected=Exists(Correction.objects.filter(result__table=OuterRef("pk"), changed=True)))
        .select_related("result", "result__entered_by", "result__confirmed_by")
        .prefetch_related(Prefetch("seats", queryset=seats), Prefetch("result__scores", queryset=scores))
    )
    if players is not None:
        _give_players(tables, {p.pk: p for p in players})
    return tables


def entry_state(table: TableHand) -> str:
    """What a phone's page shows of its table's result entry, in one string: the hand's number
    and status, the table's number and status, its result's revision. An entry page is shown
    with it and its script compares the phone's live part's (``static/js/entry.js``): another
    means the form is out of date."""
    result = getattr(table, "result", None)  # none yet: the reverse one-to-one raises
    return f"{table.hand.number}-{table.hand.status}-{table.number}-{table.status}-{result.revision if result else 0}"


def _give_players(tables: list[TableHand], players: dict[int, Player]) -> None:
    """Each seat's and score's player from ``players`` (by id), as ``select_related`` would
    have cached it; one missing (not expected: they are the drive's) is read if asked for."""
    seat_player, score_player = Seat.player.field, Score.player.field
    for table in tables:
        for seat in table.seats.all():
            if seat.player_id in players:
                seat_player.set_cached_value(seat, players[seat.player_id])
        result = getattr(table, "result", None)  # none yet: the reverse one-to-one raises
        if result is not None:
            for score in result.scores.all():
                if score.player_id in players:
                    score_player.set_cached_value(score, players[score.player_id])


@dataclass
class Progress:
    done: int
    total: int
    entered: int
    disputed: int


def progress(tables: list[TableHand]) -> Progress:
    return progress_of([t.status for t in tables])


def progress_of(statuses: list[str]) -> Progress:
    """The hand's progress from its tables' statuses alone (a result's message reads only
    those: no table objects built for it)."""
    done = (TableHand.Status.CONFIRMED, TableHand.Status.NOT_PLAYED)  # as TableHand.is_done
    return Progress(
        done=sum(status in done for status in statuses),
        total=len(statuses),
        entered=statuses.count(TableHand.Status.ENTERED),
        disputed=statuses.count(TableHand.Status.DISPUTED),
    )


def hand_scores(drive: Drive) -> QuerySet[Score]:
    """Every score of the drive, for the per-hand export (one query): by hand and table, each
    table's in seat order (a result's scores are written in seat order: their ids)."""
    return (
        Score.objects.filter(drive=drive)
        .select_related("player", "result", "result__table", "result__entered_by", "result__confirmed_by")
        .annotate(reviewed=Exists(Correction.objects.filter(result=OuterRef("result"))),
                  corrected=Exists(Correction.objects.filter(result=OuterRef("result"), changed=True)))
        .order_by("hand_number", "result__table__number", "pk")
    )


def score_card_players(drive: Drive) -> list[Player]:
    """Paper score cards: for every player in the drive and each who left after playing; no bot."""
    return ranking.by_name(drive.players.filter(
        Q(active=True) | Exists(Score.objects.filter(played(), player=OuterRef("pk"))), bot__isnull=True))


def score_cards(drive: Drive, players: list[Player], hands: range) -> list[tuple[Player, list[tuple]]]:
    """Each player's paper score card: a line per hand, (hand, table, points, the game's facts,
    running total) of confirmed results, blank where none is yet (paper fallback, or record); a
    table recorded as not played says so, its zeros no hand (as the standings count it)."""
    facts = drive.game_rules.facts
    recorded: dict[int, dict[int, Score]] = {}
    for score in Score.objects.filter(drive=drive, counted=True).select_related("result__table"):
        recorded.setdefault(score.player_id, {})[score.hand_number] = score
    cards = []
    for player in players:
        total, lines = 0, []
        for number in hands:
            score = recorded.get(player.pk, {}).get(number)
            if score is None:
                lines.append((number, "", "", ["" for _ in facts], ""))
                continue
            if "not_played" in score.result.summary:
                lines.append((number, score.result.table.number, "not played", ["" for _ in facts], total))
                continue
            total += score.points
            lines.append((number, score.result.table.number, score.points,
                          [int(score.details.get(f.key, 0)) for f in facts], total))
        cards.append((player, lines))
    return cards


# --- phones and the board ----------------------------------------------------------------------


@dataclass
class Move:
    direction: str  # "up", "down", "stay" or "new"
    from_table: int | None
    to_table: int
    text: str


def moves_into(drive: Drive, hand: Hand | None, tables: list[TableHand]) -> dict[int, Move]:
    """How each player seated in ``hand`` got there from the previous hand (two queries)."""
    if hand is None:
        return {}
    before = dict(
        Seat.objects.filter(hand__drive=drive, hand__number=hand.number - 1).values_list("player_id", "table__number")
    )
    moves: dict[int, Move] = {}
    for table in tables:
        for seat in table.seats.all():
            moves[seat.player_id] = _move(None if hand.number == 1 else before.get(seat.player_id), table.number)
    return moves


def _move(was: int | None, now: int) -> Move:
    """From Table ``was`` in the hand before (None: the first hand, or new to the drive) to ``now``."""
    if was is None:
        return Move("new", None, now, f"Sit at Table {now}")
    direction = movement.UP if now < was else movement.DOWN if now > was else movement.STAY
    return Move(direction, was, now, movement.describe((direction, was, now)))


def move_words(hand: Hand, player_id: int, table: int) -> str:
    """Where the player seated at Table ``table`` in ``hand`` goes, in words within a sentence:
    "move UP to Table 2", "stay at Table 3", "sit at Table 1" (the first hand, or new to the
    drive). One query. A game screen waiting for the hand says it, as the close's instruction
    did (else its "Move UP to Table 2" would give way to "sit at Table 1" at the screen's
    next look, and never come to a phone away at the close)."""
    was = None if hand.number == 1 else (
        Seat.objects.filter(hand__drive_id=hand.drive_id, hand__number=hand.number - 1, player_id=player_id)
        .values_list("table__number", flat=True).first())
    text = _move(was, table).text
    return text[:1].lower() + text[1:]


@dataclass
class PhoneState:
    player: Player
    hand: Hand | None
    table: TableHand | None
    mates: list[str]
    move: Move | None
    ranked: ranking.Ranked | None
    standings_frozen: bool
    # The drive over and its prizes revealed (``Drive.prizes_revealed``: a phone names none before
    # the board's prize-giving): the player wins the winner's prize (``winners``: with how many), and the
    # titles of the other prizes they take (``prizes``). Bots and leavers are ranked like anyone
    # but win none (``ahead_win_none``: one who may not, ``ranking.wins_prizes``, is ranked above
    # a winner or the runner-up, the prizes given from the top; the booby prize's, say, it is not).
    winners: int = 0
    prizes: tuple[str, ...] = ()
    ahead_win_none: bool = False

    @property
    def with_text(self) -> str:
        """HTML: "Ann, Bob and Cy", the table's other players, each name isolated (common.bidi)."""
        names = [bdi(name) for name in self.mates]
        if len(names) <= 1:
            return names[0] if names else ""
        return format_html("{} and {}", format_html_join(", ", "{}", ((n,) for n in names[:-1])), names[-1])

    @property
    def stood_in(self) -> str:
        """What the player's page says while a bot plays their seat of the hand on the phones
        (``digital.set_stand_in``); "" when none does."""
        bots = (self.table.bots or []) if self.table is not None else []
        mine = any(s.player_id == self.player.pk and s.position in bots for s in self.table.seats.all()) if bots else False
        return STOOD_IN if mine else ""


@dataclass
class DriveView:
    """Everything the live screens show of a drive, read once (a fixed number of queries)."""

    drive: Drive
    hand: Hand | None
    tables: list[TableHand]
    progress: Progress
    ranked: list[ranking.Ranked]
    frozen_at: int | None  # suspense: standings shown as after this hand
    moves: dict[int, Move]
    players: list[Player]
    # Results phones sent for hands already closed, for the organiser to apply or set aside
    # (``results.keep_late_entry``): the organiser's view only (none in the room's).
    late_entries: tuple[LateEntry, ...] = ()

    @cached_property
    def prizes(self) -> list[PrizeList]:
        return prizes(self.drive, self.ranked)

    @cached_property
    def placed(self) -> int:
        """How many have a place in the standings shown (a hand played): a phone's "9th of 11"."""
        return sum(1 for r in self.ranked if r.row.hands_played)

    def waiting(self) -> list[Player]:
        """Active players not seated in the current hand (they are seated at the next one)."""
        if self.hand is None:
            return []
        seated = {s.player_id for t in self.tables for s in t.seats.all()}
        return [p for p in self.players if p.active and p.pk not in seated]

    @cached_property
    def _table_of(self) -> dict[int, TableHand]:
        return {s.player_id: t for t in self.tables for s in t.seats.all()}

    @cached_property
    def _ranked_of(self) -> dict[int, ranking.Ranked]:
        return {r.row.player_id: r for r in self.ranked}

    def phone(self, player: Player) -> PhoneState:
        table = self._table_of.get(player.pk)
        mates = [s.player.name for s in table.seats.all() if s.player_id != player.pk] if table else []
        ranked = self._ranked_of.get(player.pk)
        # A prize is the organiser's to announce (the board's prize-giving): a phone names none
        # before it, whether or not the last hands' standings were hidden.
        won = [p for p in self.prizes if any(r.row.player_id == player.pk for r in p.ranked)] if (
            self.drive.is_finished and self.drive.prizes_revealed and ranked is not None) else []
        winners = len(won[0].ranked) if won and won[0].key == "winners" else 0
        return PhoneState(player, self.hand, table, mates, self.moves.get(player.pk), ranked, self.frozen_at is not None,
                          winners, tuple(p.title for p in won[1 if winners else 0:]),
                          any(p.key in ("winners", "runner_up") for p in won)
                          and any(r.rank < ranked.rank and not ranking.wins_prizes(r) for r in self.ranked))


@dataclass
class Elsewhere:
    """Where a player goes whose game screen shows no hand of theirs now (a page left open on a
    finished hand on the phones): the current hand's number, a sentence saying where they
    play, and the words of the button to their phone's page."""

    hand: int
    text: str
    button: str
    # The hand whose end the screen may still show (their table's result): the last once the
    # drive is over, the one before the current hand while that is not started; else None.
    last_played: int | None = None


def elsewhere(drive: Drive, player: Player) -> Elsewhere:
    """For a player with no seat at a table on the phones in the drive's current hand (one
    query, two with a hand, three when it is about to start): what their game screen tells
    them instead."""
    hand = current_hand(drive)
    number = hand.number if hand is not None else 0
    if drive.is_finished:
        frozen = suspense_from(drive)
        if frozen is not None and number > frozen:  # hidden until the prizes are revealed, as drive_view says
            return Elsewhere(number, "The drive has finished: the winners are revealed on the board.", "Back to the drive",
                             number)
        return Elsewhere(number, "The drive has finished: your page shows your final place.", "See your final place",
                         number)
    if hand is None:
        return Elsewhere(0, "The seating has not been drawn yet: your page says where to sit once it is.",
                         "Back to the drive")
    started = hand.status != Hand.Status.SEATING
    last = None if started else number - 1
    seat = Seat.objects.filter(hand=hand, player=player).select_related("table").first()
    if seat is None:
        return Elsewhere(number, f"Hand {number} {'has started' if started else 'is about to start'}: you are not "
                                 "at a table in it. Your page says when you are seated.", "Back to the drive", last)
    table = seat.table.number
    if started:
        text = (f"Hand {number} has started: you are at Table {table}, playing with cards. "
                "Enter or confirm its result on your page.")
    else:
        text = f"Hand {number} is about to start: {move_words(hand, player.pk, table)}, where it is played with cards."
    return Elsewhere(number, text, f"Go to hand {number}", last)


def suspense_from(drive: Drive) -> int | None:
    """With suspense on, the board's (and phones') standings stay as after this hand number,
    until the organiser reveals the prizes once the drive has finished (and after that, also
    while the board is back on the standings)."""
    if not drive.suspense_hands or drive.target == Drive.Target.TOTAL or (drive.is_finished and drive.prizes_revealed):
        return None
    last_open = drive.target_hands - drive.suspense_hands
    return max(last_open, 0)


def standings_after(drive: Drive, hand_number: int) -> list[ranking.Ranked]:
    return ranking.rank(_rows(drive, Q(scores__counted=True, scores__hand_number__lte=hand_number)))


def late_entries_of(drive: Drive, table: TableHand) -> list[LateEntry]:
    """The results phones sent for ``table`` after its hand's close, not yet applied or set aside."""
    if drive.is_finished:
        return []
    return list(LateEntry.objects.filter(drive=drive, table=table, settled=False).select_related("player"))


def drive_view(drive: Drive, *, public: bool = False) -> DriveView:
    """``public``: as the room sees it (the board, phones), with suspense applied."""
    hand = current_hand(drive)
    players = ranking.by_name(drive.players.select_related("bot"))
    tables = tables_of(hand, players)
    frozen_at = suspense_from(drive) if public else None
    if frozen_at is not None and hand is not None and hand.number > frozen_at:
        ranked = standings_after(drive, frozen_at)
    else:
        frozen_at = None
        ranked = standings(drive)
    late = () if public or drive.is_finished else tuple(
        LateEntry.objects.filter(drive=drive, settled=False).select_related("player", "table__hand"))
    return DriveView(
        drive=drive, hand=hand, tables=tables, progress=progress(tables), ranked=ranked,
        frozen_at=frozen_at, moves=moves_into(drive, hand, tables), players=players, late_entries=late,
    )
