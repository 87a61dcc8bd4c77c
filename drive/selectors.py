"""Reads for the drive pages. Each runs a fixed number of queries, whatever the drive's size."""

from __future__ import annotations

from django.db.models import Count, QuerySet

from drive.models import Drive


def drives_for(user) -> QuerySet[Drive]:
    return Drive.objects.filter(organiser=user).annotate(player_count=Count("players")).order_by("-date", "-id")
