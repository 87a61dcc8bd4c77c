"""Every write of the drive: set-up, seating, the hand cycle, results and corrections.

Each function is atomic and locks the drive's row first, so two organiser clicks (or a phone
and the organiser) can never interleave a close with an entry. Refusals raise ``DriveError``
with a message meant for the organiser; nothing is changed then.
"""

from __future__ import annotations

import random
import re
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import asdict

from django.db import IntegrityError, transaction
from django.db.models import Count, Prefetch, Sum
from django.utils import timezone

from config.bidi import isolate
from drive import broadcast, live, movement, seating
from drive.models import Drive, Player, new_seed, new_token
from games import GameError, get_game
from games.base import Outcome
from scoring import services as scoring
from scoring.models import Result, Score
from tables.models import BotPlayer, Hand, Seat, TableHand

MAX_NAME = 40
# Players in one drive, active or not: 125 tables of four, beyond any hall this is for (the
# benchmarks measure 400: docs/benchmarks.md); 3,000 pasted names made a dashboard of a
# second and a half.
MAX_PLAYERS = 500


class DriveError(Exception):
    """A refused request; the message says what is wrong and what to do."""


class StaleForm(DriveError):
    """A form shown for another hand (or table) than the one it would now act on: refused, and
    nothing written. A page's script recognises it (``"stale": true`` in JSON answers)."""


class NotThisPlayersForm(StaleForm):
    """A phone's form shown to another player than the one its cookie names now (an entry left
    queued on the phone, then "Leave this phone" and someone else joined), or naming no player:
    refused like any stale form, and nothing written. Its own kind, so that a page's script does
    not say the hand had moved on (``"player": true`` beside ``"stale": true`` in JSON answers)."""


def _hand_now(hand: Hand | None) -> str:
    if hand is None:
        return "no seating has been drawn"
    if hand.status == Hand.Status.SEATING:
        return f"the seating for hand {hand.number} is shown"
    if hand.status == Hand.Status.PLAYING:
        return f"hand {hand.number} has started"
    return f"hand {hand.number} is over"


def check_shown_hand(hand: Hand | None, shown: int | None) -> None:
    """The organiser's form acts on the hand it showed (``shown``; 0 before any seating), or on
    nothing: a stale page (a second tab, the back button) is refused. ``None``: no form (the
    demo, the tests' set-ups), nothing to check."""
    current = hand.number if hand is not None else 0
    if shown is not None and shown != current:
        raise StaleForm(f"{_hand_now(hand).capitalize()}; this page showed hand {shown}. Look again.")


# --- set-up -----------------------------------------------------------------------------------


def _lock(drive: Drive) -> Drive:
    """The drive's row, locked against the other services' writes until the commit. (PostgreSQL:
    FOR NO KEY UPDATE, which a result's or a score's foreign key check, FOR KEY SHARE, does not
    wait for: a digital table's last move holds its table's lock and then inserts its result,
    while a service holding the drive may then lock that table; FOR UPDATE would make a cycle.)"""
    return Drive.objects.select_for_update(no_key=True).get(pk=drive.pk)


# Invisible characters a name keeps (they shape what is shown: joiners of emoji and of Persian
# or Indic letters, emoji presentation, the tags of subdivision flags) but that two names may
# not differ in alone.
_SHAPING = {0x200C, 0x200D, 0xFE0E, 0xFE0F, *range(0xE0020, 0xE0080)}
# Invisible or blank characters a name drops: Unicode's default-ignorable code points (besides
# the format characters, Cf, dropped by category; U+2065, among the Cf ones but unassigned, is
# listed) and the Braille blank.
_IGNORED = {0x00AD, 0x034F, 0x115F, 0x1160, 0x17B4, 0x17B5, *range(0x180B, 0x1810), 0x2065, 0x2800, 0x3164,
            *range(0xFE00, 0xFE10), 0xFFA0, *range(0xFFF0, 0xFFF9), *range(0x1BCA0, 0x1BCA4),
            *range(0x1D173, 0x1D17B), *range(0xE0000, 0xE1000)}


def clean_name(raw: str) -> str:
    """A name as stored: Unicode's compatibility form (NFKC: full-width letters, ligatures),
    without invisible characters (zero-width spaces, soft hyphens, direction overrides, fillers)
    except those that shape what is shown (``_SHAPING``), single spaces. Empty when nothing
    visible is left."""
    name = "".join(c for c in unicodedata.normalize("NFKC", raw)
                   if ord(c) in _SHAPING or (ord(c) not in _IGNORED and unicodedata.category(c) != "Cf"))
    name = " ".join(name.split())
    return name if _visible(name) else ""


def _visible(name: str) -> str:
    """The name without its shaping characters; empty when nothing but marks would be left (a
    combining accent with no letter to sit on shows as nothing, or as a dotted circle)."""
    shown = "".join(c for c in name if ord(c) not in _SHAPING)
    return shown if any(not unicodedata.category(c).startswith("M") and not c.isspace() for c in shown) else ""


def name_key(name: str) -> str:
    """What two names must differ in to be told apart: "Ann", "ANN", "An\u00adn" and "Ann\u200b"
    are one name. (Letters of other scripts that look alike, a Cyrillic "а" for a Latin "a",
    are not caught.)"""
    return _visible(clean_name(name)).casefold()


def parse_names(text: str) -> list[str]:
    """Names from pasted text: one per line (commas also separate); blanks and repeats dropped.
    Split after the compatibility fold (NFKC, as each name is stored): a full-width comma
    ("Smith，John") would otherwise become a comma inside one name."""
    names: list[str] = []
    seen: set[str] = set()
    for raw in unicodedata.normalize("NFKC", text).replace(",", "\n").splitlines():
        name = clean_name(raw)
        if not name:
            continue
        if len(name) > MAX_NAME:
            raise DriveError(f"“{isolate(name[:20] + '…')}” is too long: names have at most {MAX_NAME} characters.")
        if name_key(name) not in seen:
            seen.add(name_key(name))
            names.append(name)
    return names


@transaction.atomic
def add_players(drive: Drive, names: Iterable[str], *, by_phone: bool = False) -> list[Player]:
    """Add players by name. Names already in the drive (any case) are refused, not duplicated.

    Between hands the newcomers are seated at once (rebalancing the shown seating); during a
    hand they are seated when it closes. ``by_phone``: a phone added its own name (self-join);
    such a player who leaves the phone before playing a hand leaves the drive (``leave_phone``).
    """
    drive = _lock(drive)
    if drive.is_finished:
        raise DriveError("This drive has finished.")
    names = [name for name in map(clean_name, names) if name]
    if not names:
        raise DriveError("Give at least one name.")
    existing = {name_key(n) for n in drive.players.values_list("name", flat=True)}
    if len(existing) >= MAX_PLAYERS:
        raise DriveError(f"This drive is full: it holds at most {MAX_PLAYERS} players.")
    if len(existing) + len(names) > MAX_PLAYERS:
        raise DriveError(f"A drive holds at most {MAX_PLAYERS} players: it has {len(existing)}, "
                         f"and these {len(names)} names would make {len(existing) + len(names)}.")
    clashes = [n for n in names if name_key(n) in existing]
    if clashes and by_phone and len(names) == 1:
        # The one player of that name (a drive's names differ by more than capitals).
        same = next(p for p in drive.players.all() if name_key(p.name) == name_key(names[0]))
        if not same.active and same.added_by_phone and not has_played(same):
            # A name a phone added and then left before playing (typed on the wrong phone, say)
            # left the drive with it: typed again on a phone, it comes back instead of being refused.
            rejoin_player(drive, same)
            return [same]
        if same.active and same.phone_joined_at is None:  # most likely that very player, typing instead of tapping
            raise DriveError(f"{isolate(same.name)} is on the list already: if that is you, tap your name "
                             "in the list. If not, add an initial to tell you apart.")
        if not same.active:  # taken out by the organiser: the same person, most likely
            raise DriveError(f"Already in this drive: {isolate(same.name)}, who has left it. If that is you, ask "
                             "the organiser to bring you back (your points are kept); if not, add an initial "
                             "to tell you apart.")
    if clashes:
        raise DriveError(f"Already in this drive: {', '.join(map(isolate, clashes))}. "
                         "Add an initial to tell them apart.")
    try:
        players = [Player.objects.create(drive=drive, name=name, added_by_phone=by_phone) for name in names]
    except IntegrityError:
        raise DriveError("Two of those names are the same apart from capitals.") from None
    _reseat_if_between_hands(drive)
    live.drive_changed(drive.pk)
    return players


@transaction.atomic
def withdraw_player(drive: Drive, player: Player) -> None:
    """A player leaves: their scores stay; they are unseated between hands, or at the next close."""
    drive = _lock(drive)
    if drive.is_finished:
        raise DriveError("This drive has finished: its final standings are frozen.")
    if player.drive_id != drive.pk:
        raise DriveError("That player is not in this drive.")
    if not player.active:
        raise DriveError(f"{isolate(player.name)} has already left.")
    if drive.status != Drive.Status.SETUP and drive.players.filter(active=True).count() <= 2:
        raise DriveError("A drive needs at least two players.")
    player.active = False
    player.save(update_fields=["active"])
    _reseat_if_between_hands(drive)
    _bot_plays_for(drive, player)
    live.drive_changed(drive.pk)
    # Its open pages close (and, reloaded, say the organiser took the player out): left open,
    # the phone's page would go on as if the player were waiting for the next hand.
    withdrawn = broadcast.signed_out_message(player.pk, withdrawn=True)
    transaction.on_commit(lambda: broadcast.send_many([withdrawn]), robust=True)


@transaction.atomic
def rejoin_player(drive: Drive, player: Player) -> None:
    drive = _lock(drive)
    if drive.is_finished:
        raise DriveError("This drive has finished: its final standings are frozen.")
    if player.drive_id != drive.pk or player.active:
        raise DriveError("That player is already playing.")
    player.active = True
    player.save(update_fields=["active"])
    _reseat_if_between_hands(drive)
    live.drive_changed(drive.pk)


def _bot_plays_for(drive: Drive, player: Player) -> None:
    """A player who leaves in the middle of a hand played on the phones: a bot plays their seat
    for the rest of it (the seat and its score stay theirs; their phone can no longer move, as
    a withdrawn player's can enter or confirm no result), so the table is not left waiting for
    them. Rejoining does not give it back by itself (the organiser may have had a bot play it
    before, for a phone that died): the table's "A player has left?" does, as for any stand-in.
    (A bot's own seat is always the server's.)"""
    from tables import digital

    hand = current_hand(drive)
    if hand is None or hand.status != Hand.Status.PLAYING or BotPlayer.objects.filter(player=player).exists():
        return
    seat = Seat.objects.filter(hand=hand, player=player).first()
    if seat is None:
        return
    try:
        digital.set_stand_in(drive, seat.table_id, seat.position, True)
    except digital.DigitalError:  # a table with cards, or its hand is over: nothing to play for them
        pass


@transaction.atomic
def revoke_phone(drive: Drive, player: Player, *, by_phone: bool = False) -> Player:
    """Sign the player's phone out: a new token, so the old cookie and private link stop working,
    and the name is free to be picked on a phone again. ``by_phone``: the phone left by itself
    (``leave_phone``), which its open pages are told instead of "the organiser signed it out"."""
    drive = _lock(drive)
    if player.drive_id != drive.pk:
        raise DriveError("That player is not in this drive.")
    player.token = new_token()
    player.phone_joined_at = None
    player.save(update_fields=["token", "phone_joined_at"])
    # Its open sockets (live updates, a digital seat) close at once, not at their next reconnect.
    revoked = broadcast.signed_out_message(player.pk, left=by_phone)
    transaction.on_commit(lambda: broadcast.send_many([revoked]), robust=True)
    return player


def has_played(player: Player) -> bool:
    """Whether the player has a seat in a hand that started, or any score."""
    return (Score.objects.filter(player=player).exists()
            or Seat.objects.filter(player=player).exclude(hand__status=Hand.Status.SEATING).exists())


@transaction.atomic
def leave_phone(drive: Drive, player: Player) -> bool:
    """The phone's own "Leave this phone": signed out as by the organiser (``revoke_phone``), so
    the name can be picked again. A player who added their own name and has played no hand
    leaves the drive as well (``withdraw_player``: a mistaken or made-up name is never seated).
    True when they did. Refused once the drive has finished: nobody can join it any more, so
    leaving would only take the player's final place off their phone."""
    drive = _lock(drive)
    if drive.is_finished:
        raise DriveError(f"The drive has finished: this phone stays {isolate(player.name)}'s, to show the final "
                         "place. Nobody can join now, so there is nothing to leave.")
    revoke_phone(drive, player, by_phone=True)
    if not player.active or not player.added_by_phone or has_played(player):
        return False
    try:
        withdraw_player(drive, player)
    except DriveError:  # the drive needs at least two players: the name stays, unjoined
        return False
    return True


@transaction.atomic
def show_prizes(drive: Drive, show: bool) -> None:
    drive = _lock(drive)
    if show and not drive.is_finished:
        raise DriveError("The prizes are revealed once the drive has finished.")
    if show and not drive.final_standings:  # ended before any hand was played
        raise DriveError("No hand was played in this drive: there are no prizes to reveal.")
    drive.show_prizes = show
    drive.save(update_fields=["show_prizes"])
    live.drive_changed(drive.pk)


# --- seating ----------------------------------------------------------------------------------


def current_hand(drive: Drive) -> Hand | None:
    return drive.hands.order_by("-number").first()


def _seating_of(hand: Hand) -> tuple[list[list[str]], dict[int, str]]:
    """The hand's seating as lists of player ids (as strings), and each table's play mode."""
    tables = hand.tables.order_by("number").prefetch_related(
        Prefetch("seats", queryset=Seat.objects.order_by("position"))
    )
    seating_ = [[str(s.player_id) for s in t.seats.all()] for t in tables]
    modes = {t.number: t.play_mode for t in tables}
    return seating_, modes


def _create_hand(drive: Drive, number: int, seating_: Sequence[Sequence[str]], modes: dict[int, str]) -> Hand:
    hand = Hand.objects.create(drive=drive, number=number)
    _seat(drive, hand, seating_, modes)
    return hand


def _seat(drive: Drive, hand: Hand, seating_: Sequence[Sequence[str]], modes: dict[int, str]) -> None:
    """Each table keeps its number's play mode, except that a table where a bot sits (one that
    moved, or was swapped, from a table on the phones) plays on the phones: a bot cannot hold cards."""
    bots = {str(pid) for pid in BotPlayer.objects.filter(player__drive=drive).values_list("player_id", flat=True)}
    tables = TableHand.objects.bulk_create(
        TableHand(hand=hand, number=n, play_mode=TableHand.PlayMode.DIGITAL if bots.intersection(players)
                  else modes.get(n, drive.play_mode))
        for n, players in enumerate(seating_, start=1)
    )
    Seat.objects.bulk_create(
        Seat(table=table, hand=hand, player_id=int(pid), position=pos)
        for table, players in zip(tables, seating_)
        for pos, pid in enumerate(players)
    )


def _reseat(drive: Drive, hand: Hand, seating_: Sequence[Sequence[str]], modes: dict[int, str]) -> None:
    hand.tables.all().delete()
    _seat(drive, hand, seating_, modes)


def _reseat_if_between_hands(drive: Drive, *, resize: bool = False) -> None:
    hand = current_hand(drive)
    if hand is None or hand.status != Hand.Status.SEATING:
        return
    seating_, modes = _seating_of(hand)
    rebalanced = _rebalanced(drive, seating_, resize=resize)
    if rebalanced != seating_:
        _reseat(drive, hand, rebalanced, modes)


def _rebalanced(drive: Drive, seating_: list[list[str]], *, resize: bool = False) -> list[list[str]]:
    """Seat active unseated players, unseat withdrawn ones (seating.rebalance's documented rule).
    With nobody arriving or leaving the seating stays as it is (a table the organiser filled
    with bots beyond the players per table keeps them), unless ``resize``: the players per
    table have changed, and the tables are re-formed to them."""
    active = {str(pid) for pid in drive.players.filter(active=True).values_list("id", flat=True)}
    seated = [p for table in seating_ for p in table]
    add = sorted(active - set(seated), key=int)
    remove = [p for p in seated if p not in active]
    if not add and not remove and not resize:
        return seating_
    try:
        return seating.rebalance(seating_, add=add, remove=remove, preferred=drive.preferred_table_size)
    except ValueError as exc:
        raise DriveError(str(exc)) from None


def _seating_shown(drive: Drive, refusal: str) -> Hand | None:
    """Of a locked drive, the hand whose seating is shown (None: none is); during a hand a
    change of the drive's tables is refused, ``refusal`` naming the hand (``{number}``)."""
    hand = current_hand(drive)
    if hand is not None and hand.status == Hand.Status.PLAYING:
        raise DriveError(refusal.format(number=hand.number))
    return hand if hand is not None and hand.status == Hand.Status.SEATING else None


@transaction.atomic
def drive_table_size_changed(drive: Drive) -> str | None:
    """The players per table, changed on the drive's page (saved in the caller's transaction).
    Between hands the seating shown is re-formed at once (``seating.rebalance``: as few players
    move as for a late arrival); during a hand it is refused, as the drive's play mode is (a
    close keeps its tables). Returns what the organiser is told, or None when no seating is shown."""
    drive = _lock(drive)
    hand = _seating_shown(drive, "The players per table change between hands: change them once hand {number} "
                                 "is closed, and the seating shown for the next hand is re-formed.")
    if hand is None:
        return None
    _reseat_if_between_hands(drive, resize=True)
    live.drive_changed(drive.pk)
    sizes = [str(n) for n in hand.tables.order_by("number").annotate(n=Count("seats")).values_list("n", flat=True)]
    listed = sizes[0] if len(sizes) == 1 else f"{', '.join(sizes[:-1])} and {sizes[-1]}"
    return f"Saved: the seating for hand {hand.number} now has tables of {listed}."


@transaction.atomic
def draw_seating(drive: Drive, rng: random.Random | None = None, *, shown_hand: int | None = None) -> Hand:
    """Random draw of the active players into tables for hand 1 (again, if hand 1 has not started).
    Refused once the drive has finished: one ended before its first hand has no hand left, and a
    draw would start it again."""
    drive = _lock(drive)
    if drive.is_finished:
        raise DriveError("This drive has finished: no seating is drawn for it.")
    hand = current_hand(drive)
    check_shown_hand(hand, shown_hand)
    if hand is not None and (hand.number > 1 or hand.status != Hand.Status.SEATING):
        raise DriveError("The seating can only be drawn before the first hand starts.")
    game = get_game(drive.game)
    ids = [str(pid) for pid in drive.players.filter(active=True).order_by("id").values_list("id", flat=True)]
    if len(ids) < game.min_players:
        raise DriveError(f"Add at least {game.min_players} players before drawing the seating.")
    if rng is None and hand is not None:  # drawn again: a new draw, not the same one from the same seed
        drive.seed = new_seed()
        drive.save(update_fields=["seed"])
    rng = rng or random.Random(drive.seed)
    try:
        seating_ = seating.draw(ids, drive.preferred_table_size, rng)
    except ValueError as exc:
        raise DriveError(str(exc)) from None
    if hand is None:
        hand = _create_hand(drive, 1, seating_, {})
        drive.status = Drive.Status.PLAYING
        drive.save(update_fields=["status"])
    else:
        _reseat(drive, hand, seating_, {})
    live.drive_changed(drive.pk)
    return hand


@transaction.atomic
def swap_players(drive: Drive, a: Player, b: Player, *, shown_hand: int | None = None) -> None:
    """Swap two players' seats in the seating shown before a hand starts."""
    drive = _lock(drive)
    hand = current_hand(drive)
    check_shown_hand(hand, shown_hand)
    if hand is None or hand.status != Hand.Status.SEATING:
        raise DriveError("Players can be swapped only between hands, before the next hand starts.")
    seating_, modes = _seating_of(hand)
    try:
        _reseat(drive, hand, seating.swap(seating_, str(a.pk), str(b.pk)), modes)
    except ValueError:
        raise DriveError("Pick two different players who are both seated.") from None
    live.drive_changed(drive.pk)


@transaction.atomic
def set_table_mode(drive: Drive, table_number: int, mode: str, *, shown_hand: int | None = None) -> None:
    drive = _lock(drive)
    hand = current_hand(drive)
    check_shown_hand(hand, shown_hand)
    if hand is None or hand.status != Hand.Status.SEATING:
        raise DriveError("A table's mode can be changed only between hands.")
    if mode not in TableHand.PlayMode.values:
        raise DriveError("Unknown play mode.")
    bot = (BotPlayer.objects.filter(player__seats__table__hand=hand, player__seats__table__number=table_number)
           .select_related("player").first())
    if bot is not None and mode == TableHand.PlayMode.PHYSICAL:
        raise DriveError(f"{isolate(bot.player.name)} sits at Table {table_number}: "
                         "a table with a bot plays on the phones.")
    if not hand.tables.filter(number=table_number).update(play_mode=mode):
        raise DriveError(f"There is no Table {table_number}.")
    live.drive_changed(drive.pk)


@transaction.atomic
def drive_play_mode_changed(drive: Drive, mode: str) -> str | None:
    """The drive's play mode, changed on its page (saved in the caller's transaction), for the
    seating shown: each table keeps its own mode from hand to hand, so without this "Saved."
    changed no table at all. Between hands every table of the seating shown takes it (a table
    where a bot sits stays on the phones); during a hand it is refused, as a table's own mode
    is. Returns what the organiser is told, or None when no seating is shown."""
    drive = _lock(drive)
    hand = _seating_shown(drive, "The tables' play mode changes between hands: change it once hand {number} "
                                 "is closed (or a single table's, on its card, then).")
    if hand is None:
        return None
    if mode not in TableHand.PlayMode.values:
        raise DriveError("Unknown play mode.")
    with_bots = sorted(set(hand.tables.filter(seats__player__bot__isnull=False).values_list("number", flat=True)))
    hand.tables.exclude(number__in=with_bots).update(play_mode=mode)
    live.drive_changed(drive.pk)
    how = "on the phones" if mode == TableHand.PlayMode.DIGITAL else "with cards"
    note = f"Saved: every table of the seating for hand {hand.number} now plays {how}."
    if with_bots and mode == TableHand.PlayMode.PHYSICAL:
        numbers = ", ".join(map(str, with_bots))
        note += (f" Table {numbers} stays on the phones: a bot sits there." if len(with_bots) == 1
                 else f" Tables {numbers} stay on the phones: bots sit there.")
    return note


# --- the hand cycle ---------------------------------------------------------------------------


@transaction.atomic
def start_hand(drive: Drive, *, shown_hand: int | None = None) -> Hand:
    drive = _lock(drive)
    hand = current_hand(drive)
    if drive.is_finished:
        raise DriveError("This drive has finished.")
    check_shown_hand(hand, shown_hand)
    if hand is None:
        raise DriveError("Draw the seating first.")
    if hand.status != Hand.Status.SEATING:
        raise DriveError(f"Hand {hand.number} is already under way.")
    if _target_reached(drive, hand.number - 1):
        # Reached since the last close: the target was lowered on the drive's page, or a
        # correction took someone to the total. The drive ends at its target, not a hand later.
        raise DriveError("The drive has reached its target: end the drive now, or raise its target on "
                         "the drive's page to play on.")
    hand.status = Hand.Status.PLAYING
    hand.started_at = timezone.now()
    hand.save(update_fields=["status", "started_at"])
    from tables import digital  # digital tables are dealt by the rules engine; their bots start on commit

    digital.deal_hand(drive, hand)
    live.drive_changed(drive.pk)
    live.hand_started(hand)
    return hand


def _players_at(table: TableHand) -> list[Player]:
    return [seat.player for seat in table.seats.select_related("player").order_by("position")]


_SEAT = re.compile(r"\bSeat (\d+)\b")


def outcome_for(drive: Drive, players: int, summary: dict, names: Sequence[str] | None = None) -> Outcome:
    """The game's outcome for an entered summary; a refused entry becomes a DriveError. The game
    names a seat by its number from 0 ("Seat 2: …"); with the seated players' ``names`` the
    message names the player instead, as the form does."""
    game = get_game(drive.game, drive.house_rules)
    try:
        return game.outcome_from_summary(players, summary)
    except GameError as exc:
        message = str(exc)
        if names:
            message = _SEAT.sub(lambda m: isolate(names[int(m[1])]) if int(m[1]) < len(names) else m[0], message)
        raise DriveError(message) from None


def _table_for_update(drive: Drive, table_id: int) -> TableHand:
    try:
        return TableHand.objects.select_for_update().select_related("hand").get(pk=table_id, hand__drive=drive)
    except TableHand.DoesNotExist:
        raise DriveError("That table is not part of this drive.") from None


def refuse_paper_result_on_the_phones(table: TableHand) -> None:
    """A table still played on the phones takes no paper result: its phones would go on showing
    the hand; the engine (or the bell) records its result itself."""
    if table.on_the_phones:
        raise DriveError(f"Table {table.number} is playing on the phones: its result enters the drive by itself "
                         "when the hand ends. To end it now, close the hand (the bell scores it).")


@transaction.atomic
def organiser_result(drive: Drive, table: TableHand, summary: dict, user, reason: str = "",
                     seen_revision: int | None = None) -> Result:
    """The organiser enters a table's result (from paper), or corrects one (a reason is required).

    ``seen_revision``: the revision of the result the organiser's form showed (0: it showed no
    result); a result changed since (a phone's new entry, the same correction sent twice, a
    result recorded while an empty form was open) is refused, not overwritten. A
    correction that changes nothing is refused too, unless it settles an entry not yet
    confirmed (disputed, say) by keeping it as it is: it is confirmed, with the reason logged."""
    drive = _lock(drive)
    if drive.is_finished:
        raise DriveError("The drive has finished: its final standings are frozen.")
    table = _table_for_update(drive, table.pk)
    if table.hand.status == Hand.Status.SEATING:
        raise DriveError(f"Hand {table.hand.number} has not started yet.")
    players = _players_at(table)
    outcome = outcome_for(drive, len(players), summary, [p.name for p in players])
    existing = Result.objects.filter(table=table).first()
    if existing is None:
        if table.hand.status == Hand.Status.CLOSED:
            raise DriveError("That hand is closed.")
        refuse_paper_result_on_the_phones(table)
        result = scoring.record_result(
            table=table, players=players, hand_number=table.hand.number, outcome=outcome,
            summary=summary, source=Result.Source.ORGANISER, confirmed=True,
        )
    else:
        as_entered = {k: v for k, v in existing.summary.items() if k != "digital"}  # (the engine's record)
        spec = get_game(drive.game, drive.house_rules).entry_spec(len(players))
        as_it_stands = (_answers(summary, spec) == _answers(as_entered, spec)
                        and existing.status == Result.Status.CONFIRMED)
        if seen_revision == 0:  # typed into an empty form: a result came meanwhile
            if as_it_stands and existing.source == Result.Source.ORGANISER:
                return existing  # this very result sent twice (a double click): saved once, nothing more
            raise DriveError(f"Table {table.number} has a result now that it did not have when you opened this "
                             "page (entered on a phone, or recorded as not played at a close): open it again to "
                             "see it, then correct it if it is wrong.")
        if seen_revision is not None and seen_revision != existing.revision:
            raise DriveError("This result was changed while you were looking at it (a new entry, or this "
                             "correction sent twice): open it again to see it as it stands, then correct it if "
                             "it is still wrong.")
        if as_it_stands:
            raise DriveError("That is the result as it stands: nothing to correct.")
        reason = " ".join((reason or "").split())
        if not reason:
            raise DriveError("Give a reason for the correction: it is kept in the log.")
        result = scoring.replace_result(
            existing, players=players, hand_number=table.hand.number, outcome=outcome,
            summary=summary, by_user=user, reason=reason[:300],
        )
    table.status = TableHand.Status.CONFIRMED
    table.save(update_fields=["status", "updated_at"])
    live.table_changed(table)
    return result


def _answers(summary: dict, spec: dict) -> dict:
    """A result's summary as the entry form answers it: every seat's question answered, those
    left out (a digital hand's record has no second Ice Follies group when there is none) with
    the form's default."""
    defaults = {f["name"]: f["default"] for f in spec.get("seat", []) if "default" in f}
    holdings = summary.get("holdings")
    if not isinstance(holdings, list):
        return summary
    return {**summary, "holdings": [{**defaults, **h} if isinstance(h, dict) else h for h in holdings]}


def _not_played(drive: Drive, table: TableHand) -> None:
    """Forced close of a table with no result: 0 each; movement by the no-declaration rule."""
    players = _players_at(table)
    points = [0] * len(players)
    outcome = Outcome(points=points, mover=movement.mover_for_no_declaration(points, dealer=0))
    scoring.record_result(
        table=table, players=players, hand_number=table.hand.number, outcome=outcome,
        summary={"not_played": True}, source=Result.Source.NOT_PLAYED, confirmed=True,
    )
    table.status = TableHand.Status.NOT_PLAYED
    table.save(update_fields=["status", "updated_at"])


@transaction.atomic
def close_hand(drive: Drive, *, force: bool = False, shown_hand: int | None = None) -> Hand | None:
    """Close the hand in play: apply the movement and show the next hand's seating.

    Without ``force`` every table must be confirmed. With ``force`` entered results are accepted
    as they stand and tables with no result are recorded as not played (0 points each, and the
    no-declaration rule picks who moves: with everyone on 0, the player on seat 1's left).
    A disputed table must be settled first either way. Returns the next hand, or None when the
    drive has reached its target and finished. ``shown_hand``: the hand the organiser's page
    showed (``check_shown_hand``).
    """
    drive = _lock(drive)
    hand = current_hand(drive)
    check_shown_hand(hand, shown_hand)
    if hand is None or hand.status != Hand.Status.PLAYING:
        raise DriveError("There is no hand in play to close.")
    from tables import digital  # the bell ends digital hands still playing: scored, recorded first

    digital.stop_playing_tables(drive, hand)
    tables = list(hand.tables.select_for_update().order_by("number"))
    results = {r.table_id: r for r in Result.objects.filter(table__hand=hand)}
    disputed = [t.number for t in tables if t.status == TableHand.Status.DISPUTED]
    if disputed:
        raise DriveError(f"Settle the dispute at Table {', '.join(map(str, disputed))} first.")
    waiting = [t for t in tables if not t.is_done]
    if waiting and not force:
        names = ", ".join(str(t.number) for t in waiting)
        raise DriveError(f"Waiting for Table {names}. Close anyway to record them as not played.")
    for table in waiting:
        result = results.get(table.pk)
        if result is None:
            _not_played(drive, table)
        else:  # entered but not yet confirmed: the organiser's close accepts it
            scoring.set_status(result, Result.Status.CONFIRMED)
            table.status = TableHand.Status.CONFIRMED
            table.save(update_fields=["status", "updated_at"])
    movers = dict(Result.objects.filter(table__hand=hand).values_list("table__number", "mover_id"))
    hand.status = Hand.Status.CLOSED
    hand.closed_at = timezone.now()
    hand.save(update_fields=["status", "closed_at"])
    live.drive_changed(drive.pk)

    if _target_reached(drive, hand.number):
        _finish(drive)
        return None
    seating_, modes = _seating_of(hand)
    next_seating = movement.move(seating_, [str(movers[n]) for n in range(1, len(seating_) + 1)])
    next_hand = _create_hand(drive, hand.number + 1, _rebalanced(drive, next_seating), modes)
    live.hand_moved(next_hand)  # each phone's instruction at the commit, ahead of the full update
    return next_hand


def _target_reached(drive: Drive, hands_played: int) -> bool:
    by_hands = hands_played >= drive.target_hands
    top = (
        Score.objects.filter(drive=drive, counted=True).values("player").annotate(t=Sum("points"))
        .order_by("-t").values_list("t", flat=True).first()
    ) or 0
    by_total = top >= drive.target_total
    return {
        Drive.Target.HANDS: by_hands,
        Drive.Target.TOTAL: by_total,
        Drive.Target.EITHER: by_hands or by_total,
    }[drive.target]


def _finish(drive: Drive) -> None:
    from drive.selectors import standings_rows  # selectors read; imported here to avoid a cycle

    hand = current_hand(drive)
    if hand is not None and hand.status == Hand.Status.SEATING:
        hand.delete()  # the next hand's seating was shown but never played
    drive.status = Drive.Status.FINISHED
    drive.finished_at = timezone.now()
    # Those who played a hand only: a late arrival added during the last hand (never seated,
    # as the next hand never came) would otherwise be ranked on 0 from 0 hands, and take the
    # booby prize, as a player withdrawn before playing is in no standings.
    drive.final_standings = [asdict(row) for row in standings_rows(drive, live=True) if row.hands_played]
    drive.save(update_fields=["status", "finished_at", "final_standings"])
    live.drive_changed(drive.pk)


@transaction.atomic
def end_drive(drive: Drive) -> None:
    """The organiser ends the drive now. A hand in play must be closed first."""
    drive = _lock(drive)
    if drive.is_finished:
        raise DriveError("This drive has already finished.")
    hand = current_hand(drive)
    if hand is not None and hand.status == Hand.Status.PLAYING:
        raise DriveError(f"Close hand {hand.number} first.")
    _finish(drive)
