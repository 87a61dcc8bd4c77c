"""One access helper per object. Views never check permissions inline."""

from __future__ import annotations

import re

from django.contrib import messages
from django.http import Http404
from django.utils.crypto import salted_hmac
from django.utils.html import format_html

from common import ratelimit
from common.bidi import bdi
from common.db import one_or_none
from drive.models import Drive, Player
from tables.models import TableHand


def drive_for_organiser(request, drive_id: int) -> Drive:
    """The drive if the signed-in user organises it (or is a superuser); 404 otherwise."""
    user = request.user
    if not user.is_authenticated:
        raise Http404
    drives = Drive.objects.all() if user.is_superuser else Drive.objects.filter(organiser=user)
    try:
        return drives.get(pk=drive_id)
    except Drive.DoesNotExist:
        raise Http404("No such drive.") from None


def table_of_drive(drive: Drive, table_id: int) -> TableHand:
    try:
        return TableHand.objects.select_related("hand").get(pk=table_id, hand__drive=drive)
    except TableHand.DoesNotExist:
        raise Http404("No such table in this drive.") from None


def player_of_drive(drive: Drive, player_id: int) -> Player:
    try:
        return drive.players.get(pk=player_id)
    except Player.DoesNotExist:
        raise Http404("No such player in this drive.") from None


# --- players' phones ---------------------------------------------------------------------------
# A phone is remembered by the player's unguessable token in a cookie, one cookie per drive.


PHONE_COOKIE = "ff_phone"  # one browser's own random name, set by the join page (HttpOnly)


def phone_key(request, drive: Drive) -> str:
    """What tells one phone from another before it holds a player's cookie: a digest, for this
    drive, of its own cookie ``PHONE_COOKIE`` (random, HttpOnly: no page script or form shows it),
    "" when it has none. Stored on the player it joined as (``Player.phone_key``)."""
    cookie = request.COOKIES.get(PHONE_COOKIE)
    if not well_formed_token(cookie):
        return ""
    return salted_hmac(f"drive.phone_key.{drive.pk}", cookie, algorithm="sha256").hexdigest()


def player_cookie_name(drive: Drive) -> str:
    return f"ff_{drive.join_code}"


# A phone also remembers the entries it made in the drive, each a result's id and revision
# (signed, so it cannot be forged, and kept whoever the phone is after): a result it entered as
# Pat is not confirmed by it as Quinn after "Leave this phone". Only its own
# entries: one made on another phone, by a player this phone once was, it may confirm.
ENTERED_SALT = "drive.phone-entered"
ENTERED_KEPT = 20  # the latest entries: a phone enters one a hand


def entered_cookie_name(drive: Drive) -> str:
    return f"ff_{drive.join_code}_entered"


def entries_made(request, drive: Drive) -> tuple[tuple[int, int], ...]:
    """(result id, revision) of the entries this phone made in ``drive``, oldest first (none
    when its cookie is missing or forged)."""
    raw = request.get_signed_cookie(entered_cookie_name(drive), default="", salt=ENTERED_SALT)
    pairs = (part.split("_") for part in raw.split("."))
    return tuple((int(p[0]), int(p[1])) for p in pairs if len(p) == 2 and p[0].isdigit() and p[1].isdigit())


# Codes no drive has, asked for by one address in a sliding minute; beyond, ``TooManyCodes``.
# Without a limit a client tried 308 codes a second: every code of five letters in 3.7 hours.
UNKNOWN_CODES_PER_MINUTE = 20


class TooManyCodes(Exception):
    """This address asked for too many codes that no drive has: answered 429 (pages:
    ``config.middleware.UnknownCodes``) or refused (sockets)."""

    def __init__(self):
        super().__init__("Too many codes that no drive has, from this address: wait a minute, then try again.")


def drive_by_code(code: str, asker) -> Drive:
    """The drive with that join code (case-insensitive); 404 for anything else. ``asker`` is the
    request, or a websocket's scope: each code no drive has counts against its address, at most
    ``UNKNOWN_CODES_PER_MINUTE``; beyond, any code it asks for is ``TooManyCodes`` (a drive's
    page answered and an unknown code refused would still tell a guesser which codes exist),
    unless it shows it belongs to that drive: a phone holding one of its players, its organiser."""
    code = code or ""  # (as it came: a code typed in the find form is cleaned there)
    # Plain letters before the upper case: "ſ" (a long s) is "S" in upper case.
    if not (code.isascii() and code.isalpha()) or len(code) > 8:  # no code (/robots.txt, an icon): no guess either
        raise Http404("No drive has that code.")
    code = code.upper()
    limited = ratelimit.over_limit(asker, "code", UNKNOWN_CODES_PER_MINUTE)
    drive = one_or_none(Drive.objects.filter(join_code=code))
    if drive is None:
        if limited or ratelimit.spend_try(asker, "code", UNKNOWN_CODES_PER_MINUTE) is None:
            raise TooManyCodes
        raise Http404("No drive has that code.")
    if limited and not _belongs(asker, drive):
        raise TooManyCodes
    return drive


def _belongs(asker, drive: Drive) -> bool:
    """Whether a request (or a websocket's scope) comes from one of the drive's phones or its
    organiser: they know its code."""
    if isinstance(asker, dict):
        return player_for_scope(asker, drive, active_only=False) is not None or organiser_for_scope(asker, drive)
    user = asker.user
    return (player_for_request(asker, drive, active_only=False) is not None
            or (user.is_authenticated and (user.is_superuser or drive.organiser_id == user.pk)))


TOKEN = re.compile(r"[A-Za-z0-9_-]{1,64}")


def well_formed_token(token: str | None) -> bool:
    """Tokens are URL-safe base64; anything else (NUL bytes included) never reaches the database."""
    return isinstance(token, str) and TOKEN.fullmatch(token) is not None  # ("$" would let "…\n" through)


def player_by_token(drive: Drive, token: str | None, *, active_only: bool = True) -> Player | None:
    """The (active) player of ``drive`` whose token this is, or None. Never a bot: the server
    plays its cards, and no phone may see or play them."""
    if not well_formed_token(token):
        return None
    players = drive.players.filter(token=token, bot__isnull=True)
    return one_or_none(players.filter(active=True) if active_only else players)


def player_for_request(request, drive: Drive, *, active_only: bool = True) -> Player | None:
    return player_by_token(drive, request.COOKIES.get(player_cookie_name(drive)), active_only=active_only)


TAKEN_OUT = "The organiser has taken {} out of the drive. Ask the organiser if you want to play again."
# Once the drive has finished nobody plays again (a player taken out
# was told to ask to play again, under "This drive has finished.").
TAKEN_OUT_ENDED = "The organiser took {} out of the drive before it ended. Its final standings are on the board."


def taken_out_words(drive: Drive) -> str:
    """What a phone holding a player the organiser took out is told (``TAKEN_OUT``), the name left as ``{}``."""
    return TAKEN_OUT_ENDED if drive.is_finished else TAKEN_OUT


def taken_out_name(request, drive: Drive) -> str | None:
    """The name of the player this phone holds if the organiser has taken them out of the drive
    (their pages then say so, with ``TAKEN_OUT``), else None."""
    gone = player_for_request(request, drive, active_only=False)
    return gone.name if gone is not None and not gone.active else None


NOT_JOINED = ("This phone is no longer joined to the drive: pick your name to join again (if the organiser "
              "signed it out, ask them for your private link).")


def say_why_no_player(request, drive: Drive) -> None:
    """A page of the phone's own (its home page, the game screen, the entry form, a confirmation)
    found that the phone holds no player of the drive: taken out (``TAKEN_OUT``), signed out by
    the organiser or by its own "Leave this phone" (``NOT_JOINED``; a phone with no cookie of the
    drive, which may never have joined, is told nothing more than the join page says). Said
    once, on the join page it is sent to (a page reloaded when its socket was closed as signed
    out lands there with the reason, not with a bare list of names)."""
    gone = taken_out_name(request, drive)
    if gone is not None:
        messages.warning(request, format_html(taken_out_words(drive), bdi(gone)))
    elif request.COOKIES.get(player_cookie_name(drive)):  # a phone that never joined: the join page says how
        messages.info(request, NOT_JOINED)


def player_for_scope(scope, drive: Drive, *, active_only: bool = True) -> Player | None:
    """The player behind a websocket (same cookie as the pages). Sync: call via database_sync_to_async."""
    return player_by_token(drive, scope.get("cookies", {}).get(player_cookie_name(drive)), active_only=active_only)


def organiser_for_scope(scope, drive: Drive) -> bool:
    user = scope.get("user")
    return bool(user and user.is_authenticated and (user.is_superuser or drive.organiser_id == user.pk))
