"""The benchmarks' drive, built in the benchmark's own process through the services (bench/hall.py,
bench/entry_burst.py): Django set up on the throwaway database, a drive of players seated at
tables of four with its first hand started."""

from __future__ import annotations

import os
import random

PHONES_PER_TABLE = 4


def setup_django(db_url: str | None, data_dir: str) -> None:
    if db_url:
        os.environ["DATABASE_URL"] = db_url
    else:
        os.environ.pop("DATABASE_URL", None)
    os.environ["DATA_DIR"] = data_dir
    os.environ.pop("REDIS_URL", None)  # this process only builds data: in-memory layer, no listeners
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    os.environ["DEBUG"] = "0"
    os.environ["SECRET_KEY"] = "bench-" + "k" * 60
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0, interactive=False)


MAX_TABLES_PER_DRIVE = 125  # 500 players, a drive's cap (drive.services.players.MAX_PLAYERS)


def split_tables(tables: int, per_drive: int = MAX_TABLES_PER_DRIVE) -> list[int]:
    """The hall's tables as drives of at most ``per_drive`` tables (a drive holds at most 500
    players), as even as can be: 250 tables are two drives of 125, side by side in the same
    hall and servers."""
    drives = -(-tables // per_drive)
    return [tables // drives + (1 if i < tables % drives else 0) for i in range(drives)]


def build_drives(tables: int, per_drive: int = MAX_TABLES_PER_DRIVE) -> list[dict]:
    """``build_drive`` for each drive of ``split_tables``, one organiser for all."""
    return [build_drive(n * PHONES_PER_TABLE, index=i) for i, n in enumerate(split_tables(tables, per_drive))]


def build_drive(players: int, index: int = 0) -> dict:
    from django.contrib.auth import get_user_model
    from django.db import connections
    from django.test import Client

    from drive import services
    from drive.access import player_cookie_name
    from drive.models import Drive

    users = get_user_model().objects
    user = users.filter(username="bench-organiser").first() or users.create_user("bench-organiser",
                                                                               password="bench-password-123")
    # Film Fantasy, named: the hall's and entry_burst's POSTs are its result form.
    drive = Drive.objects.create(organiser=user, name=f"Bench hall {index + 1}", game="film-fantasy",
                                 target=Drive.Target.HANDS, target_hands=50,
                                 preferred_table_size=PHONES_PER_TABLE, seed=4242)
    services.add_players(drive, [f"Player {i:03d}" for i in range(1, players + 1)])
    services.draw_seating(drive, random.Random(7 + index))
    services.start_hand(drive)
    client = Client()
    client.force_login(user)
    info = {
        "drive_id": drive.pk, "code": drive.join_code, "cookie": player_cookie_name(drive),
        "session": client.cookies["sessionid"].value,
        "tokens": dict(drive.players.values_list("pk", "token")),
    }
    connections.close_all()
    return info


def current_tables(drive_id: int) -> list[tuple[int, list[int]]]:
    """(table number, player ids in seat order) of the current hand."""
    from django.db import connections

    from tables.models import Hand

    hand = Hand.objects.filter(drive_id=drive_id).order_by("-number").first()
    out = [(t.number, [s.player_id for s in t.seats.order_by("position")]) for t in hand.tables.order_by("number")]
    connections.close_all()
    return out


