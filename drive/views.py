"""The organiser's pages. Thin: forms validate, services write, selectors read."""

from __future__ import annotations

import hashlib
import time

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.html import format_html, format_html_join
from django.views.decorators.http import require_POST

from common.bidi import bdi, isolate
from common.db import write_sync
from common.gates import beside_the_pages
from drive import log_lines, pages, phone_links, previews, selectors, services
from drive.access import drive_for_organiser, player_of_drive, table_of_drive
from drive.forms import DriveForm, NamesForm, ReasonForm, SwapForm, edit_drive, posted_number
from drive.services import DriveError, StaleForm
from games.base import and_list
from scoring.forms import ResultForm
from scoring.models import Result
from scoring.standings import by_name
from tables.models import Hand


def _back(drive):
    return redirect("drive:dashboard", drive_id=drive.pk)


def _shown_hand(request) -> int:
    """The hand number the dashboard's form was shown with (0 before any seating): the service
    refuses it when another hand is current. A form without it is a page from before that rule."""
    shown = posted_number(request.POST, "hand")
    if shown is None:
        raise StaleForm("This page is out of date: it does not say which hand it showed. Look again.")
    return shown


def _shown_revision(request) -> int:
    """The revision of the table's result the result page's form was shown with (0: no result
    yet): the service refuses it when the result has changed since. A form without it (made by
    hand) says nothing of what it showed, and is refused as the dashboard's forms without their
    hand are."""
    shown = posted_number(request.POST, "seen_revision")
    if shown is None:
        raise StaleForm("This page is out of date: it does not say which version of the result it showed. "
                        "Nothing was saved. Look again.")
    return shown


def _shown_status(request) -> str | None:
    """The status of the table's result the result page's form was shown with ("" for none):
    one a phone has confirmed or disputed since is refused. Absent or not a status: not checked
    (the revision still is)."""
    shown = request.POST.get("seen_status")
    return shown if shown in Result.Status.values or shown == "" else None


def _run(request, drive, action, success: str | None = None):
    """Run a service; its refusal becomes a message on the dashboard, never a server error."""
    try:
        outcome = action()
    except DriveError as exc:
        messages.error(request, str(exc))
        return None
    if success:
        messages.success(request, success)
    return outcome


@login_required
def home(request):
    return render(request, "drive/home.html", {"drives": selectors.drives_for(request.user)})


@login_required
def drive_create(request):
    form = DriveForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        again = services.made_just_now(request.user, form.instance)
        if again is not None:
            messages.info(request, format_html("The form was sent twice: drive “{}” was created once.", bdi(again.name)))
            return _back(again)
        drive = services.create_drive(request.user, form.save(commit=False))
        messages.success(request, format_html("Drive “{}” created. Now add the players.", bdi(drive.name)))
        return _back(drive)
    return render(request, "drive/drive_form.html", {"form": form, "creating": True})


@login_required
def drive_edit(request, drive_id: int):
    drive = drive_for_organiser(request, drive_id)
    if request.method != "POST":
        return render(request, "drive/drive_form.html", {"form": DriveForm(instance=drive), "drive": drive})
    form, notes = edit_drive(drive, request.POST)
    if not form.is_valid():  # (judged once, in edit_drive: its errors are shown)
        return render(request, "drive/drive_form.html", {"form": form, "drive": form.instance})
    said = " ".join([*notes[:1], *(n[0].upper() + n[1:] for n in notes[1:])])
    messages.success(request, f"Saved: {said}" if said else "Saved.")
    if form.kept_finished():
        messages.warning(request, "The drive has finished: only its name can change, the rest stays as it was.")
    if form.kept_fixed():
        messages.warning(request, "The game and its house rules stay as they were: they are fixed once "
                                  "the first hand has started (every table is scored by the same rules).")
    return _back(form.instance)


@login_required
def dashboard(request, drive_id: int):
    drive = drive_for_organiser(request, drive_id)
    view = selectors.drive_view(drive)
    context = {
        **pages.dashboard_context(view),
        # A list refused (a name too long, say) comes back in the box to be mended, not retyped.
        "names_form": NamesForm(initial={"names": request.session.pop(_NAMES_DRAFT(drive), "")}),
        "join_url": phone_links.join_url(request, drive),
        "qr_svg": phone_links.qr_svg(phone_links.join_url(request, drive), phone_links.join_qr_label(drive)),
    }
    return render(request, "drive/dashboard.html", context)


@login_required
@require_POST
def players_add(request, drive_id: int):
    drive = drive_for_organiser(request, drive_id)
    form = NamesForm(request.POST)
    if not form.is_valid():
        messages.error(request, " ".join(form.errors["names"]))
        _keep_draft(request, drive)
        return _back(drive)
    # The same list sent again within a minute (a double click: the browser shows the second
    # answer only, which would send every name back to mend as "in this drive already", and
    # following its advice would add everyone twice): answered as a repeat, nothing sent back.
    sent = [hashlib.sha256(form.cleaned_data["names"].encode()).hexdigest()[:16], time.time()]
    last = request.session.get(_NAMES_ADDED(drive))
    if isinstance(last, list) and len(last) == 2 and last[0] == sent[0] and sent[1] - last[1] < 60:
        messages.info(request, "That list was sent twice: its names were added once (see the Players list).")
        return _back(drive)
    outcome = _run(request, drive, lambda: services.add_names(drive, form.cleaned_data["names"]))
    if outcome is None:
        _keep_draft(request, drive)
        return _back(drive)
    added, refused, reseated = outcome
    if added:
        request.session[_NAMES_ADDED(drive)] = sent
        # Named, so that a list split where it should not be shows ("O'Neil, Jr." is two names:
        # commas separate them): the first twelve, then how many more; then whom the seating
        # shown moved for them.
        shown = [f"“{isolate(p.name)}”" for p in added[:12]] + ([f"{len(added) - 12} more"] if len(added) > 12 else [])
        said = f"Added {len(added)} player{'s' if len(added) != 1 else ''}: {and_list(shown)}."
        messages.success(request, f"{said} {reseated}" if reseated else said)
    if refused:
        # What could not be added stays in the box, each name with its reason in the message
        # (a reason shared by several said once; the first ten reasons, then how many more).
        reasons = list(dict.fromkeys(reason for _name, reason in refused))
        more = f" And {len(reasons) - 10} more." if len(reasons) > 10 else ""
        messages.error(request, f"Not added ({len(refused)}), back in the box to mend: " + " ".join(reasons[:10]) + more)
        _keep_draft(request, drive, "\n".join(name for name, _reason in refused))
    return _back(drive)


def _NAMES_DRAFT(drive) -> str:  # noqa: N802 (a key, named as one)
    return f"names-draft-{drive.pk}"


def _NAMES_ADDED(drive) -> str:  # noqa: N802
    return f"names-added-{drive.pk}"


def _keep_draft(request, drive, text: str | None = None) -> None:
    """The list of names a refusal sent back (``text``, else all that was posted): shown again in
    the box (at most the form's length)."""
    text = request.POST.get("names", "") if text is None else text
    if isinstance(text, str):
        request.session[_NAMES_DRAFT(drive)] = text[:NamesForm.base_fields["names"].max_length]


def _withdraw(request, drive, player_id: int):
    player = player_of_drive(drive, player_id)
    withdrawn = _run(request, drive, lambda: services.withdraw_player(drive, player))
    if withdrawn is not None:  # (None: refused, and the message says why)
        left = format_html("{} has left the drive; their points stay in the standings." if withdrawn.stays else
                           "{} has left the drive (no hand played: they are in no standings).", bdi(player.name))
        bot = (f"A bot plays their seat at Table {withdrawn.bot_at} for the rest of this hand."
               if withdrawn.bot_at is not None else "")
        messages.success(request, format_html_join(" ", "{}", ((part,) for part in (left, bot, withdrawn.reseated)
                                                               if part)))
    return _back(drive)


def _rejoin(request, drive, player_id: int):
    player = player_of_drive(drive, player_id)
    reseated = _run(request, drive, lambda: services.rejoin_player(drive, player))
    if reseated is not None:
        messages.success(request, format_html("{} is back. {}", bdi(player.name), reseated))
    return _back(drive)


@login_required
@require_POST
def player_presence(request, drive_id: int):
    """The dashboard's list of players is one form (one token, not one per player): the button
    pressed says whom to take out (``withdraw=<id>``) or bring back (``rejoin=<id>``)."""
    drive = drive_for_organiser(request, drive_id)
    for field, act in (("withdraw", _withdraw), ("rejoin", _rejoin)):
        raw = request.POST.get(field)
        if raw is not None and raw.isascii() and raw.isdigit() and len(raw) < 12:
            return act(request, drive, int(raw))
    messages.error(request, "Press “take out” or “bring back” beside a player's name.")
    return _back(drive)


@login_required
@require_POST
def seating_draw(request, drive_id: int):
    drive = drive_for_organiser(request, drive_id)
    _run(request, drive, lambda: services.draw_seating(drive, shown_hand=_shown_hand(request)), "Seating drawn.")
    return _back(drive)


@login_required
@require_POST
def seating_swap(request, drive_id: int):
    drive = drive_for_organiser(request, drive_id)
    form = SwapForm(drive, request.POST)
    if form.is_valid():
        a, b = form.cleaned_data["a"], form.cleaned_data["b"]
        phones = _run(request, drive, lambda: services.swap_players(drive, a, b, shown_hand=_shown_hand(request),
                                                                    shown_seating=request.POST.get("seating", "")))
        if phones is not None:  # (a refusal: said by _run)
            swapped = format_html("Swapped {} and {}.", bdi(a.name), bdi(b.name))
            messages.success(request, format_html("{} {}", swapped, phones) if phones else swapped)
    else:
        messages.error(request, "Pick two different players still in the drive to swap.")
    return _back(drive)


@login_required
@require_POST
def table_mode(request, drive_id: int, number: int):
    drive = drive_for_organiser(request, drive_id)
    mode = request.POST.get("mode", "")
    said = {"digital": "plays on the phones", "physical": "plays with cards"}.get(mode, "is updated")
    _run(request, drive, lambda: services.set_table_mode(drive, number, mode, shown_hand=_shown_hand(request)),
         f"Table {number} now {said}.")
    return _back(drive)


@login_required
@require_POST
def hand_start(request, drive_id: int):
    drive = drive_for_organiser(request, drive_id)
    hand = _run(request, drive, lambda: services.start_hand(drive, shown_hand=_shown_hand(request)))
    if hand:
        messages.success(request, f"Hand {hand.number} started.")
    return _back(drive)


@login_required
@require_POST
def hand_close(request, drive_id: int):
    drive = drive_for_organiser(request, drive_id)
    force = request.POST.get("force") == "1"
    try:
        next_hand = services.close_hand(drive, force=force, shown_hand=_shown_hand(request))
    except DriveError as exc:
        messages.error(request, str(exc))
        return _back(drive)
    if next_hand is None:
        messages.success(request, "The drive has reached its target: the final standings are frozen.")
        return redirect("drive:standings", drive_id=drive.pk)
    messages.success(request, f"Hand closed. The seating for hand {next_hand.number} is shown. "
                              f"{services.hand_sent_to_the_phones(drive, next_hand)}".strip())
    return _back(drive)


@login_required
@require_POST
def drive_end(request, drive_id: int):
    drive = drive_for_organiser(request, drive_id)
    if _run(request, drive, lambda: services.end_drive(drive) or True, "The drive has ended."):
        return redirect("drive:standings", drive_id=drive.pk)
    return _back(drive)


@login_required
def result_edit(request, drive_id: int, table_id: int):
    """Enter a table's result from paper, or correct it (with a reason once one exists)."""
    drive = drive_for_organiser(request, drive_id)
    table = table_of_drive(drive, table_id)
    players, spec = previews.entry_questions(drive, table)
    names = [p.name for p in players]
    existing = getattr(table, "result", None) if hasattr(table, "result") else None
    try:
        services.refuse_paper_result_on_the_phones(table)
    except DriveError as exc:
        messages.error(request, str(exc))
        return _back(drive)
    late_entries = selectors.late_entries_of(drive, table)
    if request.method == "POST" and "set_aside" in request.POST:  # the result as recorded stands
        if write_sync(services.set_aside_late_entries, drive, table):
            what = "what was sent late is" if len(late_entries) > 1 else (
                "the dispute sent late is" if late_entries and late_entries[0].reason else "the result sent late is")
            messages.success(request, f"Table {table.number}, hand {table.hand.number}: {what} set aside; the result "
                                      "as recorded stands.")
        return _back(drive)
    # ``?late=<id>`` (the dashboard's link): the form holds the answers a phone sent late, beside
    # the result as recorded, with the reason said; saved, they are applied as a correction.
    applying = next((late for late in late_entries if str(late.pk) == request.GET.get("late") and not late.reason), None)
    seen, seen_status = None, None
    if request.method == "POST":
        seen_status = _shown_status(request)
        try:
            seen = _shown_revision(request)
        except StaleForm as exc:  # nothing read, nothing written: the page as it stands, and why
            messages.error(request, str(exc))
            return redirect("drive:result", drive_id=drive.pk, table_id=table.pk)
    initial = ResultForm.initial_from_summary(spec, applying.summary if applying else existing.summary if existing else None)
    form = ResultForm(spec, names, request.POST or None, initial=initial)
    reason_form = ReasonForm(request.POST or None, initial={"reason": (
        f"Sent from {applying.player.name}'s phone at {timezone.localtime(applying.received_at):%H:%M}, after the hand "
        "was closed") if applying else ""})
    # about_answers: the refusal is of the answers themselves; stale: of the page (the result
    # changed since it was opened), which no answers can mend: it must be opened again.
    error, about_answers, stale = None, False, False
    # The revision the form was first shown with (0: no result yet) stays in it after a
    # refusal: sent again, a result changed meanwhile is refused again until the organiser
    # opens it anew.
    if request.method == "POST" and form.is_valid() and reason_form.is_valid():
        try:
            result = write_sync(  # (SQLite: in its one writer thread, as the phones' entries)
                services.organiser_result, drive, table, form.summary(), request.user,
                reason=reason_form.cleaned_data["reason"], seen_revision=seen, seen_status=seen_status or None,
            )
        except DriveError as exc:
            error, about_answers = str(exc), isinstance(exc, services.ImpossibleAnswers)
            stale = isinstance(exc, StaleForm)
        else:
            messages.success(request, f"Table {table.number}, hand {table.hand.number}: result saved.")
            _say_the_moves_stand(request, drive, table, existing, result)
            return _back(drive)
    elif request.method == "POST":
        about_answers = bool(form.unanswered())
        error = form.unanswered() or " ".join(reason_form.errors.get("reason", [])) or None
    corrections = list(existing.corrections.all()) if existing else []
    return render(request, "drive/result_form.html", {
        "seen_revision": seen if seen is not None else getattr(existing, "revision", 0),
        "seen_status": seen_status if seen_status is not None else getattr(existing, "status", ""),
        "drive": drive, "table": table, "form": form, "reason_form": reason_form,
        "existing": existing, "error": error, "about_answers": about_answers, "stale": stale, "corrections": corrections,
        "corrected": any(c.changed for c in corrections),  # (else saved as it stood: confirmed by the organiser)
        # On the phones, whose seats a bot played for some of the hand (the hands export's ``bot_stood_in``).
        "played_for": [names[seat] for seat in table.bot_played_for or [] if seat < len(names)],
        "late_entries": late_entries, "applying": applying,
    })


def _say_the_moves_stand(request, drive, table, before, after) -> None:
    """A correction of a closed hand's result that names another player as the one who moved
    up: the next hand's seating was made from the result as it was, and stays (players have
    moved, and the seating may have been changed since). The organiser is told, to swap
    players by hand if they should sit otherwise."""
    table.hand.refresh_from_db(fields=["status"])
    table.refresh_from_db(fields=["moved_up"])
    moved = table.moved_up_id or (before and before.mover_id)  # as the close made the moves
    if moved is None or moved == after.mover_id or table.hand.status != table.hand.Status.CLOSED:
        return
    was, now = (drive.players.get(pk=pk).name for pk in (moved, after.mover_id))
    next_hand = selectors.current_hand(drive)
    then = (f" Swap players in the seating for hand {next_hand.number} if they should sit otherwise."
            if next_hand is not None and next_hand.status == next_hand.Status.SEATING else "")
    # At the top table the mover stays (docs/drive-rules.md): said as it happened.
    moved_how = "stayed at the top table" if table.number == 1 else "moved up from this table"
    messages.warning(request, format_html(
        "Hand {} is closed: its moves stand as made, with {} counted as the one who {}, not {}.{}",
        table.hand.number, bdi(was), moved_how, bdi(now), then,
    ))


@login_required
@require_POST
def result_preview(request, drive_id: int, table_id: int):
    """The points the result form's answers give (JSON for static/js/preview.js), beside the
    points recorded now when the table has a result. The same refusals as the page; writes nothing."""
    drive = drive_for_organiser(request, drive_id)
    table = table_of_drive(drive, table_id)
    try:
        services.refuse_paper_result_on_the_phones(table)
    except DriveError as exc:
        return previews.refused(str(exc))
    return previews.preview(drive, table, request.POST, beside_recorded=True)


@login_required
def standings(request, drive_id: int):
    drive = drive_for_organiser(request, drive_id)
    ranked = selectors.standings(drive)
    return render(request, "drive/standings.html", {
        "drive": drive, "ranked": ranked, "prizes": selectors.prizes(drive, ranked),
    })


@login_required
def correction_log(request, drive_id: int):
    drive = drive_for_organiser(request, drive_id)
    return render(request, "drive/log.html", {"drive": drive, "lines": log_lines.correction_lines(drive)})


@login_required
def hand_detail(request, drive_id: int, number: int):
    drive = drive_for_organiser(request, drive_id)
    hand = drive.hands.filter(number=number).first()
    if hand is None:
        if number <= 0:
            said = f"There is no hand {number}."
        elif drive.is_finished:
            said = f"There is no hand {number}: the drive ended after hand {selectors.latest_hand_number(drive)}."
        else:
            said = f"There is no hand {number} yet."
        messages.error(request, said)
        return _back(drive)
    return render(request, "drive/hand.html",
                  {"drive": drive, "hand": hand, "tables": selectors.tables_of(hand), "Hand": Hand})


@beside_the_pages
@login_required
def print_tables(request, drive_id: int):
    drive = drive_for_organiser(request, drive_id)
    hand = selectors.current_hand(drive)
    url = phone_links.join_url(request, drive)  # a player at the table joins from the card itself
    return render(request, "drive/print_tables.html", {"drive": drive, "hand": hand, "tables": selectors.tables_of(hand),
                                                       "join_url": url, "qr_svg": phone_links.qr_svg(url, phone_links.join_qr_label(drive))})


@beside_the_pages
@login_required
def print_scorecards(request, drive_id: int):
    """A paper score card for each player in the drive, and each who left after playing (the card
    is their record); none for a bot (it only plays on the phones)."""
    drive = drive_for_organiser(request, drive_id)
    played = drive.hands.count()
    # Rows for the hands to come, to fill in on paper; once the drive has finished, its hands only.
    planned = drive.target_hands if drive.target != drive.Target.TOTAL else 12
    hands = range(1, (played if drive.is_finished else max(planned, played, 1)) + 1)
    players = selectors.score_card_players(drive) if hands else []  # a drive ended before any hand: none
    return render(request, "drive/print_scorecards.html", {
        "drive": drive, "cards": selectors.score_cards(drive, players, hands), "facts": drive.game_rules.facts,
    })


@login_required
def phones(request, drive_id: int):
    """Which players have a phone joined; revoke a phone; a private link (and QR) per player."""
    drive = drive_for_organiser(request, drive_id)
    players = [
        (p, phone_links.private_url(request, p))
        for p in by_name(drive.players.filter(bot__isnull=True))
    ]
    show = request.GET.get("show")
    shown = next(((p, url) for p, url in players if str(p.pk) == show), None)
    return render(request, "drive/phones.html", {
        "drive": drive, "players": players, "show": show,
        # The QR shown, and whose link it is (its heading names them: the wrong one is easy to show).
        "show_qr": phone_links.qr_svg(shown[1], phone_links.private_qr_label(shown[0])) if shown else None,
        "shown": shown[0] if shown else None,
        "join_url": phone_links.join_url(request, drive),
    })


@login_required
@require_POST
def phone_revoke(request, drive_id: int, player_id: int):
    drive = drive_for_organiser(request, drive_id)
    player = player_of_drive(drive, player_id)
    joined = player.phone_joined_at is not None
    if _run(request, drive, lambda: services.revoke_phone(drive, player)) is None:
        return redirect("drive:phones", drive_id=drive.pk)
    messages.success(request, format_html("{}'s phone is signed out. Only their new private link, below, joins as "
                                          "them now." if joined else "{} has a new private link (the old one no longer "
                                          "works): it is below.", bdi(player.name)))
    return redirect(f"{reverse('drive:phones', args=[drive.pk])}?show={player.pk}")


@login_required
@require_POST
def prizes_toggle(request, drive_id: int):
    drive = drive_for_organiser(request, drive_id)
    if _run(request, drive, lambda: services.show_prizes(drive, request.POST.get("show") == "1") or True):
        messages.success(request, "The board is updated.")
    return redirect("drive:standings", drive_id=drive.pk)
