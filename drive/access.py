"""One access helper per object. Views never check permissions inline."""

from __future__ import annotations

from django.http import Http404

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
