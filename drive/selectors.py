"""Reads for the drive pages. Each runs a fixed number of queries, whatever the drive's size."""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import Count, Prefetch, Q, QuerySet, Sum
from django.db.models.functions import Coalesce

from drive.models import Drive, Player
from scoring import standings as ranking
from scoring.models import Correction, Result, Score
from tables.models import Hand, Seat, TableHand


def drives_for(user) -> QuerySet[Drive]:
    return Drive.objects.filter(organiser=user).annotate(player_count=Count("players")).order_by("-date", "-id")


def current_hand(drive: Drive) -> Hand | None:
    return drive.hands.order_by("-number").first()


def standings_rows(drive: Drive, *, live: bool = False) -> list[ranking.Row]:
    """Every player's totals over confirmed results (one query). A finished drive's are frozen."""
    if drive.final_standings is not None and not live:
        return [ranking.Row(**row) for row in drive.final_standings]
    counted = Q(scores__counted=True)
    players = Player.objects.filter(drive=drive).annotate(
        total=Coalesce(Sum("scores__points", filter=counted), 0),
        n_declared=Count("scores", filter=counted & Q(scores__declared=True)),
        n_nine=Count("scores", filter=counted & Q(scores__nine_card=True)),
        n_hands=Count("scores", filter=counted),
    )
    return [
        ranking.Row(
            name=p.name, total=p.total, declarations=p.n_declared, nine_card_declarations=p.n_nine,
            hands_played=p.n_hands, player_id=p.pk,
        )
        for p in players
    ]


def standings(drive: Drive) -> list[ranking.Ranked]:
    return ranking.rank(standings_rows(drive))


def prizes(ranked: list[ranking.Ranked]) -> dict[str, list[ranking.Ranked]]:
    return ranking.prizes(ranked)


def tables_of(hand: Hand | None) -> list[TableHand]:
    """The hand's tables with their seated players and results: three queries, any size."""
    if hand is None:
        return []
    return list(
        hand.tables.order_by("number")
        .select_related("result")
        .prefetch_related(Prefetch("seats", queryset=Seat.objects.select_related("player").order_by("position")))
    )


@dataclass
class Progress:
    done: int
    total: int
    entered: int
    disputed: int


def progress(tables: list[TableHand]) -> Progress:
    return Progress(
        done=sum(t.is_done for t in tables),
        total=len(tables),
        entered=sum(t.status == TableHand.Status.ENTERED for t in tables),
        disputed=sum(t.status == TableHand.Status.DISPUTED for t in tables),
    )


def hand_scores(drive: Drive) -> QuerySet[Score]:
    """Every score of the drive, for the per-hand export (one query)."""
    return (
        Score.objects.filter(drive=drive)
        .select_related("player", "result", "result__table")
        .order_by("hand_number", "result__table__number", "player__name")
    )


def corrections(drive: Drive) -> QuerySet[Correction]:
    return Correction.objects.filter(drive=drive).select_related("by", "result__table__hand").order_by("-at")


def unseated_active(drive: Drive, hand: Hand | None) -> list[Player]:
    """Active players not seated in ``hand`` (late arrivals waiting for the next hand)."""
    players = drive.players.filter(active=True)
    if hand is not None:
        players = players.exclude(seats__hand=hand)
    return list(players)


def open_results(drive: Drive) -> QuerySet[Result]:
    return Result.objects.filter(drive=drive, status=Result.Status.DISPUTED).select_related("table__hand")
