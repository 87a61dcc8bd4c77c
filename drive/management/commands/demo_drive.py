"""Fill the database with a living demo drive of any registered game (``make demo``).

About two dozen players at six tables, a few hands played and closed, and the next hand under
way with a result or two already in, so a newcomer opening the dashboard sees a drive in the
middle of its evening. Everything is written through ``drive.services`` (the drive row itself is
validated like the "new drive" form, as there is no service for it). Each table's result is a
real hand: the game's own bots play it through the game contract (``new_hand``, ``bot_action``),
the odd long one is stopped as an organiser would stop it, and the finished hand's
``hand_summary`` is entered as the organiser's result. Nothing here knows a game's rules.

    python manage.py demo_drive [--game SLUG] [--players 24] [--hands 3] [--seed S] [--organiser NAME]
"""

from __future__ import annotations

import random

from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError
from django.db import transaction

from drive import live, selectors, services
from drive.models import Drive
from drive.services import DriveError
from games import Game, GameError, game_named, get_game
from tables.models import Hand

MIN_PLAYERS, MAX_PLAYERS = 2, 400
MAX_HANDS = 100
MAX_ACTIONS = 1000  # a bot-played hand still going after this many actions is stopped, as an organiser would
PREFERRED_TABLE_SIZE = 4

# Sixty first names of a 1930s British village hall.
FIRST_NAMES = [
    "Ada", "Agatha", "Albert", "Alfred", "Alma", "Archie", "Arthur", "Beatrice", "Bertie", "Cecil",
    "Charlotte", "Clara", "Clarence", "Cyril", "Daisy", "Dorothy", "Edith", "Edmund", "Edna", "Elsie",
    "Ernest", "Ethel", "Evelyn", "Florence", "Frank", "Freda", "Gertrude", "Gladys", "Harold", "Hilda",
    "Horace", "Ida", "Irene", "Ivy", "Jack", "Kathleen", "Leonard", "Lilian", "Mabel", "Margaret",
    "Marjorie", "Maud", "Muriel", "Nora", "Norman", "Olive", "Percy", "Phyllis", "Reginald", "Rose",
    "Ruby", "Sidney", "Stanley", "Sybil", "Violet", "Walter", "Wilfred", "Winifred", "Vera", "Hubert",
]
SURNAMES = [
    "Ashby", "Baxter", "Bellamy", "Cartwright", "Crabtree", "Dawlish", "Ellery", "Fairweather",
    "Gribble", "Hartley", "Hollis", "Jessop", "Kettering", "Lamb", "Marsh", "Nettleship", "Oakley",
    "Pargeter", "Quigley", "Rudd", "Scrivener", "Thistlewood", "Underhill", "Vane", "Whitlock",
]


def demo_names(count: int, rng: random.Random) -> list[str]:
    """``count`` distinct names: first names alone, then first name and surname beyond sixty."""
    first = rng.sample(FIRST_NAMES, len(FIRST_NAMES))
    if count <= len(first):
        return first[:count]
    full = [f"{f} {s}" for f in FIRST_NAMES for s in SURNAMES]
    rng.shuffle(full)
    return first + full[: count - len(first)]


def bot_played_summary(game: Game, players: int, rng: random.Random, max_actions: int = MAX_ACTIONS) -> dict:
    """A hand of ``game`` at a table of ``players`` played by the game's bots (``bot_action``,
    asking the seats in turn) to its end, or stopped after ``max_actions`` actions or when no
    seat has anything to do; its entry summary (``hand_summary``)."""
    state = game.new_hand(players, rng)
    actions = 0
    while not state.finished and actions < max_actions:
        acted = False
        for seat in range(players):
            action = game.bot_action(state, seat, rng)
            if action is None:
                continue
            state.apply(seat, action)
            actions += 1
            acted = True
            if state.finished or actions >= max_actions:
                break
        if not acted:
            break
    if not state.finished:
        state.stop()
    return game.hand_summary(state)


class Command(BaseCommand):
    help = "Create a realistic demo drive: players seated, a few hands played, the next one under way."

    def add_arguments(self, parser):
        parser.add_argument("--game", default=None, help="the game's slug (default: the default game)")
        parser.add_argument("--players", type=int, default=24,
                            help=f"number of players, {MIN_PLAYERS} to {MAX_PLAYERS} (default 24: six tables of four)")
        parser.add_argument("--hands", type=int, default=3,
                            help=f"hands played and closed, 0 to {MAX_HANDS} (default 3); the next one is left in play")
        parser.add_argument("--seed", type=int, default=None, help="seed for names, seating and results (default: random)")
        parser.add_argument("--organiser", default=None,
                            help="user name of the drive's organiser (default: 'organiser', else the first superuser)")

    def handle(self, *args, game: str | None, players: int, hands: int, seed: int | None, organiser: str | None,
               **options):
        try:
            chosen = game_named(game)
        except GameError as refused:
            raise CommandError(str(refused)) from None
        slug = chosen.slug
        least = max(MIN_PLAYERS, chosen.min_players)  # one table of the game at the least
        if not least <= players <= MAX_PLAYERS:
            raise CommandError(f"--players must be from {least} to {MAX_PLAYERS}, not {players}.")
        if not 0 <= hands <= MAX_HANDS:
            raise CommandError(f"--hands must be from 0 to {MAX_HANDS}, not {hands}.")
        if seed is not None and not 0 <= seed < 2**62:
            raise CommandError(f"--seed must be from 0 to 2**62 - 1, not {seed}.")
        user = self._organiser(organiser)
        if seed is None:
            seed = random.SystemRandom().randrange(2**31)
        rng = random.Random(seed)
        try:
            with transaction.atomic():  # all or nothing: a failure leaves no half-made drive
                drive, note = self._build(user, slug, players, hands, seed, rng)
        except DriveError as exc:
            raise CommandError(f"Could not build the demo drive: {exc}") from None
        self._report(drive, seed, note)
        live.wait_idle(60)  # the screens' updates of what it built, sent before the process ends

    # --- pieces --------------------------------------------------------------------------------

    def _organiser(self, username: str | None):
        User = get_user_model()
        if username is not None:
            user = User.objects.filter(username=username.strip()).first()
            if user is None:
                raise CommandError(f"There is no user named {username!r}. Run `make run` once, or pass an existing --organiser.")
            return user
        user = User.objects.filter(username="organiser").first() or (
            User.objects.filter(is_superuser=True, is_active=True).order_by("pk").first()
        )
        if user is None:
            raise CommandError(
                "No organiser account yet: run `make run` once (it creates one), "
                "or pass --organiser with an existing user name."
            )
        return user

    def _build(self, user, slug: str, players: int, hands: int, seed: int,
               rng: random.Random) -> tuple[Drive, str]:
        game = get_game(slug)
        # A number of hands out of reach of the hands played, so the demo is still running when
        # opened (a total would be reached early by a game that scores high).
        drive = Drive(
            name=f"Demo drive — {game.name} night", game=slug, target=Drive.Target.HANDS,
            target_hands=max(12, hands + 2),
            preferred_table_size=min(max(PREFERRED_TABLE_SIZE, game.min_players), game.max_players),
            play_mode=Drive.PlayMode.PHYSICAL, house_rules={}, seed=seed,
        )
        try:
            services.create_drive(user, drive)
        except ValidationError as exc:
            raise CommandError(f"Could not create the demo drive: {exc}") from None
        services.add_players(drive, demo_names(players, rng))
        services.draw_seating(drive, random.Random(seed))
        for _ in range(hands):
            services.start_hand(drive)
            hand = selectors.current_hand(drive)
            for table in hand.tables.order_by("number"):
                self._enter(drive, table, user, rng)
            if services.close_hand(drive) is None:  # reached its target after all: it is over
                drive.refresh_from_db()
                return drive, "The drive reached its target and finished."
        # The next hand: started, with one or two tables already in.
        services.start_hand(drive)
        hand = selectors.current_hand(drive)
        tables = list(hand.tables.order_by("number"))
        ready = min(rng.choice([1, 2]), max(1, len(tables) - 1))
        for table in rng.sample(tables, ready):
            self._enter(drive, table, user, rng)
        drive.refresh_from_db()
        have = "has" if ready == 1 else "have"
        return drive, f"Hand {hand.number} is under way: {ready} of {len(tables)} tables {have} a result in."

    def _enter(self, drive: Drive, table, user, rng: random.Random) -> None:
        n = table.seats.count()
        summary = bot_played_summary(drive.game_rules, n, rng)
        try:
            services.organiser_result(drive, table, summary, user)
        except DriveError as exc:  # a finished hand's own summary refused: the game's bug, said plainly
            raise CommandError(f"{drive.game}: the summary of a bot-played hand at {n} was refused: {exc}") from None

    def _report(self, drive: Drive, seed: int, note: str) -> None:
        hand = selectors.current_hand(drive)
        closed = drive.hands.filter(status=Hand.Status.CLOSED).count()
        tables = selectors.tables_of(hand) if hand else []
        ranked = selectors.standings(drive)
        out = self.stdout
        out.write(self.style.SUCCESS(f"Created “{drive.name}” (drive {drive.pk}, seed {seed}, join code {drive.join_code})."))
        out.write(f"  organiser: {drive.organiser.get_username()}")
        out.write(f"  players:   {drive.players.count()} at {len(tables)} table{'s' if len(tables) != 1 else ''}")
        out.write(f"  hands:     {closed} closed. {note}")
        if ranked:
            top = ", ".join(f"{r.label}. {r.name} {r.total}" for r in ranked[:3])
            out.write(f"  leading:   {top}")
        out.write(f"Dashboard: /drives/{drive.pk}/  (standings: /drives/{drive.pk}/standings)")
