"""Raw data (Django admin), read-only: see ``common.admin``."""

from django.contrib import admin

from common.admin import RawDataAdmin, RawDataInline
from scoring.models import Correction, Result, Score


class ScoreInline(RawDataInline):
    model = Score
    fields = ("player", "points", "details", "counted")


@admin.register(Result)
class ResultAdmin(RawDataAdmin):
    list_display = ("table", "drive", "source", "status", "winner", "revision", "updated_at")
    list_filter = ("source", "status")
    inlines = [ScoreInline]


@admin.register(Correction)
class CorrectionAdmin(RawDataAdmin):
    list_display = ("at", "drive", "result", "by", "reason")
