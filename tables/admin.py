"""Raw data (Django admin), read-only: see ``common.admin``."""

from django.contrib import admin

from common.admin import RawDataAdmin, RawDataInline
from tables.models import Hand, Seat, TableHand


class SeatInline(RawDataInline):
    model = Seat
    fields = ("position", "player")


@admin.register(Hand)
class HandAdmin(RawDataAdmin):
    list_display = ("drive", "number", "status", "started_at", "closed_at")
    list_filter = ("status",)


@admin.register(TableHand)
class TableHandAdmin(RawDataAdmin):
    list_display = ("hand", "number", "play_mode", "status", "version")
    list_filter = ("play_mode", "status")
    inlines = [SeatInline]
