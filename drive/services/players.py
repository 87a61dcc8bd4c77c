"""Players and their names, their phones, and bots: who is in the drive.

Each function is atomic and locks the drive's row first; refusals raise ``DriveError`` with a
message meant for the organiser (or the phone), and nothing is changed then.
"""

from __future__ import annotations


import unicodedata
from dataclasses import dataclass
from datetime import timedelta
from collections.abc import Iterable

from django.db import IntegrityError, transaction
from django.db.models import Exists, OuterRef, Q
from django.utils import timezone

from common.bidi import isolate
from drive import broadcast, live
from drive.models import Drive, Player, new_token
from scoring.models import Score, played
from tables import digital, screen_facts
from tables.models import BotPlayer, Hand, Seat, TableHand
from drive.services.base import DriveError, lock
from drive.services.names import clean_name, has_control_characters, name_key, parse_names, read_names
from drive.services.seats import current_hand, reseat_if_between_hands

# Players in one drive: 125 tables of four, beyond any hall this is for (the benchmarks measure
# 400: docs/benchmarks.md); 3,000 pasted names made a dashboard of a second and a half. Those
# who count are the players in it and those who left after playing (in the standings); one taken
# out before playing any hand holds no place (``places_held``), or names a phone typed in as a
# prank, once taken out, would have filled the drive for good. The names it keeps all the same
# (to bring one back; a rude name taken out stays refused) are bounded too, by ``MAX_NAMES``.
MAX_PLAYERS = 500
MAX_NAMES = 1000



@transaction.atomic
def add_names(drive: Drive, text: str) -> tuple[list[Player], list[tuple[str, str]], str]:
    """The organiser's pasted list: every name that can be added is (``add_players``); the others
    come back with why, ``(added, [(name, reason), ...], reseated)``: too long, already in the
    drive, or beyond what a drive holds (one reason for those); a name the list itself has already
    (any case: "Zed" then "zed") comes back as one already in the drive does. ``reseated``: what
    seating the newcomers changed for the players already seated, in words ("")."""
    drive = lock(drive)
    names, refused, repeats = read_names(text)
    existing = {name_key(p.name): p.name for p in drive.players.only("name")}
    fresh = []
    for name in names:
        if name_key(name) in existing:
            kept = existing[name_key(name)]
            spelt = f" (as “{isolate(kept)}”)" if kept != name else ""
            refused.append((name, f"“{isolate(name)}” is in this drive already{spelt}: add an initial to tell them apart."))
        else:
            fresh.append(name)
    for name, first in repeats:
        where, kept = ("drive", existing[name_key(name)]) if name_key(name) in existing else ("list", first)
        # "(as Zed)" only when the name kept is spelt otherwise: never "Ann … (as Ann)".
        spelt = f" (as “{isolate(kept)}”)" if kept != name else ""
        refused.append((name, f"“{isolate(name)}” is in this {where} already{spelt}: add an initial to tell them apart."))
    room = max(0, min(MAX_PLAYERS - places_held(drive), MAX_NAMES - len(existing)))
    over = fresh[room:]
    if over:  # one reason for them all (3,000 names pasted said it 2,800 times)
        plural = "names are" if len(over) > 1 else "name is"
        said = f"The last {len(over)} {plural} over the {MAX_PLAYERS} players a drive holds."
        if len(existing) + room >= MAX_NAMES:
            said = f"The last {len(over)} {plural} over the {MAX_NAMES} names a drive keeps, those taken out included."
        refused.extend((name, said) for name in over)
    fresh = fresh[:room]
    if not fresh and not refused:
        raise DriveError("Give at least one name.")
    added, reseated = _add_players(drive, fresh) if fresh else ([], "")
    return added, refused, reseated


@transaction.atomic
def join_phone(drive: Drive, *, player_id: int | None = None, new_name: str | None = None,
               taking_over: bool = False, phone_key: str = "") -> Player:
    """A phone joins the drive as a player, in one transaction under the drive's lock: the name
    tapped in the join list (``player_id``: refused when it has left, or a phone has taken it
    meanwhile: two phones tapping one name at once), a name the phone adds itself (``new_name``,
    as typed: ``own_name``; ``add_players``), or ``taking_over``: the player of a private link,
    whose earlier phone (if any) was signed out by the caller (after the drive has finished too:
    the phone then keeps the player's final place). ``phone_key`` (``drive.access.phone_key``):
    the phone that joined as a player sending its join again (its answer, with the player's
    cookie, lost on the way) gets that player back, nothing written; any other phone is refused."""
    again = None if taking_over else _joined_by(drive, phone_key, player_id=player_id, name=new_name)
    if again is not None:  # (before the name's checks: self-join may have been turned off since)
        return again
    typed = own_name(drive, new_name) if new_name is not None else None  # the text's work before the lock
    drive = lock(drive)
    if drive.is_finished and not taking_over:
        raise DriveError("This drive has finished.")
    if typed is not None:
        if not drive.allow_self_join:  # (as it stands now, under the lock)
            raise DriveError(SELF_JOIN_OFF)
        player = add_players(drive, [typed], by_phone=True)[0]
    else:
        player = drive.players.filter(pk=player_id, bot__isnull=True).first()
        if player is None or (not player.active and not taking_over):
            raise DriveError("Pick your name from the list.")
        if player.phone_joined_at is not None and not taking_over:
            raise DriveError(f"{isolate(player.name)} has already joined on a phone. If that is you on a new phone, "
                             "ask the organiser for your private link.")
        if player.link_only and not taking_over:
            raise DriveError(f"The organiser signed {isolate(player.name)}'s phone out: only {isolate(player.name)}'s "
                             "private link joins as them now. If that is you, ask the organiser for it.")
    player.phone_joined_at = timezone.now()
    player.link_only = False
    player.phone_key = phone_key
    player.save(update_fields=["phone_joined_at", "link_only", "phone_key"])
    live.drive_changed(drive.pk)
    _tell_table_of(drive, player)
    return player


# How long after a phone joins as a player its join sent again (its answer lost, the page
# reloaded) gets that player back (``join_phone``): the moment of a lost answer, not an evening.
JOIN_AGAIN_WITHIN = timedelta(minutes=10)


def _joined_by(drive: Drive, phone_key: str, *, player_id: int | None, name: str | None) -> Player | None:
    """The player (tapped by id, or typed by name) this very phone joined as within
    ``JOIN_AGAIN_WITHIN``, still joined and in the drive."""
    if not phone_key or (player_id is None and not isinstance(name, str)):
        return None
    joined = drive.players.filter(active=True, phone_key=phone_key,
                                  phone_joined_at__gte=timezone.now() - JOIN_AGAIN_WITHIN)
    if player_id is not None:
        return joined.filter(pk=player_id).first()
    return next((p for p in joined if name_key(p.name) == name_key(name)), None)


SELF_JOIN_OFF = "Ask the organiser to add your name."


def own_name(drive: Drive, typed: str) -> str:
    """The one name a phone typed for itself, cleaned: refused unless the organiser lets phones
    add names (``drive`` as the caller read it; ``join_phone`` asks again under the lock), or
    unless it is one name of letters. Outside the lock: its text may be long."""
    if not drive.allow_self_join:
        raise DriveError(SELF_JOIN_OFF)
    if has_control_characters(typed):
        raise DriveError("Type your name with letters, not control characters.")
    names = parse_names(typed)
    if not names:  # (nothing but invisible characters)
        raise DriveError("Type your name.")
    if len(names) != 1:  # (commas and new lines separate names, as in the organiser's list)
        raise DriveError("Type just your own name, with no comma in it (John Smith, not Smith, John)."
                         if "," in unicodedata.normalize("NFKC", typed) else "Type just your own name.")
    return names[0]


def _tell_table_of(drive: Drive, player: Player) -> None:
    """The player's phone joined or was signed out: their table on the phones, if they sit at
    one now, shows whether the hand waits for a player with no phone (``tables.screen_facts.seat_names``)."""
    seat = screen_facts.digital_seat_of(drive, player)
    if seat is not None:
        digital.tell_seats(seat.table_id)


def _tell_tables_played_by(drive: Drive, player: Player) -> None:
    """The player left the drive or rejoined it: their table on the phones in the current hand
    and, while the next hand's seating is shown, in the hand just closed (whose screens stay
    open between hands) say so, a finished hand's words for its mover being "has left the
    drive" or where they move (``drive.ending.moves_after``)."""
    hands = list(drive.hands.order_by("-number").values_list("pk", "status")[:2])
    if hands and hands[0][1] != Hand.Status.SEATING:
        hands = hands[:1]
    tables = Seat.objects.filter(hand_id__in=[pk for pk, _status in hands], player=player,
                                 table__play_mode=TableHand.PlayMode.DIGITAL).values_list("table_id", flat=True)
    for table_id in tables:
        digital.tell_seats(table_id)


@transaction.atomic
def add_players(drive: Drive, names: Iterable[str], *, by_phone: bool = False) -> list[Player]:
    """Add players by name. Names already in the drive (any case) are refused, not duplicated.

    Between hands the newcomers are seated at once (rebalancing the shown seating); during a
    hand they are seated when it closes. ``by_phone``: a phone added its own name (self-join);
    such a player who leaves the phone before playing a hand leaves the drive (``leave_phone``).
    """
    return _add_players(drive, names, by_phone=by_phone)[0]


def _add_players(drive: Drive, names: Iterable[str], *, by_phone: bool = False) -> tuple[list[Player], str]:
    """``add_players``, and what the seating shown changed for those seated already, in words."""
    drive = lock(drive)
    if drive.is_finished:
        raise DriveError("This drive has finished.")
    names = [name for name in map(clean_name, names) if name]
    if not names:
        raise DriveError("Give at least one name.")
    existing = {name_key(n): n for n in drive.players.values_list("name", flat=True)}
    new = [n for n in names if name_key(n) not in existing]  # (a name the drive has is said below, as such)
    held = places_held(drive) if new else 0
    if new and held >= MAX_PLAYERS:
        raise DriveError(f"This drive is full: it holds at most {MAX_PLAYERS} players.")
    if held + len(new) > MAX_PLAYERS:
        raise DriveError(f"A drive holds at most {MAX_PLAYERS} players: it has {held}, "
                         f"and these {len(new)} names would make {held + len(new)}.")
    if len(existing) + len(new) > MAX_NAMES:
        raise DriveError(f"This drive has had {len(existing)} names, those taken out included, and keeps at most "
                         f"{MAX_NAMES}: it takes no more.")
    clashes = [n for n in names if name_key(n) in existing]
    if clashes and by_phone and len(names) == 1:
        # The one player of that name (a drive's names differ by more than capitals).
        same = next(p for p in drive.players.all() if name_key(p.name) == name_key(names[0]))
        if not same.active and same.added_by_phone and not has_played(same):
            # A name a phone added and then left before playing (typed on the wrong phone, say)
            # left the drive with it: typed again on a phone, it comes back instead of being refused.
            # (One the organiser took out is no longer a phone's: ``withdraw_player``.)
            return [same], rejoin_player(drive, same)
        if same.active and same.link_only:
            raise DriveError(f"{isolate(same.name)} is on the list already, and only their private link joins as "
                             "them now: if that is you, ask the organiser for it. If not, add an initial to tell "
                             "you apart.")
        if same.active and same.phone_joined_at is None:  # most likely that very player, typing instead of tapping
            raise DriveError(f"{isolate(same.name)} is on the list already: if that is you, tap your name "
                             "in the list. If not, add an initial to tell you apart.")
        if not same.active:  # taken out by the organiser: the same person, most likely
            raise DriveError(f"Already in this drive: {isolate(same.name)}, who has left it. If that is you, ask "
                             "the organiser to bring you back (your points are kept); if not, add an initial "
                             "to tell you apart.")
    if clashes:  # named as the drive holds them ("Ann", for "ann" typed)
        raise DriveError(f"Already in this drive: {', '.join(isolate(existing[name_key(n)]) for n in clashes)}. "
                         "Add an initial to tell them apart.")
    try:
        players = [Player.objects.create(drive=drive, name=name, added_by_phone=by_phone) for name in names]
    except IntegrityError:
        raise DriveError("Two of those names are the same apart from capitals.") from None
    reseated = reseat_if_between_hands(drive)
    live.drive_changed(drive.pk)
    return players, reseated


@dataclass(frozen=True)
class Withdrawn:
    """A player taken out: ``stays``, whether they stay in the standings (they have played);
    ``reseated``, what the seating shown between hands changed for the others, in words ("");
    ``bot_at``, the table whose seat of theirs a bot now plays out (a hand on the phones), or None."""

    stays: bool
    reseated: str
    bot_at: int | None = None


@transaction.atomic
def withdraw_player(drive: Drive, player: Player, *, by_phone: bool = False) -> Withdrawn:
    """A player leaves: their scores stay; they are unseated between hands, or at the next close.
    ``Withdrawn.stays`` when they stay in the standings (``has_played``); a player
    withdrawn before playing any hand is in none. ``by_phone``: the name's own phone left it
    (``leave_phone``); taken out by the organiser, a name a phone added is the organiser's from
    then on (``added_by_phone`` cleared): typed again on a phone it is refused, not brought back
    (else a rude name comes back as often as any phone types it)."""
    drive = lock(drive)
    if drive.is_finished:
        raise DriveError("This drive has finished: its final standings are frozen.")
    if player.drive_id != drive.pk:
        raise DriveError("That player is not in this drive.")
    if not player.active:
        raise DriveError(f"{isolate(player.name)} has already left.")
    if drive.status != Drive.Status.SETUP and drive.players.filter(active=True).count() <= 2:
        raise DriveError("A drive needs at least two players.")
    stays = has_played(player)
    player.active = False
    player.added_by_phone = player.added_by_phone and by_phone
    player.save(update_fields=["active", "added_by_phone"])
    reseated = reseat_if_between_hands(drive)
    bot_at = _bot_plays_for(drive, player)
    if bot_at is None:  # (a bot given their seat tells the table itself)
        _tell_tables_played_by(drive, player)
    live.drive_changed(drive.pk)
    # Its open pages close (and, reloaded, say the organiser took the player out): left open,
    # the phone's page would go on as if the player were waiting for the next hand.
    withdrawn = broadcast.signed_out_message(player.pk, withdrawn=True)
    transaction.on_commit(lambda: broadcast.send_many([withdrawn]), robust=True)
    return Withdrawn(stays, reseated, bot_at)


@transaction.atomic
def rejoin_player(drive: Drive, player: Player) -> str:
    """A player who left comes back: seated at once between hands, else at the next close.
    Returns what the seating shown changed for the others, in words ("" for nothing)."""
    drive = lock(drive)
    if drive.is_finished:
        raise DriveError("This drive has finished: its final standings are frozen.")
    if player.drive_id != drive.pk or player.active:
        raise DriveError("That player is already playing.")
    if not has_played(player) and places_held(drive) >= MAX_PLAYERS:
        raise DriveError(f"This drive is full: it holds at most {MAX_PLAYERS} players. Take someone out to bring "
                         f"{isolate(player.name)} back.")
    player.active = True
    player.save(update_fields=["active"])
    reseated = reseat_if_between_hands(drive)
    _tell_tables_played_by(drive, player)
    live.drive_changed(drive.pk)
    return reseated


def _bot_plays_for(drive: Drive, player: Player) -> int | None:
    """A player who leaves in the middle of a hand played on the phones: a bot plays their seat
    for the rest of it (the seat and its score stay theirs; their phone can no longer move, as
    a withdrawn player's can enter or confirm no result), so the table is not left waiting for
    them. Rejoining does not give it back by itself (the organiser may have had a bot play it
    before, for a phone that died): the table's "A player has left?" does, as for any stand-in.
    (A bot's own seat is always the server's.) Returns the table's number, or None when no
    bot plays for them."""

    hand = current_hand(drive)
    if hand is None or hand.status != Hand.Status.PLAYING or BotPlayer.objects.filter(player=player).exists():
        return None
    seat = Seat.objects.filter(hand=hand, player=player).select_related("table").first()
    if seat is None:
        return None
    try:
        digital.set_stand_in(drive, seat.table_id, seat.position, True)
    except digital.DigitalError:  # a table with cards, or its hand is over: nothing to play for them
        return None
    return seat.table.number


@transaction.atomic
def revoke_phone(drive: Drive, player: Player, *, by_phone: bool = False) -> Player:
    """Sign the player's phone out: a new token, so the old cookie and private link stop working.
    By the organiser, only the new private link joins as the player after that (``link_only``:
    the name cannot be tapped in the join list, or a lost phone would tap it and be theirs
    again). ``by_phone``: the phone left by itself (``leave_phone``): the name is free to be
    picked on a phone again, and its open pages are told so instead of "the organiser signed it
    out"."""
    drive = lock(drive)
    if player.drive_id != drive.pk:
        raise DriveError("That player is not in this drive.")
    if player.is_bot:  # (the Phones page lists no bot: an address made by hand)
        raise DriveError(f"{isolate(player.name)} is a bot: it has no phone and no private link.")
    if by_phone and not drive.players.filter(pk=player.pk, token=player.token).exists():
        return player  # signed out by the organiser meanwhile: the phone holds them no longer
    player.token = new_token()
    # Only a phone that held the name is locked out; a new link for a player who never joined
    # leaves the name free to tap (no phone held it).
    player.link_only = not by_phone and (player.link_only or player.phone_joined_at is not None)
    player.phone_joined_at = None
    player.phone_key = ""
    player.save(update_fields=["token", "phone_joined_at", "link_only", "phone_key"])
    # Its open sockets (live updates, a digital seat) close at once, not at their next reconnect;
    # then the rest of its table hears that the seat waits for a phone.
    revoked = broadcast.signed_out_message(player.pk, left=by_phone)
    transaction.on_commit(lambda: broadcast.send_many([revoked]), robust=True)
    _tell_table_of(drive, player)
    return player


def _played(player) -> Q:
    """``has_played`` as a filter on players (``player``: the player, or ``OuterRef("pk")``)."""
    return (Exists(Score.objects.filter(played(), player=player))
            | Exists(Seat.objects.filter(player=player, hand__status=Hand.Status.PLAYING)))


def has_played(player: Player) -> bool:
    """Whether the player has played a hand (``scoring.models.played``) or sits at a table of the
    hand being played, whose result may yet count for them: one who leaves then stays in the
    standings and holds a place; one who has not is in no standings, holds no place, and a name
    their phone added leaves the drive with the phone (``leaving_leaves_drive``)."""
    return Player.objects.filter(_played(player.pk), pk=player.pk).exists()


def places_held(drive: Drive) -> int:
    """The drive's players who hold one of its ``MAX_PLAYERS`` places: those in it, and those who
    left after playing (``has_played``: they stay in the standings). One query."""
    return drive.players.filter(Q(active=True) | _played(OuterRef("pk"))).count()


def leaving_leaves_drive(player: Player) -> bool:
    """Whether "Leave this phone" takes the player out of the drive too: a name a phone added,
    never played (``leave_phone``; also what its confirmation says)."""
    return player.active and player.added_by_phone and not has_played(player)


@transaction.atomic
def leave_phone(drive: Drive, player: Player) -> bool:
    """The phone's own "Leave this phone": signed out as by the organiser (``revoke_phone``), so
    the name can be picked again. A player who added their own name and has played no hand
    leaves the drive as well (``withdraw_player``: a mistaken or made-up name is never seated).
    True when they did. Refused once the drive has finished: nobody can join it any more, so
    leaving would only take the player's final place off their phone."""
    drive = lock(drive)
    if drive.is_finished:
        raise DriveError(f"The drive has finished: this phone stays {isolate(player.name)}'s, to show the final "
                         "place. Nobody can join now, so there is nothing to leave.")
    if not drive.players.filter(pk=player.pk, token=player.token).exists():
        return False  # the organiser signed the phone out meanwhile: it holds nobody to leave
    revoke_phone(drive, player, by_phone=True)
    if not leaving_leaves_drive(player):
        return False
    try:
        withdraw_player(drive, player, by_phone=True)
    except DriveError:  # the drive needs at least two players: the name stays, unjoined
        return False
    return True


@transaction.atomic
def add_bot(drive, table_id: int):
    """Seat a new bot ("Bot 1", "Bot 2"…) at a digital table of the seating shown between hands.

    Refused: the hand has started, the table plays with cards, or the table is full (the game's
    most players at a table).
    A bot is a player of the drive (it scores and moves like anyone) marked by ``BotPlayer``.
    """
    drive = lock(drive)
    if drive.is_finished:
        raise DriveError("This drive has finished.")
    try:
        table = TableHand.objects.select_for_update().select_related("hand").get(pk=table_id, hand__drive=drive)
    except TableHand.DoesNotExist:
        raise DriveError("That table is not part of this drive.") from None
    if table.hand.status != Hand.Status.SEATING or drive.hands.filter(number__gt=table.hand.number).exists():
        raise DriveError("Bots can join a table only between hands, before the next hand starts.")
    if table.play_mode != TableHand.PlayMode.DIGITAL:
        raise DriveError(f"Table {table.number} plays with cards: switch it to the phones first.")
    seats = table.seats.count()
    game = drive.game_rules
    if seats >= game.max_players:
        raise DriveError(f"Table {table.number} is full: {game.name} is played by at most {game.max_players} "
                         "at a table.")
    taken = {name_key(n) for n in drive.players.values_list("name", flat=True)}
    if places_held(drive) >= MAX_PLAYERS:
        raise DriveError(f"This drive is full: it holds at most {MAX_PLAYERS} players, bots included.")
    if len(taken) >= MAX_NAMES:
        raise DriveError(f"This drive has had {len(taken)} names, those taken out included, and keeps at most "
                         f"{MAX_NAMES}: it takes no more, a bot's included.")
    number = 1
    while f"bot {number}" in taken:
        number += 1
    player = Player.objects.create(drive=drive, name=f"Bot {number}")
    BotPlayer.objects.create(player=player)
    Seat.objects.create(table=table, hand=table.hand, player=player, position=seats)
    table.bots = sorted({*(table.bots or []), seats})
    table.save(update_fields=["bots", "updated_at"])
    live.drive_changed(drive.pk)
    return player
