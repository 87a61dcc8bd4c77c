from django.contrib import admin

from tables.models import Hand, Seat, TableHand


class SeatInline(admin.TabularInline):
    model = Seat
    fields = ("position", "player")
    raw_id_fields = ("player",)
    extra = 0


@admin.register(Hand)
class HandAdmin(admin.ModelAdmin):
    list_display = ("drive", "number", "status", "started_at", "closed_at")
    list_filter = ("status",)


@admin.register(TableHand)
class TableHandAdmin(admin.ModelAdmin):
    list_display = ("hand", "number", "play_mode", "status", "version")
    list_filter = ("play_mode", "status")
    readonly_fields = ("state", "version")
    inlines = [SeatInline]
