"""Raw data for the organiser (Django admin), read-only (``common.admin``). Day-to-day work
happens on the dashboard."""

from django.contrib import admin

from common.admin import RawDataAdmin, RawDataInline
from drive.models import Drive, Player


class PlayerInline(RawDataInline):
    model = Player
    fields = ("name", "active", "phone_joined_at")


@admin.register(Drive)
class DriveAdmin(RawDataAdmin):
    list_display = ("name", "date", "status", "join_code", "target", "organiser")
    list_filter = ("status", "date")
    search_fields = ("name", "join_code")
    inlines = [PlayerInline]


@admin.register(Player)
class PlayerAdmin(RawDataAdmin):
    list_display = ("name", "drive", "active", "phone_joined_at")
    list_filter = ("active",)
    search_fields = ("name", "drive__name")
    exclude = ("token",)  # the phone's secret: shown nowhere, changed by "Sign phone out"
