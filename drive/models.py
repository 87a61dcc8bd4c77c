"""A drive and its players. Tables, hands and seats live in ``tables``; points in ``scoring``."""

from __future__ import annotations

import random
import secrets
from functools import cached_property

from django.conf import settings
from django.core.exceptions import ObjectDoesNotExist, ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.db.models.functions import Lower
from django.utils import timezone

from common.jsoncodec import JSONField
from games import Game, GameError, default_slug, get_game
from tables.models import TableHand

# Letters nobody confuses when read off a projector or typed on a phone (no I, L, O, 0, 1, U/V).
JOIN_ALPHABET = "ABCDEFGHJKMNPQRSTWXYZ"
JOIN_CODE_LENGTH = 5


def new_join_code() -> str:
    return "".join(secrets.choice(JOIN_ALPHABET) for _ in range(JOIN_CODE_LENGTH))


def new_seed() -> int:
    return random.SystemRandom().randrange(2**62)


def new_token() -> str:
    return secrets.token_urlsafe(24)


class Drive(models.Model):
    class Target(models.TextChoices):
        HANDS = "hands", "An agreed number of hands"
        TOTAL = "total", "An agreed total"
        EITHER = "either", "Whichever comes first"

    class Status(models.TextChoices):
        SETUP = "setup", "Setting up"
        PLAYING = "playing", "Playing"
        FINISHED = "finished", "Finished"

    PlayMode = TableHand.PlayMode  # one list of play modes, the tables' own

    name = models.CharField(max_length=120)
    date = models.DateField(default=timezone.localdate)
    game = models.CharField(max_length=40, default=default_slug, help_text="The registered game's slug.")
    organiser = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="drives")
    join_code = models.CharField(max_length=8, unique=True, default=new_join_code)
    target = models.CharField(max_length=10, choices=Target.choices, default=Target.TOTAL)
    target_hands = models.PositiveSmallIntegerField(
        default=12, validators=[MinValueValidator(1), MaxValueValidator(200)]
    )
    target_total = models.PositiveSmallIntegerField(
        default=50, validators=[MinValueValidator(5), MaxValueValidator(10000)]
    )
    # At least two; the most a table seats is the drive's game's (``Game.max_players``, checked by
    # the drive form and the seating), so a game that seats more needs no change here.
    # Within the game's table sizes (``clean``, which says so in the game's words; a validator of
    # its own here said "at least 2" beside it), and never under 2 (the constraint below).
    preferred_table_size = models.PositiveSmallIntegerField(default=4)
    play_mode = models.CharField(max_length=10, choices=PlayMode.choices, default=PlayMode.PHYSICAL)
    house_rules = JSONField(default=dict, blank=True)
    allow_self_join = models.BooleanField(
        default=False, help_text="Players may add their own name when they join on a phone."
    )
    suspense_hands = models.PositiveSmallIntegerField(
        default=0, validators=[MaxValueValidator(50)],
        help_text="Freeze the board's standings for this many final hands.",
    )
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.SETUP)
    seed = models.BigIntegerField(default=new_seed, help_text="Seeds the seating draw and digital deals.")
    # Frozen when the drive ends: the standings as they stood, so later edits cannot change them.
    final_standings = JSONField(null=True, blank=True)
    show_prizes = models.BooleanField(default=False, help_text="The board shows the prize-giving.")
    # Once the prize-giving has been shown, suspense is over: the board's way back to the
    # standings shows them final, not frozen as before the reveal.
    prizes_revealed = models.BooleanField(default=False, help_text="The prize-giving has been shown once.")
    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-date", "-id"]
        constraints = [
            models.CheckConstraint(condition=models.Q(preferred_table_size__gte=2), name="drive_table_size_at_least_2"),
        ]

    @cached_property
    def game_rules(self) -> Game:
        """The drive's game as it plays here: the registered game with the drive's house rules."""
        return get_game(self.game, self.house_rules)

    def clean_fields(self, exclude=None) -> None:
        """As Django's, but players per table out of range is said once, in the game's words
        (``clean``), not also as the column's range ("greater than or equal to 0", "less than or
        equal to 32767" on PostgreSQL)."""
        try:
            super().clean_fields(exclude)
        except ValidationError as exc:
            size = self.preferred_table_size
            if isinstance(size, int):  # (``clean`` says any size out of the game's range)
                exc.error_dict.pop("preferred_table_size", None)
            if exc.error_dict:
                raise

    def clean(self) -> None:
        """Players per table within the game's table sizes (the drive's form, the admin)."""
        try:
            game = get_game(self.game)
        except GameError:
            raise ValidationError({"game": f"Unknown game {self.game!r}."}) from None
        size = self.preferred_table_size
        if size is not None and not game.min_players <= size <= game.max_players:
            raise ValidationError({"preferred_table_size": f"{game.name} is played by {game.min_players} to "
                                                           f"{game.max_players} players at a table."})

    def __str__(self) -> str:
        return f"{self.name} ({self.date:%d %b %Y})"

    def is_last_hand(self, number: int) -> bool:
        """No hand follows hand ``number``: the drive ends after a number of hands and this is the
        last of them (at a total, nobody knows which hand is the last until its close)."""
        return self.target != self.Target.TOTAL and number >= self.target_hands

    @property
    def is_finished(self) -> bool:
        return self.status == self.Status.FINISHED


class Player(models.Model):
    drive = models.ForeignKey(Drive, on_delete=models.CASCADE, related_name="players")
    name = models.CharField(max_length=40)
    active = models.BooleanField(default=True, help_text="False once the player has left the drive.")
    token = models.CharField(max_length=64, unique=True, default=new_token)
    phone_joined_at = models.DateTimeField(null=True, blank=True)
    # The organiser signed the player's phone out (a lost phone, a link shown to the wrong
    # person): the name can no longer be tapped in the join list, only the new private link
    # joins as them (which clears this).
    link_only = models.BooleanField(default=False, help_text="Only the player's private link joins as them.")
    # The phone that joined as the player (``drive.access.phone_key``: a digest of its own cookie;
    # "" for none): the same phone sending its join again soon after (its answer lost on the
    # hall's Wi-Fi, the page reloaded) is let in again, where any other phone is told the name is
    # taken (``services.join_phone``).
    phone_key = models.CharField(max_length=64, blank=True, default="", editable=False)
    added_by_phone = models.BooleanField(
        default=False, help_text="The player added their own name on a phone (self-join)."
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name", "id"]
        constraints = [
            models.UniqueConstraint(Lower("name"), "drive", name="player_name_unique_in_drive"),
        ]

    def __str__(self) -> str:
        return self.name

    @property
    def is_bot(self) -> bool:
        """The server plays for this player (a ``tables.BotPlayer`` row names it)."""
        try:
            return self.bot is not None
        except ObjectDoesNotExist:
            return False


class LateEntry(models.Model):
    """A result a phone sent for a hand the organiser had already closed (kept on the phone while
    it had no connection, and sent once it was back): not counted, and nothing else changed, but
    kept for the organiser, whose dashboard shows it until they apply it to that table's result
    (a correction) or set it aside. One a client key: the phone's resends are the same entry;
    and one of a player's waits per table (``drive.results.keep_late_entry``).
    A dispute sent late likewise (``reason``: what the player said is wrong; ``summary``: the
    result as the phone showed it), so that a complaint is never lost to the organiser."""

    drive = models.ForeignKey(Drive, on_delete=models.CASCADE, related_name="late_entries")
    table = models.ForeignKey(TableHand, on_delete=models.CASCADE, related_name="late_entries")
    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="late_entries")
    summary = JSONField(help_text="The answers the phone sent, in the game's entry format.")
    client_key = models.CharField(max_length=64, unique=True)
    received_at = models.DateTimeField(auto_now_add=True)
    settled = models.BooleanField(default=False, help_text="Applied to the table's result, or set aside.")
    reason = models.CharField(max_length=200, blank=True,
                              help_text="A dispute sent late: what the player said is wrong (blank for an entry).")

    class Meta:
        ordering = ["received_at", "id"]
        indexes = [models.Index(fields=["drive", "settled"])]

    def __str__(self) -> str:
        return f"Late entry of {self.player} for {self.table}"
