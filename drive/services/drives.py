"""A drive comes to be: the one way, for the organiser's form and the demo command alike."""

from __future__ import annotations

from drive.models import Drive


def create_drive(organiser, drive: Drive) -> Drive:
    """Save ``drive``, a new drive not yet saved (the drive form's, or one a command builds),
    organised by ``organiser``, once checked as a form checks it (``full_clean``: a field out of
    bounds raises Django's ``ValidationError``, nothing saved). Returns it, saved."""
    drive.organiser = organiser
    drive.full_clean()
    drive.save()
    return drive
