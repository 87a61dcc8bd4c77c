"""Migrations keep existing drives and their standings: a drive recorded before the games'
standings facts moved into ``Score.details`` (and the declarer became the result's ``winner``)
ranks exactly as it did, its frozen final standings included, and its correction log still
says who won."""

from __future__ import annotations

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

BEFORE = [("scoring", "0001_initial"), ("drive", "0003_player_added_by_phone"), ("tables", "0002_digital_play")]
AFTER = [("scoring", "0002_score_details_result_winner"), ("drive", "0004_game_default")]


def migrate(targets):
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(targets)
    return executor.loader.project_state(targets).apps


@pytest.fixture
def old_schema():
    """The database as it was before the facts moved; every app's latest migration afterwards,
    whatever the test did."""
    apps = migrate(BEFORE)
    try:
        yield apps
    finally:
        executor = MigrationExecutor(connection)
        migrate(executor.loader.graph.leaf_nodes())


@pytest.mark.django_db(transaction=True)
def test_an_old_drive_keeps_its_standings_facts_final_standings_and_correction_winners(old_schema):
    old = old_schema
    User = old.get_model("auth", "User")
    Drive, Player = old.get_model("drive", "Drive"), old.get_model("drive", "Player")
    Hand, TableHand, Seat = (old.get_model("tables", name) for name in ("Hand", "TableHand", "Seat"))
    Result, Score, Correction = (old.get_model("scoring", name) for name in ("Result", "Score", "Correction"))

    user = User.objects.create(username="olive")
    drive = Drive.objects.create(name="Old drive", organiser=user, game="film-fantasy", join_code="OLDDR", final_standings=[
        {"name": "Ann", "total": 25, "declarations": 1, "nine_card_declarations": 1, "hands_played": 1,
         "player_id": 1, "left": False},
    ])
    ann, bob = (Player.objects.create(drive=drive, name=n, token=f"t-{n}") for n in ("Ann", "Bob"))
    hand = Hand.objects.create(drive=drive, number=1, status="closed")
    table = TableHand.objects.create(hand=hand, number=1, status="confirmed")
    for position, player in enumerate((ann, bob)):
        Seat.objects.create(table=table, player=player, position=position, hand=hand)
    result = Result.objects.create(table=table, drive=drive, summary={"declarer": 0}, source="organiser",
                                   status="confirmed", declarer=ann, mover=ann)
    Score.objects.create(result=result, player=ann, drive=drive, hand_number=1, points=25, declared=True,
                         nine_card=True, counted=True)
    Score.objects.create(result=result, player=bob, drive=drive, hand_number=1, points=5, counted=True)
    Correction.objects.create(result=result, drive=drive, by=user, reason="fix",
                              old={"summary": {"declarer": 1}, "status": "entered", "points": {}},
                              new={"summary": {"declarer": 0}, "status": "confirmed", "points": {}})

    new = migrate(AFTER)
    Score, Result = new.get_model("scoring", "Score"), new.get_model("scoring", "Result")
    Correction, Drive = new.get_model("scoring", "Correction"), new.get_model("drive", "Drive")
    assert dict(Score.objects.values_list("player__name", "details")) == {
        "Ann": {"declarations": 1, "nine_card_declarations": 1}, "Bob": {}}
    assert Result.objects.get().winner_id == ann.pk
    correction = Correction.objects.get()
    assert (correction.old["winner"], correction.new["winner"]) == (bob.pk, ann.pk)
    frozen = Drive.objects.get().final_standings
    assert frozen == [{"name": "Ann", "total": 25, "facts": [1, 1], "hands_played": 1, "player_id": 1, "left": False}]

    # And the standings read from it, once every later migration has run too, rank as before:
    # Film Fantasy's facts, in its order.
    from drive import selectors
    from drive.models import Drive as LiveDrive

    migrate(MigrationExecutor(connection).loader.graph.leaf_nodes())

    live = LiveDrive.objects.get()
    ranked = selectors.standings(live)
    assert [(r.name, r.total, r.facts) for r in ranked] == [("Ann", 25, (1, 1))]
    live.final_standings = None
    ranked = selectors.standings(live)
    assert [(r.name, r.total, r.facts, r.label) for r in ranked] == [("Ann", 25, (1, 1), "1"), ("Bob", 5, (0, 0), "2")]
