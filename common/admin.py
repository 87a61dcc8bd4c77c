"""The Django admin as it is used here: raw data to look at, never to change.

Every change of a drive goes through its services, which check it (a game's house rules, a
player's name, a hand's state, who may act when: the one write path per change). The admin's
forms would save rows none of those checks saw (a drive's game changed after hands were
played, a player moved to another drive, house rules its game cannot read), and pages would
then fail on them. So its pages show every row, read-only, and offer no add, change or delete."""

from __future__ import annotations

from django.contrib import admin
from django.core.exceptions import SuspiciousOperation


class ReadOnly:
    """For a ``ModelAdmin`` or an inline: viewing only (the superuser's view permission)."""

    def has_add_permission(self, request, obj=None) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False

    # The lookups the sidebar's filters put in an address (a choice, a yes/no, a date's range,
    # a related row, each with its "unknown").
    SIDEBAR_LOOKUPS = frozenset({"exact", "isnull", "gte", "lt", "id__exact"})

    def lookup_allowed(self, lookup, value, request=None) -> bool:
        """No filter in the address but those of the page's own sidebar (``list_filter``):
        Django's admin otherwise takes any lookup on any local field (``?date__year=0``,
        ``?name__regex=(``), and many fail in the database, a server error with a traceback.
        Refused, it is a 400 of one line."""
        field, _, rest = lookup.partition("__")
        filters = self.get_list_filter(request) if request is not None else self.list_filter
        return rest in self.SIDEBAR_LOOKUPS and field in {f for f in filters if isinstance(f, str)}


    MOST_SEARCH_WORDS = 20

    def get_search_results(self, request, queryset, search_term):
        """A search of at most ``MOST_SEARCH_WORDS`` words: each word is a condition on every
        searched field, and a thousand words are too deep an expression for SQLite (a server
        error with a traceback). More is a 400 of one line."""
        if len(search_term.split()) > self.MOST_SEARCH_WORDS:
            raise SuspiciousOperation(f"An admin search of more than {self.MOST_SEARCH_WORDS} words.")
        return super().get_search_results(request, queryset, search_term)


class RawDataAdmin(ReadOnly, admin.ModelAdmin):
    pass


class RawDataInline(ReadOnly, admin.TabularInline):
    extra = 0
