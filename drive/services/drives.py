"""A drive comes to be: the one way, for the organiser's form and the demo command alike."""

from __future__ import annotations

from datetime import timedelta

from django.utils import timezone

from drive.models import Drive


def create_drive(organiser, drive: Drive) -> Drive:
    """Save ``drive``, a new drive not yet saved (the drive form's, or one a command builds),
    organised by ``organiser``, once checked as a form checks it (``full_clean``: a field out of
    bounds raises Django's ``ValidationError``, nothing saved). Returns it, saved."""
    drive.organiser = organiser
    drive.full_clean()
    drive.save()
    return drive


# The drive form sent again (a double click the page's script did not catch, the back button and
# Create once more) within this many seconds is the drive it made, not a second one.
SENT_AGAIN_WITHIN = timedelta(minutes=1)


def made_just_now(organiser, drive: Drive) -> Drive | None:
    """The drive ``organiser`` made from the same form (its name and game) within
    ``SENT_AGAIN_WITHIN`` and has not touched since (no player, no hand), if any: one with
    players is a drive under way, and a new one of the same name is meant."""
    return (Drive.objects.filter(organiser=organiser, name=drive.name, game=drive.game, players__isnull=True,
                                 hands__isnull=True, created_at__gte=timezone.now() - SENT_AGAIN_WITHIN)
            .order_by("-pk").first())
