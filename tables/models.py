"""Hands of a drive, its tables, who sits where for every hand, and digital hand state."""

from __future__ import annotations

from django.db import models

from common.jsoncodec import JSONField


class Hands(models.Manager):
    """``Hand.objects``, which knows a drive's current hand: its latest (the seating shown, the
    hand in play, or the last one closed), None before the first seating."""

    def current(self, drive) -> Hand | None:
        return self.filter(drive=drive).order_by("-number").first()

    def current_id(self, drive) -> models.Subquery:
        """The current hand's id as a subquery: a read of what is in it (a player's table, its
        seats) is then one query."""
        return models.Subquery(self.filter(drive=drive).order_by("-number").values("pk")[:1])


class Hand(models.Model):
    """Hand number N of a drive, played at every table at once."""

    class Status(models.TextChoices):
        SEATING = "seating", "Seating shown"
        PLAYING = "playing", "Playing"
        CLOSED = "closed", "Closed"

    # Templates get the class as ``Hand`` to compare with ``Hand.Status.SEATING``; the engine calls
    # whatever it resolves that is callable, so without this every such comparison built an
    # empty Hand (200 per dashboard of 100 tables, one or two per phone fragment).
    do_not_call_in_templates = True

    drive = models.ForeignKey("drive.Drive", on_delete=models.CASCADE, related_name="hands")
    number = models.PositiveSmallIntegerField()
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.SEATING)
    started_at = models.DateTimeField(null=True, blank=True)
    closed_at = models.DateTimeField(null=True, blank=True)

    objects = Hands()

    class Meta:
        ordering = ["drive", "number"]
        constraints = [
            models.UniqueConstraint(fields=["drive", "number"], name="hand_number_unique_in_drive"),
            models.CheckConstraint(condition=models.Q(number__gte=1), name="hand_number_from_one"),
        ]

    def __str__(self) -> str:
        return f"Hand {self.number}"


class TableHand(models.Model):
    """One table in one hand: its seats, its state, and (in ``scoring``) its result."""

    class Status(models.TextChoices):
        PLAYING = "playing", "Playing"
        ENTERED = "entered", "Entered, awaiting confirmation"
        DISPUTED = "disputed", "Disputed"
        CONFIRMED = "confirmed", "Confirmed"
        NOT_PLAYED = "not_played", "Not played"

    class PlayMode(models.TextChoices):
        PHYSICAL = "physical", "Cards on the table"
        DIGITAL = "digital", "On the phones"

    hand = models.ForeignKey(Hand, on_delete=models.CASCADE, related_name="tables")
    number = models.PositiveSmallIntegerField(help_text="Table 1 is the top table.")
    play_mode = models.CharField(max_length=10, choices=PlayMode.choices, default=PlayMode.PHYSICAL)
    status = models.CharField(max_length=12, choices=Status.choices, default=Status.PLAYING)
    # Digital play: the engine's JSON state; ``version`` rises with every accepted action.
    state = JSONField(null=True, blank=True)
    version = models.PositiveIntegerField(default=0)
    bots = JSONField(default=list, blank=True, help_text="Seat positions played by bots.")
    # Digital play: the seats of people a bot played for at some time in this hand (the
    # organiser's stand-in, ``digital.set_stand_in``), kept once the seat is given back: the
    # hands export says so (``bot_stood_in``).
    bot_played_for = JSONField(default=list, blank=True, help_text="Seat positions a bot played for their player.")
    # Digital play: the most recent client keys [key, version after the action], newest last, so
    # an action sent twice (double tap, resend after a reconnect) is applied once.
    client_keys = JSONField(default=list, blank=True)
    # Who moved up from this table when its hand closed, as the result then said: a correction
    # made after the close changes the result, not the moves made (drive.views._say_the_moves_stand).
    # Empty until the close, and after the drive's last hand, whose close moves nobody.
    moved_up = models.ForeignKey("drive.Player", null=True, blank=True, on_delete=models.PROTECT, related_name="+")
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["hand", "number"]
        constraints = [
            models.UniqueConstraint(fields=["hand", "number"], name="table_number_unique_in_hand"),
            models.CheckConstraint(condition=models.Q(number__gte=1), name="table_number_from_one"),
        ]

    def __str__(self) -> str:
        return f"Table {self.number}"

    @property
    def is_done(self) -> bool:
        return self.status in (self.Status.CONFIRMED, self.Status.NOT_PLAYED)

    @property
    def seated_bot(self):
        """The first player seated here who is a bot, or None: such a table plays on the phones
        (``drive.services.set_table_mode`` refuses cards). Reads the seats as prefetched (with
        ``player__bot``, as ``drive.selectors`` does)."""
        bots = self.seated_bots
        return bots[0] if bots else None

    @property
    def seated_bots(self) -> list:
        """The players seated here who are bots, in seat order (``seated_bot``)."""
        return [seat.player for seat in self.seats.all() if getattr(seat.player, "bot", None) is not None]

    @property
    def on_the_phones(self) -> bool:
        """Its hand is dealt and still being played on the phones: the engine (or the bell) will
        record its result; nobody enters one."""
        return self.play_mode == self.PlayMode.DIGITAL and self.is_dealt and self.status == self.Status.PLAYING

    @property
    def is_dealt(self) -> bool:
        """A digital hand has been dealt here (its state is stored). Read from the annotation
        ``state_stored`` when the query left the state out (``drive.selectors.tables_of``):
        asking for the deferred state would read it again, one query per table."""
        if "state" not in self.__dict__ and "state_stored" in self.__dict__:
            return self.state_stored
        return self.state is not None


class Seat(models.Model):
    """A player at a table for one hand. ``position`` 0.. is clockwise: the next is on the left."""

    table = models.ForeignKey(TableHand, on_delete=models.CASCADE, related_name="seats")
    hand = models.ForeignKey(Hand, on_delete=models.CASCADE, related_name="seats")
    player = models.ForeignKey("drive.Player", on_delete=models.PROTECT, related_name="seats")
    position = models.PositiveSmallIntegerField()

    class Meta:
        ordering = ["table", "position"]
        constraints = [
            models.UniqueConstraint(fields=["hand", "player"], name="player_seated_once_per_hand"),
            models.UniqueConstraint(fields=["table", "position"], name="one_player_per_seat"),
        ]

    def __str__(self) -> str:
        return f"{self.player} at {self.table} seat {self.position + 1}"


class BotPlayer(models.Model):
    """Marks a drive's player as a bot (the engine's greedy bot plays its seats in digital hands).

    A bot is an ordinary ``drive.Player`` (seats, scores and movement need one), named "Bot 1",
    "Bot 2"…; this row says the server plays for it. Kept here so the drive's models stay
    game-agnostic."""

    player = models.OneToOneField("drive.Player", on_delete=models.CASCADE, related_name="bot")
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"{self.player} (bot)"
