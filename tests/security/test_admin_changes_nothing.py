"""The admin shows raw data and changes nothing, the accounts included (``drive/admin.py``,
``config/urls.py``): with the organiser's session (a cookie read off the hall's Wi-Fi is enough)
no user or group is added, changed, deleted or given a password through /admin/."""

from __future__ import annotations

import logging

import pytest
from django.contrib.auth.models import Group, Permission

PASSWORD = "organiser-pass-123"  # (tests/personas.py)


def accounts() -> tuple:
    """Every row an account's admin could change, as plain values."""
    from django.contrib.auth import get_user_model

    users = get_user_model().objects.order_by("pk")
    return (list(users.values()), list(Group.objects.order_by("pk").values()),
            sorted(users.model.groups.through.objects.values_list("user_id", "group_id")),
            sorted(users.model.user_permissions.through.objects.values_list("user_id", "permission_id")),
            sorted(Group.permissions.through.objects.values_list("group_id", "permission_id")))


@pytest.fixture
def superuser_organiser(organiser):
    organiser.is_staff = organiser.is_superuser = True  # as `make run` (ensure_organiser) makes them
    organiser.save()
    return organiser


def test_users_and_groups_are_shown_and_never_added_changed_given_a_password_or_deleted(
        superuser_organiser, organiser_client, other_organiser, caplog):
    group = Group.objects.create(name="Helpers")
    group.permissions.add(Permission.objects.get(codename="view_drive"))
    other = other_organiser
    before = accounts()
    client = organiser_client

    # Shown, read-only.
    for url in ("/admin/auth/user/", f"/admin/auth/user/{other.pk}/change/", "/admin/auth/group/",
                f"/admin/auth/group/{group.pk}/change/"):
        page = client.get(url)
        assert page.status_code == 200, url
        assert 'name="_save"' not in page.content.decode(), url

    new_user = {"username": "mallory", "password1": "mallory-pass-123456", "password2": "mallory-pass-123456",
                "usable_password": "true", "_save": "1"}
    changed_user = {"username": "eve2", "is_active": "on", "is_staff": "on", "is_superuser": "on",
                    "date_joined_0": "2026-12-01", "date_joined_1": "20:00:00", "_save": "1"}
    new_password = {"password1": "taken-over-123456", "password2": "taken-over-123456", "usable_password": "true",
                    "set_usable_password": "true", "_save": "1"}
    with caplog.at_level(logging.WARNING):
        refused = {
            "add a user": client.post("/admin/auth/user/add/", new_user),
            "the add page": client.get("/admin/auth/user/add/"),
            "change another user": client.post(f"/admin/auth/user/{other.pk}/change/", changed_user),
            "change oneself": client.post(f"/admin/auth/user/{superuser_organiser.pk}/change/",
                                          {**changed_user, "username": "olive", "is_active": ""}),
            "set the organiser's password": client.post(f"/admin/auth/user/{superuser_organiser.pk}/password/",
                                                        new_password),
            "set another's password": client.post(f"/admin/auth/user/{other.pk}/password/", new_password),
            "unset a password": client.post(f"/admin/auth/user/{other.pk}/password/",
                                            {"usable_password": "false", "unset-password": "1"}),
            "the password page": client.get(f"/admin/auth/user/{superuser_organiser.pk}/password/"),
            "delete a user": client.post(f"/admin/auth/user/{other.pk}/delete/", {"post": "yes"}),
            "add a group": client.post("/admin/auth/group/add/", {"name": "Admins", "_save": "1"}),
            "change a group": client.post(f"/admin/auth/group/{group.pk}/change/", {"name": "Admins", "_save": "1"}),
            "delete a group": client.post(f"/admin/auth/group/{group.pk}/delete/", {"post": "yes"}),
            "the admin's own password change": client.post("/admin/password_change/", {
                "old_password": PASSWORD, "new_password1": "taken-over-123456", "new_password2": "taken-over-123456"}),
            "its page": client.get("/admin/password_change/"),
        }
    assert {what: r.status_code for what, r in refused.items()} == {what: 403 for what in refused}
    assert "make password" in refused["the admin's own password change"].content.decode()
    # The list's bulk delete is not offered: asked for anyway, it deletes nothing.
    for url, model in (("/admin/auth/user/", other), ("/admin/auth/group/", group)):
        response = client.post(url, {"action": "delete_selected", "_selected_action": [model.pk], "post": "yes"})
        assert response.status_code in (200, 302)
    assert accounts() == before
    superuser_organiser.refresh_from_db()
    assert superuser_organiser.check_password(PASSWORD) and superuser_organiser.is_superuser
    # Each refusal is one line in the log, without a traceback.
    lines = [r for r in caplog.records if r.name.startswith("django.")]
    assert len(lines) == len(refused) and all(r.exc_info is None and not r.exc_text for r in lines)
    index = client.get("/admin/")
    assert index.status_code == 200
    # Its header offers no password change that would be refused; signing out, as ever.
    header = index.content.decode()
    assert "/admin/password_change/" not in header and 'action="/admin/logout/"' in header


def test_a_filter_in_the_address_the_page_does_not_offer_is_refused_in_one_line(superuser_organiser, organiser_client,
                                                                                 caplog):
    """Found by probing: the admin took any lookup on any field from the address, and many failed
    in the database (a year out of range, a bad regular expression, a JSON lookup SQLite lacks),
    a server error with a traceback. Only the sidebar's own filters are read; any other is a 400."""
    from tests.factories import make_drive

    make_drive(superuser_organiser, 4)
    for url in ("/admin/drive/drive/?created_at__year=99999", "/admin/drive/drive/?date__year=0",
                "/admin/drive/player/?name__regex=(", "/admin/scoring/result/?summary__contains=x",
                "/admin/drive/player/?name__range=a,b", "/admin/drive/player/?drive__gt=99999999999999999999",
                "/admin/auth/user/?last_login__iso_year=99999", "/admin/drive/player/?name=P001"):
        assert organiser_client.get(url).status_code == 400, url
    lines = [r for r in caplog.records if r.name.startswith("django.")]
    assert len(lines) == 8 and all(r.exc_info is None and not r.exc_text for r in lines)
    # The sidebar's filters, and its search, work as before; an odd value in one of them is
    # Django's own "?e=1" (a redirect to the list unfiltered).
    for url in ("/admin/drive/drive/?status__exact=open", "/admin/drive/player/?active__exact=1",
                "/admin/drive/player/?q=P001", "/admin/auth/user/?is_staff__exact=1",
                "/admin/auth/user/?groups__id__exact=1", "/admin/drive/drive/?date__gte=2026-01-01&date__lt=2027-01-01"):
        assert organiser_client.get(url).status_code == 200, url
    for url in ("/admin/drive/drive/?date__gte=99999-01-01", "/admin/drive/player/?active__exact=maybe",
                "/admin/auth/user/?groups__id__exact=99999999999999999999", "/admin/drive/drive/?status__exact=zz",
                "/admin/drive/drive/?date__isnull=perhaps"):
        assert organiser_client.get(url).status_code in (200, 302), url


def test_a_search_of_too_many_words_is_refused_in_one_line(superuser_organiser, organiser_client, caplog):
    """Found by probing: a search of 1,000 words (``?q=a a a …``) was a condition too deep for
    SQLite, a server error with a traceback, on every list that searches. At most 20 words; more
    is a 400 of one line."""
    from common.admin import ReadOnly
    from tests.factories import make_drive

    make_drive(superuser_organiser, 4)
    most = " ".join(["P001"] * ReadOnly.MOST_SEARCH_WORDS)
    for page in ("/admin/drive/player/", "/admin/drive/drive/", "/admin/auth/user/"):
        assert organiser_client.get(page, {"q": most}).status_code == 200, page
        assert organiser_client.get(page, {"q": "a " * 1000}).status_code == 400, page
    lines = [r for r in caplog.records if r.name.startswith("django.")]
    assert len(lines) == 3 and all(r.exc_info is None and not r.exc_text for r in lines)
