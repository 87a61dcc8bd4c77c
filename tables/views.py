"""Digital play pages: the phone's game screen, the organiser's view of a table, adding a bot,
a bot standing in for a player.
Thin: access helpers find the objects, ``tables.digital`` does the writes."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.html import format_html
from django.views.decorators.http import require_POST

from common.bidi import bdi
from drive.access import drive_by_code, drive_for_organiser, player_for_request, say_why_no_player
from drive import services
from drive.forms import posted_number
from tables import digital
from tables.frames import STOOD_IN
from tables.models import Hand, TableHand


def game_screen(drive) -> dict:
    """The drive's game screen, found from its game's slug by convention (tables/play.html):
    the game's markup ``templates/games/<slug>/play.html``, its script
    ``static/games/<slug>/play.js`` and the game's ``screen_data()`` for that script."""
    game = drive.game_rules
    return {"template": f"games/{game.slug}/play.html", "script": f"games/{game.slug}/play.js",
            "data": game.screen_data()}


def play(request, code: str):
    """/<CODE>/play: the hand on this phone (the socket does the rest)."""
    drive = drive_by_code(code, request)
    player = player_for_request(request, drive)
    if player is None:  # taken out, signed out (the page reloads when its socket is closed so), or no cookie
        say_why_no_player(request, drive)
        return redirect("phone:join", code=drive.join_code)
    return render(request, "tables/play.html", {
        "drive": drive, "player": player, "screen": game_screen(drive),
        "ws_path": f"/ws/play/{drive.join_code}/", "stood_in": STOOD_IN,
    })


@login_required
def watch(request, code: str, number: int):
    """/<CODE>/tables/<n>/watch: the organiser's spectator view of a table of the current hand
    (no cards), as its socket watches it."""
    drive = drive_for_organiser(request, drive_by_code(code, request).pk)
    if not TableHand.objects.filter(hand=Hand.objects.current_id(drive), number=number).exists():
        raise Http404("No table of that number in the current hand.")
    return render(request, "tables/watch.html", {
        "drive": drive, "number": number, "screen": game_screen(drive),
        "ws_path": f"/ws/watch/{drive.join_code}/{number}/",
    })


@login_required
@require_POST
def add_bot(request, code: str, table_id: int):
    """The organiser seats a bot at a digital table between hands."""
    drive = drive_for_organiser(request, drive_by_code(code, request).pk)
    try:
        bot = services.add_bot(drive, table_id)
    except services.DriveError as exc:
        messages.error(request, str(exc))
    else:
        messages.success(request, format_html("{} joins the table: the server plays its cards.", bdi(bot.name)))
    return redirect("drive:dashboard", drive_id=drive.pk)


@login_required
@require_POST
def stand_in(request, code: str, table_id: int):
    """The organiser has a bot play a seat for its player during a hand on the phones (``playing``
    1), or gives the seat back (0)."""
    drive = drive_for_organiser(request, drive_by_code(code, request).pk)
    playing = {"1": True, "0": False}.get(request.POST.get("playing"))
    seat = posted_number(request.POST, "seat")  # the project's rule for a posted number: plain digits
    try:
        if playing is None or seat is None:  # a hand-made form: changes nothing
            raise digital.DigitalError("That form was not understood: nothing was changed. Reload the page.")
        name = digital.set_stand_in(drive, table_id, seat, playing)
    except digital.DigitalError as exc:
        messages.error(request, str(exc))
    else:
        # For this hand: the next one seats people, not bots (``digital.set_stand_in``).
        messages.success(request, format_html(
            "A bot plays for {} until you give the seat back, at the latest until this hand ends. "
            "Gone for good? Take them out of the drive in the dashboard’s Players list, so the next seating leaves them out."
            if playing else "{} plays their own seat again.", bdi(name)))
    # Back to the table's panel, open (static/js/live.js): the next seat's button is at hand.
    return redirect(reverse("drive:dashboard", args=[drive.pk]) + f"#stand-in-{table_id}")
