"""Personas for tests: the organiser, players at a table, a player of another table, a stranger."""

from __future__ import annotations

import pytest


@pytest.fixture
def organiser(django_user_model):
    return django_user_model.objects.create_user(username="olive", password="organiser-pass-123")


@pytest.fixture
def organiser_client(client, organiser):
    client.force_login(organiser)
    return client
