"""Pages for players' phones and the projector. Thin: access helpers, services, selectors."""

from __future__ import annotations

import uuid

from django.conf import settings
from django.contrib import messages
from django.http import Http404, JsonResponse
from django.shortcuts import redirect, render
from django.utils.html import format_html
from django.views.decorators.http import require_http_methods, require_POST

from common.bidi import bdi, isolate
from common.db import one_or_none, write_sync
from common.network import is_this_machine
from common.ratelimit import give_back, over_limit, spend_try
from drive import charts, pages, phone_links, previews, results, selectors, services
from drive.access import (
    ENTERED_KEPT, ENTERED_SALT, NOT_JOINED, drive_by_code, entered_cookie_name, entries_made,
    PHONE_COOKIE, phone_key, player_by_token, player_cookie_name, player_for_request, say_why_no_player,
    taken_out_name, taken_out_words, well_formed_token,
)
from drive.forms import posted_number, without_control_characters
from drive.models import Drive, Player, new_token
from drive.services import DriveError, NotThisPlayersForm, StaleForm
from scoring.forms import ResultForm
from scoring.models import Result
from scoring.standings import by_name
from tables.models import Hand

COOKIE_AGE = 60 * 60 * 24 * 7
COOKIE_OPTIONS = {"max_age": COOKIE_AGE, "httponly": True, "samesite": "Lax"}
JOIN_ATTEMPTS_PER_MINUTE = 20


def _set_cookie(response, name: str, value: str, max_age: int = COOKIE_AGE):
    """The phone pages' cookies: HttpOnly, same-site, secure when the site is."""
    response.set_cookie(name, value, secure=settings.SESSION_COOKIE_SECURE, **{**COOKIE_OPTIONS, "max_age": max_age})
    return response


def _phone_cookie(request, response):
    """The phone's own random name (``access.phone_key``), given once, on the join pages."""
    if not well_formed_token(request.COOKIES.get(PHONE_COOKIE)):
        _set_cookie(response, PHONE_COOKIE, new_token(), max_age=365 * 24 * 60 * 60)
    return response


def _remember(response, drive: Drive, player: Player):
    """The phone is the player's now: their token in its cookie."""
    return _set_cookie(response, player_cookie_name(drive), player.token)


def _remember_entry(request, response, drive: Drive, result: Result):
    """The phone remembers it made this entry (``entries_made``), the latest ``ENTERED_KEPT``."""
    made = [pair for pair in entries_made(request, drive) if pair[0] != result.pk][-(ENTERED_KEPT - 1):]
    made.append((result.pk, result.revision))
    response.set_signed_cookie(entered_cookie_name(drive), ".".join(f"{pk}_{rev}" for pk, rev in made),
                               salt=ENTERED_SALT, secure=settings.SESSION_COOKIE_SECURE, **COOKIE_OPTIONS)
    return response


def find(request):
    """A player who cannot scan the QR code types the drive's code (linked from the sign-in page),
    as the board shows it, spaced out: the spaces (and a stray dot or dash) are not part of it."""
    code = request.GET.get("code", "")
    if not isinstance(code, str) or not code.strip():
        return render(request, "phone/find.html", {})
    try:
        drive = drive_by_code("".join(c for c in code.strip()[:40] if not (c.isspace() or c in ".-·")), request)
    except Http404:
        return render(request, "phone/find.html", {"code": code[:20], "unknown": True}, status=404)
    return redirect("phone:join", code=drive.join_code)


def join(request, code: str):
    drive = drive_by_code(code, request)
    if code != drive.join_code:
        return redirect("phone:join", code=drive.join_code)
    holder = player_for_request(request, drive)  # this phone's player: no other name while it holds one
    # Bots join no phone; names in the order people look for them ("Élodie" among the E's).
    players = by_name(drive.players.filter(active=True, bot__isnull=True))
    return _phone_cookie(request, render(request, "phone/join.html", {
        "drive": drive, "players": players, "holder": holder,
        "leaves_drive": holder is not None and services.leaving_leaves_drive(holder)}))


def _names(player: Player, data) -> bool:
    """Whether a join names ``player``: tapped, or typed as the drive holds the name."""
    if "new_name" in data:
        return isinstance(data["new_name"], str) and services.name_key(data["new_name"]) == services.name_key(player.name)
    return posted_number(data, "player") == player.pk


@require_POST
def claim(request, code: str):
    """A phone picks its name (or adds it, when the organiser allows). Rate-limited."""
    drive = drive_by_code(code, request)
    # The limit is for guessing (a name's id, a typed name): a phone that joins gives its try
    # back, so a room of phones behind one address (a hall's Wi-Fi) joins as many as it holds.
    # Names joined are limited apart (settings.JOINS_PER_ADDRESS a minute, not the laptop's own):
    # a client that throws its cookie away after each name would take every name of a drive of
    # 400 in under a minute.
    spent = spend_try(request, "join", JOIN_ATTEMPTS_PER_MINUTE)
    if spent is None:
        messages.error(request, "Too many tries from this phone. Wait a minute and try again.")
        return redirect("phone:join", code=drive.join_code)
    joins = settings.JOINS_PER_ADDRESS if not is_this_machine(request.META.get("REMOTE_ADDR")) else 0
    if joins and over_limit(request, "joined", joins):
        give_back(spent)
        messages.error(request, "Many phones have just joined from this network: wait a minute and try again.")
        return redirect("phone:join", code=drive.join_code)
    if drive.is_finished:
        messages.error(request, "This drive has finished.")
        return redirect("phone:join", code=drive.join_code)
    holder = player_for_request(request, drive)
    if holder is not None and _names(holder, request.POST):
        give_back(spent)  # its own name again (sent twice): it is theirs
        return redirect("phone:me", code=drive.join_code)
    if holder is not None:  # one phone, one player: first "Leave this phone"
        messages.error(request, format_html("This phone is already {}'s. To join as someone else, "
                                            "first tap “Leave this phone”.", bdi(holder.name)))
        return redirect("phone:join", code=drive.join_code)
    key = phone_key(request, drive)
    try:
        if "new_name" in request.POST:  # the name typed (spaces only: "Type your name.")
            player = services.join_phone(drive, new_name=request.POST["new_name"], phone_key=key)
        else:
            player = services.join_phone(drive, player_id=posted_number(request.POST, "player"), phone_key=key)
    except DriveError as exc:
        messages.error(request, str(exc))
        return redirect("phone:join", code=drive.join_code)
    give_back(spent)
    if joins:
        spend_try(request, "joined", joins)
    return _remember(redirect("phone:me", code=drive.join_code), drive, player)


@require_http_methods(["GET", "HEAD", "POST"])
def private_link(request, code: str, token: str):
    """The organiser's private link for one player. Opened (GET, HEAD), it only says whose the
    phone will be, with a button; the button (a POST, with the CSRF token of the other phone
    forms) makes the phone that player's, and a phone that held another player of the drive
    leaves them first. A messenger's link preview or a mail scanner fetches the link: it must
    neither mark the player joined nor sign another player's phone out."""
    drive = drive_by_code(code, request)
    # The limit is for guessing. Every request is counted before its token is looked up (a
    # wrong token first of all, opened or posted), so guessing is limited as strictly as ever;
    # the page of a valid link then gives its try back, so one use of a link (opened, then
    # Continue) counts once, by its Continue: counting the page as well let a phone (or a room
    # on one Wi-Fi address) use only 10 links a minute. The page that gives its try back leaks
    # nothing the limit kept: a guesser's tries are its wrong tokens, all counted, and a valid
    # token's page is shown only for a token found already. Limited, the phone is told to wait,
    # whatever the link (so a limited guesser cannot tell a good token from a wrong one either):
    # "no longer valid" sent a player with a good link to the organiser for a new one, which
    # the limit refused all the same.
    spent = spend_try(request, "private", JOIN_ATTEMPTS_PER_MINUTE)
    if spent is None:
        messages.error(request, "Too many tries from this phone. Wait a minute and try again.")
        return redirect("phone:join", code=drive.join_code)
    player = player_by_token(drive, token, active_only=False)
    if player is None:
        messages.error(request, "That link is no longer valid. Ask the organiser for a new one.")
        return redirect("phone:join", code=drive.join_code)
    if not player.active:  # taken out of the drive: said at once, and nothing is written
        messages.warning(request, format_html(taken_out_words(drive), bdi(player.name)))
        return redirect("phone:join", code=drive.join_code)
    holder = player_for_request(request, drive)
    if request.method != "POST":
        give_back(spent)  # a valid link opened: its Continue is what counts
        if holder is not None and holder.pk == player.pk:  # this phone is that player's already
            return redirect("phone:me", code=drive.join_code)
        return _phone_cookie(request, render(request, "phone/private.html",
                                             {"drive": drive, "player": player, "holder": holder}))
    if holder is not None and holder.pk != player.pk:  # the phone was someone else's: it leaves them
        services.revoke_phone(drive, holder, by_phone=True)
    services.join_phone(drive, player_id=player.pk, taking_over=True, phone_key=phone_key(request, drive))
    return _remember(redirect("phone:me", code=drive.join_code), drive, player)


@require_POST
def forget(request, code: str):
    """"Leave this phone": the name is released (``services.leave_phone``) and the cookie goes."""
    drive = drive_by_code(code, request)
    player = player_for_request(request, drive, active_only=False)
    if player is not None:
        try:
            left_drive = services.leave_phone(drive, player)
        except DriveError as exc:  # the drive has finished: the phone keeps its player's final place
            messages.info(request, str(exc))
            return redirect("phone:me", code=drive.join_code)
        if left_drive:
            messages.success(request, format_html("{} has left this phone and the drive (no hand was played "
                                                  "under that name).", bdi(player.name)))
        else:
            messages.success(request, format_html("This phone is no longer {}'s.", bdi(player.name)))
    response = redirect("phone:join", code=drive.join_code)
    response.delete_cookie(player_cookie_name(drive))
    return response


def _player_or_join(request, drive: Drive):
    """The phone's player; None, and the join page it is sent to told why (``say_why_no_player``:
    a phone signed out by the organiser is not sent there with no word of it)."""
    player = player_for_request(request, drive)
    if player is None:
        say_why_no_player(request, drive)
    return player


def _why_no_player(request, drive: Drive) -> str:
    """Why this phone holds no player of the drive, as plain text for a script: withdrawn, or
    signed out (or never joined)."""
    gone = taken_out_name(request, drive)
    return taken_out_words(drive).format(isolate(gone)) if gone is not None else NOT_JOINED


def _no_player_answer(request, drive: Drive) -> JsonResponse:
    """For entry.js, whose phone holds no player of the drive now (withdrawn, or signed out
    while the entry waited): why, in JSON. A redirect to the join page was read as "The server
    could not read the form", and the entry was dropped with no reason given."""
    return previews.refused(f"Your entry was not sent. {_why_no_player(request, drive)}")


def me(request, code: str):
    drive = drive_by_code(code, request)
    fragment = request.GET.get("fragment")
    # The live page's poll (``fragment``) says nothing itself: it reloads the page, which says why.
    player = player_for_request(request, drive) if fragment else _player_or_join(request, drive)
    if player is None:
        return redirect("phone:join", code=drive.join_code)
    view = selectors.drive_view(drive, public=True)
    context = {"drive": drive, "me": view.phone(player), "v": view, "Hand": Hand}
    if fragment:
        return render(request, pages.PHONE_TEMPLATE, context)
    return render(request, "phone/me.html", {**context, "leaves_drive": services.leaving_leaves_drive(player)})


def _entry_setup(drive: Drive, player: Player, shown: results.Shown | None = None):
    table, players = results.my_table_and_players(drive, player, shown)
    players, spec = previews.entry_questions(drive, table, players)
    return table, players, spec


def _existing(table):
    return one_or_none(Result.objects.filter(table=table))


def _shown(request) -> results.Shown:
    """The hand, the table and the player a phone's form was shown for (its hidden fields
    ``hand``, ``table``, ``player``: templates/phone/partials/shown_for.html)."""
    return results.Shown(*(posted_number(request.POST, field) for field in ("hand", "table", "player")))


def _seen_revision(request) -> int:
    """The result's revision the form showed (``seen_revision``): 0 when it showed none; a
    ``ValueError`` unless plain digits (``posted_number``: not " 0", "0_0", "٠" or 20 digits)."""
    if not request.POST.get("seen_revision"):
        return 0
    seen = posted_number(request.POST, "seen_revision")
    if seen is None:
        raise ValueError("a malformed revision")
    return seen


def _recorded_already(drive: Drive, player: Player, data) -> tuple[Result | None, bool]:
    """A form refused before it was read (another hand or table than the player's now): the
    entry of the player's its client key found (None: none), and whether the form repeats the
    answers that entry was sent with (read with the questions of that entry's table)."""
    try:
        earlier = results.already_recorded(player, data.get("client_key"))
    except DriveError:  # a malformed key, or another's: refused with the form, by results.enter
        return None, False
    if earlier is None:
        return None, False
    players, spec = previews.entry_questions(drive, earlier.table)
    form = ResultForm(spec, [p.name for p in players], data)
    return earlier, form.is_valid() and results.is_repeat(earlier, form.summary())


def _kept_late(request, drive: Drive, player: Player) -> str | None:
    """An entry for a hand the organiser closed before it arrived (kept on the phone while it had
    no connection): its answers, read with the questions of the table it was for, kept for the
    organiser (``results.keep_late_entry``); what the phone is told, or None (not such an entry,
    or not kept: the refusal stands as it was)."""
    table = results.late_table(drive, player, _shown(request))
    if table is None:
        return None
    players, spec = previews.entry_questions(drive, table)
    form = ResultForm(spec, [p.name for p in players], request.POST)
    if not form.is_valid():
        return None
    return write_sync(results.keep_late_entry, drive, player, table, form.summary(), request.POST.get("client_key"))


def _entry_answer(request, drive: Drive, wants_json: bool, *, repeated: bool):
    note = "Already received." if repeated else "Sent. Another player at your table now confirms it."
    if wants_json:
        return JsonResponse({"ok": True, "message": note, "repeated": repeated})
    messages.success(request, note)
    return redirect("phone:me", code=drive.join_code)


def _entry_refused(request, drive: Drive, wants_json: bool, exc: DriveError, *, late: bool = False):
    """A refusal before the form is read: JSON for entry.js (``stale`` when the form was for
    another hand or table, ``player`` too when it was shown to another player or names none:
    it drops the queued entry and says why; ``late`` when it came after its hand's close and
    was kept for the organiser: said as it is), a message on the phone's home page otherwise."""
    if wants_json and request.method == "POST":
        stale = isinstance(exc, StaleForm)
        more = {"player": True} if isinstance(exc, NotThisPlayersForm) else {"late": True} if late else {}
        return previews.refused(str(exc), stale=stale, **more)
    messages.error(request, str(exc))
    return redirect("phone:me", code=drive.join_code)


def enter(request, code: str):
    drive = drive_by_code(code, request)
    wants_json = request.headers.get("Accept", "").startswith("application/json")
    posted = request.method == "POST"
    if wants_json and posted:  # entry.js: why not, in JSON
        player = player_for_request(request, drive)
        if player is None:
            return _no_player_answer(request, drive)
    else:
        player = _player_or_join(request, drive)
        if player is None:
            return redirect("phone:join", code=drive.join_code)
    try:
        # A form shown to another player, or for another hand or table than the player's now,
        # is refused before it is read, unless it is a repeat of the player's own recorded
        # entry (answered as such, whatever hand it was for). A repeat for the hand being
        # played is answered by results.enter, which reads the key under the drive's lock: the
        # key is read once per entry, not once here and again there.
        table, players, spec = _entry_setup(drive, player, _shown(request) if posted else None)
        names = [p.name for p in players]
    except DriveError as exc:
        earlier, repeat = _recorded_already(drive, player, request.POST) if posted else (None, False)
        if repeat:
            return _entry_answer(request, drive, wants_json, repeated=True)
        if earlier is not None:  # the player's entry, received, but with other answers than these
            return _entry_refused(request, drive, wants_json, DriveError(results.sent_otherwise(earlier)))
        kept = _kept_late(request, drive, player) if posted and isinstance(exc, StaleForm) else None
        if kept is not None:  # sent after its hand's close: kept for the organiser, and said so
            return _entry_refused(request, drive, wants_json, StaleForm(kept), late=True)
        return _entry_refused(request, drive, wants_json, exc)
    if posted:  # results.enter reads the table's result under its lock; the page only on a refusal
        form = ResultForm(spec, names, request.POST)
    else:
        existing = _existing(table)
        locked = results.locked_for_players(table, existing)
        if locked:  # a page opened again (the back button, an old tab): no form that would be refused
            messages.info(request, locked)
            return redirect("phone:me", code=drive.join_code)
        form = ResultForm(spec, names, initial=ResultForm.initial_from_summary(spec, existing and existing.summary))
    error, about_answers = None, False  # about_answers: the refusal is of the answers themselves
    if posted:
        if form.is_valid():
            try:
                seen = _seen_revision(request)
                # The write where the database takes it best (SQLite: its one writer thread).
                submitted = write_sync(
                    results.enter, drive, player, form.summary(), client_key=request.POST.get("client_key"),
                    seen_revision=seen, shown=_shown(request), read=(table, players),
                )
            except StaleForm as exc:  # the hand closed while this was being read
                return _entry_refused(request, drive, wants_json, exc)
            except (DriveError, ValueError) as exc:
                error = str(exc) if isinstance(exc, DriveError) else "The form is out of date; reload the page."
                about_answers = isinstance(exc, services.ImpossibleAnswers)
            else:
                return _remember_entry(request, _entry_answer(request, drive, wants_json, repeated=submitted.repeated),
                                       drive, submitted.result)
        else:
            error, about_answers = form.unanswered() or "Check the highlighted answers.", True
        if wants_json:
            return previews.refused(error, errors=form.errors, answers=about_answers)
        existing = _existing(table)
    return render(request, "phone/enter.html", {
        "drive": drive, "table": table, "form": form, "existing": existing, "error": error,
        "about_answers": about_answers, "client_key": uuid.uuid4().hex, "seen_revision": existing.revision if existing else 0,
        "player": player,
    })


@require_POST
def preview(request, code: str):
    """Points for the answers so far, computed by the game (never typed): JSON for the form
    (``previews.preview``, shared with the organiser's result page)."""
    drive = drive_by_code(code, request)
    player = player_for_request(request, drive)
    if player is None:
        return previews.refused(_why_no_player(request, drive))
    try:
        table = results.my_table(drive, player, for_update=False)
    except DriveError as exc:
        return previews.refused(str(exc))
    return previews.preview(drive, table, request.POST)


def _judge(request, code: str, action):
    """Confirm or dispute: the form names the revision, the hand and the table it showed, and
    the player it was shown to."""
    drive = drive_by_code(code, request)
    player = _player_or_join(request, drive)  # a withdrawn player's page is told why, as on entering
    if player is None:
        return redirect("phone:join", code=drive.join_code)
    try:
        seen = _seen_revision(request)
        action(drive, player, seen, _shown(request))
    except DriveError as exc:
        messages.error(request, str(exc))
    except ValueError:
        messages.error(request, "The page is out of date; it has been refreshed.")
    return redirect("phone:me", code=drive.join_code)


@require_POST
def confirm(request, code: str):
    def act(drive, player, seen, shown):
        write_sync(results.confirm, drive, player, seen_revision=seen, shown=shown,
                   made_here=entries_made(request, drive))
        messages.success(request, "Confirmed. Thank you!")

    return _judge(request, code, act)


@require_POST
def dispute(request, code: str):
    def act(drive, player, seen, shown):
        reason = without_control_characters(request.POST.get("reason", ""))
        try:
            write_sync(results.dispute, drive, player, seen_revision=seen, shown=shown, reason=reason)
        except DriveError:  # sent after its hand's close (kept offline)? Then kept for the organiser
            kept = write_sync(results.keep_late_dispute, drive, player, shown, seen, reason)
            if kept is None:
                raise
            messages.warning(request, kept)
        else:
            messages.warning(request, "Disputed: the organiser has been told and will settle it.")

    return _judge(request, code, act)


def board(request, code: str):
    """The projected board: no interaction needed all evening."""
    drive = drive_by_code(code, request)
    view = selectors.drive_view(drive, public=True)
    url = phone_links.join_url(request, drive)
    return render(request, "board/board.html", {
        **{"v": view, "drive": drive, "Hand": Hand},
        "chart": charts.leaders_chart(drive, view.ranked, up_to=view.frozen_at),
        "join_url": url, "qr_svg": phone_links.qr_svg(url, phone_links.join_qr_label(drive)),
    })
