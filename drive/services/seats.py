"""The seating shown between hands: drawn, swapped, tables switched between cards and phones.

Each function is atomic and locks the drive's row first; refusals raise ``DriveError``.
"""

from __future__ import annotations


import random
from collections.abc import Sequence

from django.db import transaction
from django.db.models import Count, Prefetch

from common.bidi import isolate
from drive import live, movement, seating
from games.base import and_list
from drive.selectors import current_hand
from drive.models import Drive, Player, new_seed
from tables.models import BotPlayer, Hand, Seat, TableHand
from drive.services.base import DriveError, StaleForm, check_shown_hand, lock

# --- seating ----------------------------------------------------------------------------------


def seating_of(hand: Hand) -> tuple[list[list[str]], dict[int, str]]:
    """The hand's seating as lists of player ids (as strings), and each table's play mode."""
    tables = hand.tables.order_by("number").prefetch_related(
        Prefetch("seats", queryset=Seat.objects.order_by("position"))
    )
    seating_ = [[str(s.player_id) for s in t.seats.all()] for t in tables]
    modes = {t.number: t.play_mode for t in tables}
    return seating_, modes


def create_hand(drive: Drive, number: int, seating_: Sequence[Sequence[str]], modes: dict[int, str]) -> Hand:
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


def reseat_if_between_hands(drive: Drive, *, resize: bool = False) -> str:
    """The seating shown re-formed for who is in the drive now (``rebalance``); what that changed
    for the players already seated, in words ("" when nothing: see ``_changes``)."""
    hand = current_hand(drive)
    if hand is None or hand.status != Hand.Status.SEATING:
        return ""
    seating_, modes = seating_of(hand)
    before = drive.hands.filter(number=hand.number - 1).first()
    if before is None:
        rebalanced = rebalance(drive, seating_, resize=resize)
    else:
        moved_up = dict(before.tables.values_list("number", "moved_up_id"))
        movers = [str(moved_up[n]) for n in sorted(moved_up)] if None not in moved_up.values() else None
        rebalanced = rebalance(drive, seating_, resize=resize, before=seating_of(before)[0], movers=movers)
    if rebalanced == seating_:
        return ""
    _reseat(drive, hand, rebalanced, modes)
    return _changes(drive, hand, seating_, rebalanced, modes)


MOVES_NAMED = 6  # more moves than this are counted, not named (the dashboard shows the seating)


def _changes(drive: Drive, hand: Hand, before: list[list[str]], after: list[list[str]], modes: dict[int, str]) -> str:
    """What a re-formed seating changed for the players seated before it: who changes table, and
    the tables that play on the phones now because a bot sits there (a player taken out can
    move a bot to a table with cards, which then turns digital: that is said)."""
    was = {pid: number for number, table in enumerate(before, start=1) for pid in table}
    moved = [(pid, number) for number, table in enumerate(after, start=1) for pid in table
             if pid in was and was[pid] != number]
    words = []
    if len(moved) > MOVES_NAMED:
        words.append(f"The seating shown for hand {hand.number} changed: {len(moved)} players change tables.")
    elif moved:
        names = dict(drive.players.filter(pk__in=[int(pid) for pid, _ in moved]).values_list("pk", "name"))
        words.append(f"The seating shown for hand {hand.number} changed: "
                     f"{and_list([f'{isolate(names[int(pid)])} to Table {number}' for pid, number in moved])}.")
    words.append(sent_to_the_phones(drive, after, modes))
    return " ".join(w for w in words if w)


def sent_to_the_phones(drive: Drive, seating_: Sequence[Sequence[str]], modes: dict[int, str]) -> str:
    """In words, the tables of ``seating_`` that play on the phones because a bot sits there and
    that played with cards (``modes``, by table number; a new table: the drive's mode); "" for
    none. Said after a close or a re-formed seating (a bot moved to a table with cards turns
    it digital, and the organiser is told)."""
    bots = {str(pid) for pid in BotPlayer.objects.filter(player__drive=drive).values_list("player_id", flat=True)}
    phones = [n for n, table in enumerate(seating_, start=1)
              if bots.intersection(table) and modes.get(n, drive.play_mode) != TableHand.PlayMode.DIGITAL]
    if not phones:
        return ""
    return (f"{seating.table_words(phones)} now play{'s' if len(phones) == 1 else ''} on the phones: a bot sits "
            f"there, and a bot holds no cards.")


def hand_sent_to_the_phones(drive: Drive, hand: Hand) -> str:
    """``sent_to_the_phones`` for a hand's seating against the hand before it."""
    before = drive.hands.filter(number=hand.number - 1).first()
    if before is None:
        return ""
    return sent_to_the_phones(drive, seating_of(hand)[0], seating_of(before)[1])


def table_limits(drive: Drive) -> tuple[int, int]:
    """The smallest and largest table the drive's game is played at."""
    return drive.game_rules.min_players, drive.game_rules.max_players


def rebalance(drive: Drive, seating_: list[list[str]], *, resize: bool = False,
              before: Sequence[Sequence[str]] | None = None,
              movers: Sequence[str] | None = None) -> list[list[str]]:
    """Seat active unseated players, unseat withdrawn ones (seating.rebalance's documented rule).
    With nobody arriving or leaving the seating stays as it is (a table the organiser filled
    with bots beyond the players per table keeps them), unless ``resize``: the players per
    table have changed, and the tables are re-formed to them. ``before``: the last hand's
    seating, and ``movers`` its tables' movers: whoever changed table since, and each table's
    mover and the player on the mover's left (their phones were told to stay or go: a player
    taken out must not send Table 1's winner, told to stay, down), move again only when nobody
    else can."""
    active = {str(pid) for pid in drive.players.filter(active=True).values_list("id", flat=True)}
    seated = [p for table in seating_ for p in table]
    add = sorted(active - set(seated), key=int)
    remove = [p for p in seated if p not in active]
    if not add and not remove and not resize:
        return seating_
    try:
        return seating.rebalance(seating_, add=add, remove=remove, preferred=drive.preferred_table_size,
                                 sizes=table_limits(drive), keep=_movers(before or [], seating_) | (movement.told(before, movers) if before and movers else set()))
    except ValueError as exc:
        raise DriveError(str(exc)) from None


def _movers(before: Sequence[Sequence[str]], after: Sequence[Sequence[str]]) -> set[str]:
    """Who sits at another table in ``after`` than in ``before``."""
    was = {p: t for t, table in enumerate(before) for p in table}
    return {p for t, table in enumerate(after) for p in table if p in was and was[p] != t}


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
    drive = lock(drive)
    hand = _seating_shown(drive, "The players per table change between hands: change them once hand {number} "
                                 "is closed, and the seating shown for the next hand is re-formed.")
    if hand is None:
        return None
    modes = seating_of(hand)[1]
    reseat_if_between_hands(drive, resize=True)
    live.drive_changed(drive.pk)
    sizes = [str(n) for n in hand.tables.order_by("number").annotate(n=Count("seats")).values_list("n", flat=True)]
    listed = sizes[0] if len(sizes) == 1 else f"{', '.join(sizes[:-1])} and {sizes[-1]}"
    # A bot now at a table that played with cards sends it to the phones: said, as a swap says it.
    phones = sent_to_the_phones(drive, seating_of(hand)[0], modes)
    return " ".join(part for part in (f"Saved: the seating for hand {hand.number} now has tables of {listed}.", phones)
                    if part)


def drive_game_changed(drive: Drive) -> str | None:
    """Another game, chosen on the drive's page before the first hand (saved in the caller's
    transaction): the seating shown is re-formed as for another table size only when one of its
    tables has more or fewer players than the new game seats (bots added to make a table of
    seven, and a game of six at most chosen); else it stays as the organiser left it. Returns
    what the organiser is told, or None."""
    drive = lock(drive)
    hand = current_hand(drive)
    if hand is None or hand.status != Hand.Status.SEATING:
        return None
    low, high = table_limits(drive)
    sizes = hand.tables.annotate(n=Count("seats")).values_list("n", flat=True)
    if all(low <= n <= high for n in sizes):
        return None
    return drive_table_size_changed(drive)


@transaction.atomic
def draw_seating(drive: Drive, rng: random.Random | None = None, *, shown_hand: int | None = None) -> Hand:
    """Random draw of the active players into tables for hand 1 (again, if hand 1 has not started).
    Refused once the drive has finished: one ended before its first hand has no hand left, and a
    draw would start it again."""
    drive = lock(drive)
    if drive.is_finished:
        raise DriveError("This drive has finished: no seating is drawn for it.")
    hand = current_hand(drive)
    check_shown_hand(drive, hand, shown_hand)
    if hand is not None and (hand.number > 1 or hand.status != Hand.Status.SEATING):
        raise DriveError("The seating can only be drawn before the first hand starts.")
    game = drive.game_rules
    ids = [str(pid) for pid in drive.players.filter(active=True).order_by("id").values_list("id", flat=True)]
    if len(ids) < game.min_players:
        raise DriveError(f"Add at least {game.min_players} players before drawing the seating.")
    if rng is None and hand is not None:  # drawn again: a new draw, not the same one from the same seed
        drive.seed = new_seed()
        drive.save(update_fields=["seed"])
    rng = rng or random.Random(drive.seed)
    try:
        seating_ = seating.draw(ids, drive.preferred_table_size, rng, table_limits(drive))
    except ValueError as exc:
        raise DriveError(str(exc)) from None
    if hand is None:
        hand = create_hand(drive, 1, seating_, {})
        drive.status = Drive.Status.PLAYING
        drive.save(update_fields=["status"])
    else:
        _reseat(drive, hand, seating_, {})
    live.drive_changed(drive.pk)
    return hand


@transaction.atomic
def swap_players(drive: Drive, a: Player, b: Player, *, shown_hand: int | None = None,
                 shown_seating: str | None = None) -> str:
    """Swap two players' seats in the seating shown before a hand starts. ``shown_seating``: the
    seating's ``seating.stamp`` as the organiser's page showed it; a seating changed since (a
    swap from another tab, which the same swap again would undo; an arrival) is refused.
    Returns, in words, a table with cards that a bot swapped to sends to the phones
    (``sent_to_the_phones``; "" for none)."""
    drive = lock(drive)
    hand = current_hand(drive)
    check_shown_hand(drive, hand, shown_hand)
    if hand is None or hand.status != Hand.Status.SEATING:
        raise DriveError("Players can be swapped only between hands, before the next hand starts.")
    seating_, modes = seating_of(hand)
    if shown_seating is not None and shown_seating != seating.stamp(seating_):
        raise StaleForm(f"The seating for hand {hand.number} has changed since this page showed it (a swap from "
                        "another page, a player arriving or leaving): nothing was swapped. Look again.")
    try:
        swapped = seating.swap(seating_, str(a.pk), str(b.pk))
    except ValueError:
        raise DriveError("Pick two different players who are both seated.") from None
    _reseat(drive, hand, swapped, modes)
    live.drive_changed(drive.pk)
    return sent_to_the_phones(drive, swapped, modes)


@transaction.atomic
def set_table_mode(drive: Drive, table_number: int, mode: str, *, shown_hand: int | None = None) -> None:
    drive = lock(drive)
    hand = current_hand(drive)
    check_shown_hand(drive, hand, shown_hand)
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
    drive = lock(drive)
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
