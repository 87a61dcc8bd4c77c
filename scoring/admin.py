from django.contrib import admin

from scoring.models import Correction, Result, Score


class ScoreInline(admin.TabularInline):
    model = Score
    fields = ("player", "points", "details", "counted")
    readonly_fields = fields
    extra = 0
    can_delete = False


@admin.register(Result)
class ResultAdmin(admin.ModelAdmin):
    list_display = ("table", "drive", "source", "status", "winner", "revision", "updated_at")
    list_filter = ("source", "status")
    readonly_fields = ("summary", "client_key", "revision")
    inlines = [ScoreInline]


@admin.register(Correction)
class CorrectionAdmin(admin.ModelAdmin):
    list_display = ("at", "drive", "result", "by", "reason")
    readonly_fields = ("result", "drive", "by", "at", "old", "new", "reason")
