"""Pages for players' phones and the projector. Thin: access helpers, services, selectors."""

from __future__ import annotations

from django.shortcuts import render

from drive.access import drive_by_code


def join(request, code: str):
    drive = drive_by_code(code)
    return render(request, "phone/join.html", {"drive": drive})
