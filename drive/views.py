"""The organiser's pages. Thin: forms validate, services write, selectors read."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.shortcuts import render

from drive import selectors


@login_required
def home(request):
    return render(request, "drive/home.html", {"drives": selectors.drives_for(request.user)})
