"""The Django admin as it is used here: raw data to look at, never to change.

Every change of a drive goes through its services, which check it (a game's house rules, a
player's name, a hand's state, who may act when: the one write path per change). The admin's
forms would save rows none of those checks saw (a drive's game changed after hands were
played, a player moved to another drive, house rules its game cannot read), and pages would
then fail on them. So its pages show every row, read-only, and offer no add, change or delete."""

from __future__ import annotations

from django.contrib import admin


class ReadOnly:
    """For a ``ModelAdmin`` or an inline: viewing only (the superuser's view permission)."""

    def has_add_permission(self, request, obj=None) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False


class RawDataAdmin(ReadOnly, admin.ModelAdmin):
    pass


class RawDataInline(ReadOnly, admin.TabularInline):
    extra = 0
