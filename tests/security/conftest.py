"""Personas and state snapshots for the security tests.

Five personas around one started drive of eight (two tables of four):
the organiser, a player of table 1 (two of them: one enters, one confirms), a player of table 2,
a player of another drive (another organiser's), and a stranger (no cookie, no session).
"""

from __future__ import annotations

import random

import pytest
from django.test import Client

from drive import services
from drive.models import Drive, Player
from scoring.models import Correction, Result, Score
from tables.models import Hand, Seat, TableHand
from tests.factories import make_drive, seated_drive, shown_for


def phone_client(drive, player, **kwargs) -> Client:
    client = Client(**kwargs)
    client.cookies[f"ff_{drive.join_code}"] = player.token
    return client


def seat_players(table) -> list[Player]:
    return [s.player for s in table.seats.select_related("player").order_by("position")]


def snapshot() -> tuple:
    """Every row a request could change, as plain values (compare before/after a refused request)."""
    return (
        list(Drive.objects.order_by("pk").values()),
        list(Player.objects.order_by("pk").values()),
        list(Hand.objects.order_by("pk").values()),
        list(TableHand.objects.order_by("pk").values()),
        list(Seat.objects.order_by("pk").values()),
        list(Result.objects.order_by("pk").values()),
        list(Score.objects.order_by("pk").values()),
        list(Correction.objects.order_by("pk").values()),
    )


def entry_data(players: int, declarer, key="k1", seen=0, hand=1, table=1, by=None) -> dict:
    """An entry form's answers, as shown for ``hand`` and ``table`` (Table 1 of hand 1: the enterer's)
    to the player ``by`` (a phone's form); without ``by``, as the organiser's forms name the hand."""
    shown = shown_for(by, hand, table) if by is not None else {"hand": str(hand), "table": str(table)}
    data = {"declarer": str(declarer), "nine_card": "False", "dealer": "0", "client_key": key, "seen_revision": str(seen),
            **shown}
    for i in range(players):
        data[f"seat{i}_sets"] = "0"
        data[f"seat{i}_ice"] = "none"
    return data


class World:
    """The drive under test and everyone around it."""

    def __init__(self, organiser, other_organiser):
        self.organiser = organiser
        self.other_organiser = other_organiser
        self.drive = seated_drive(organiser, 8)
        self.hand = self.drive.hands.get()
        self.t1, self.t2 = self.hand.tables.order_by("number")
        self.table1 = seat_players(self.t1)
        self.table2 = seat_players(self.t2)
        self.enterer, self.confirmer = self.table1[0], self.table1[1]
        self.other_table_player = self.table2[0]
        self.other_drive = seated_drive(other_organiser, 4, name="Other drive")
        self.other_drive_player = self.other_drive.players.first()
        self.code = self.drive.join_code

    # clients ------------------------------------------------------------------------------
    def organiser_client(self, **kw) -> Client:
        c = Client(**kw)
        c.force_login(self.organiser)
        return c

    def other_organiser_client(self, **kw) -> Client:
        c = Client(**kw)
        c.force_login(self.other_organiser)
        return c

    def phone(self, player, **kw) -> Client:
        drive = self.other_drive if player.drive_id == self.other_drive.pk else self.drive
        c = Client(**kw)
        # the player's own cookie, named after *their* drive (what their phone really holds)
        c.cookies[f"ff_{drive.join_code}"] = player.token
        return c


@pytest.fixture
def other_organiser(django_user_model):
    return django_user_model.objects.create_user(username="eve", password="eve-organiser-pass-123")


@pytest.fixture
def world(db, organiser, other_organiser) -> World:
    return World(organiser, other_organiser)


__all__ = ["World", "entry_data", "make_drive", "phone_client", "random", "seat_players", "services", "snapshot"]
