"""Raw data for the organiser (Django admin), read-only (``common.admin``). Day-to-day work
happens on the dashboard."""

from django.contrib import admin
from django.contrib.auth import get_user_model
from django.contrib.auth.admin import GroupAdmin, UserAdmin
from django.contrib.auth.models import Group

from common.admin import RawDataAdmin, RawDataInline, ReadOnly
from drive.models import Drive, LateEntry, Player

# The accounts too (Django registers them writable): their admin added users and set any
# user's password without the old one, so a session cookie read off the hall's Wi-Fi could
# lock the organiser out or add a superuser. Accounts are made and their passwords set on the
# laptop (`make run`, `make password`: drive/management/commands/ensure_organiser.py).
admin.site.unregister(get_user_model())
admin.site.unregister(Group)


@admin.register(get_user_model())
class OrganiserAdmin(ReadOnly, UserAdmin):
    pass


@admin.register(Group)
class ReadOnlyGroupAdmin(ReadOnly, GroupAdmin):
    pass


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


@admin.register(LateEntry)
class LateEntryAdmin(RawDataAdmin):
    list_display = ("table", "player", "received_at", "settled")
    list_filter = ("settled",)
