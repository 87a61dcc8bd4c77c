"""Raw data for the organiser (Django admin). Day-to-day work happens on the dashboard."""

from django.contrib import admin

from drive.models import Drive, Player


class PlayerInline(admin.TabularInline):
    model = Player
    fields = ("name", "active", "phone_joined_at")
    readonly_fields = ("phone_joined_at",)
    extra = 0


@admin.register(Drive)
class DriveAdmin(admin.ModelAdmin):
    list_display = ("name", "date", "status", "join_code", "target", "organiser")
    list_filter = ("status", "date")
    search_fields = ("name", "join_code")
    readonly_fields = ("join_code", "seed", "final_standings", "created_at", "finished_at")
    inlines = [PlayerInline]


@admin.register(Player)
class PlayerAdmin(admin.ModelAdmin):
    list_display = ("name", "drive", "active", "phone_joined_at")
    list_filter = ("active",)
    search_fields = ("name", "drive__name")
    exclude = ("token",)  # the phone's secret: shown nowhere, changed by "Sign phone out"
