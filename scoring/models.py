"""Results of hands, each player's points, and the audit log of corrections."""

from __future__ import annotations

from django.conf import settings
from django.db import models

from common.jsoncodec import JSONField
from games.base import STOPPED


class Result(models.Model):
    """The one result of one table in one hand (physical entry, digital play, or organiser)."""

    class Source(models.TextChoices):
        PHONE = "phone", "Entered on a phone"
        DIGITAL = "digital", "Played on the phones"
        ORGANISER = "organiser", "Entered by the organiser"
        NOT_PLAYED = "not_played", "Not played"

    class Status(models.TextChoices):
        ENTERED = "entered", "Entered"
        DISPUTED = "disputed", "Disputed"
        CONFIRMED = "confirmed", "Confirmed"

    table = models.OneToOneField("tables.TableHand", on_delete=models.CASCADE, related_name="result")
    drive = models.ForeignKey("drive.Drive", on_delete=models.CASCADE, related_name="results")
    summary = JSONField(help_text="What happened, in the game's entry format.")
    source = models.CharField(max_length=12, choices=Source.choices)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.ENTERED)
    # Who won the hand (the game's ``Outcome.winner``); None when nobody did.
    winner = models.ForeignKey(
        "drive.Player", null=True, blank=True, on_delete=models.PROTECT, related_name="won_results"
    )
    mover = models.ForeignKey("drive.Player", on_delete=models.PROTECT, related_name="moved_up_results")
    entered_by = models.ForeignKey(
        "drive.Player", null=True, blank=True, on_delete=models.PROTECT, related_name="entered_results"
    )
    confirmed_by = models.ForeignKey(
        "drive.Player", null=True, blank=True, on_delete=models.PROTECT, related_name="confirmed_results"
    )
    dispute_reason = models.CharField(max_length=200, blank=True)
    client_key = models.CharField(max_length=64, null=True, blank=True, unique=True)
    revision = models.PositiveIntegerField(default=1)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"Result of {self.table}"

    @property
    def ended_by(self) -> str:
        """How a hand played on the phones ended, in its game's code, as the engine recorded it
        beside the answers (the summary's ``digital``: tables.digital.summary_of); "" for a hand
        played with cards, and once the organiser corrected it (their answers replace the
        engine's record)."""
        digital = (self.summary or {}).get("digital")
        return str(digital.get("ended_by") or "") if isinstance(digital, dict) else ""

    @property
    def stopped_by_the_bell(self) -> bool:
        """The organiser's bell ended the hand while it was played (``stop()``: games/base.py)."""
        return self.ended_by == STOPPED


def played(through: str = "") -> models.Q:
    """The scores of hands played, as a filter on scores (``through="scores__"`` from a player):
    counted, of a table not recorded as not played (a close that found no result gives each seat
    0, which is no hand played: no place, no prize, no standing of its own). The one meaning of
    "played a hand" for the standings, the score cards, who leaves with a phone and who holds a
    place in a drive."""
    return models.Q(**{f"{through}counted": True}) & ~models.Q(**{f"{through}result__summary__has_key": "not_played"})


class Score(models.Model):
    """One player's points for one table-hand. Counted in standings once the result is confirmed."""

    result = models.ForeignKey(Result, on_delete=models.CASCADE, related_name="scores")
    player = models.ForeignKey("drive.Player", on_delete=models.PROTECT, related_name="scores")
    drive = models.ForeignKey("drive.Drive", on_delete=models.CASCADE, related_name="scores")
    hand_number = models.PositiveSmallIntegerField()
    points = models.SmallIntegerField()
    # The game's standings facts for this player in this hand (``games.base.Fact``), only
    # those that are not 0: whole numbers by fact key.
    details = JSONField(default=dict, blank=True)
    counted = models.BooleanField(default=False, help_text="True once the result is confirmed.")

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["result", "player"], name="one_score_per_player_per_result"),
            models.UniqueConstraint(fields=["drive", "hand_number", "player"], name="one_score_per_player_per_hand"),
        ]
        indexes = [models.Index(fields=["drive", "counted", "player"])]


class Correction(models.Model):
    """Audit log: every change to a result after it was entered."""

    result = models.ForeignKey(Result, on_delete=models.CASCADE, related_name="corrections")
    drive = models.ForeignKey("drive.Drive", on_delete=models.CASCADE, related_name="corrections")
    by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.PROTECT)
    at = models.DateTimeField(auto_now_add=True)
    old = JSONField()
    new = JSONField()
    reason = models.CharField(max_length=300)
    # Whether the answers changed: False when the organiser saved an entry as it stood, to
    # confirm it or to uphold it against a dispute (the pages then say "confirmed by the
    # organiser", not "corrected").
    changed = models.BooleanField(default=True)

    class Meta:
        ordering = ["-at", "-id"]
