"""The board's chart: the leaders' cumulative totals, hand by hand."""

from __future__ import annotations

from drive.models import Drive
from scoring import standings as ranking
from scoring.models import Score


def leaders_chart(drive: Drive, ranked: list[ranking.Ranked], leaders: int = 5, *, up_to: int | None = None) -> dict:
    """Cumulative totals hand by hand of the top ``leaders`` players who have played a hand (one
    query), for an SVG chart: one who has not (a late arrival, a bot just added, on 0) would take
    a line from a player behind them on points who has played."""
    top = [r for r in ranked if r.row.hands_played][:leaders]
    ids = [r.row.player_id for r in top]
    scores = Score.objects.filter(drive=drive, counted=True, player_id__in=ids)
    if up_to is not None:
        scores = scores.filter(hand_number__lte=up_to)
    per_hand: dict[int, dict[int, int]] = {}
    last_hand = 0
    for player_id, hand_number, points in scores.values_list("player_id", "hand_number", "points"):
        per_hand.setdefault(player_id, {})[hand_number] = points
        last_hand = max(last_hand, hand_number)
    series = []
    for r in top:
        total, points = 0, [0]
        for n in range(1, last_hand + 1):
            total += per_hand.get(r.row.player_id, {}).get(n, 0)
            points.append(total)
        series.append({"name": r.name, "points": points})
    return {"hands": last_hand, "series": series}
