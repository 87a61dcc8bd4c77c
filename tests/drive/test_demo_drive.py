"""`manage.py demo_drive` (make demo): a living demo drive built through the services."""

from __future__ import annotations

import io
import random

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db.models import Sum

from drive import selectors
from drive.management.commands.demo_drive import bot_played_summary, demo_names
from drive.models import Drive, Player
from games import all_games, default_slug, get_game
from scoring.models import Result, Score
from tables.models import Hand, TableHand

pytestmark = pytest.mark.django_db


@pytest.fixture
def demo_organiser(django_user_model):
    return django_user_model.objects.create_superuser(username="organiser", password="organiser-pass-123")


def run(*args: str) -> str:
    out = io.StringIO()
    call_command("demo_drive", *args, stdout=out)
    return out.getvalue()


def test_default_demo_is_a_drive_in_the_middle_of_its_evening(demo_organiser):
    output = run("--seed", "11")
    drive = Drive.objects.get()
    assert drive.organiser == demo_organiser and drive.status == Drive.Status.PLAYING
    assert drive.game == default_slug()
    assert drive.target == Drive.Target.HANDS
    assert f"/drives/{drive.pk}/" in output

    assert drive.players.count() == 24
    assert len(set(drive.players.values_list("name", flat=True))) == 24
    hands = list(drive.hands.order_by("number"))
    assert [h.status for h in hands] == [Hand.Status.CLOSED] * 3 + [Hand.Status.PLAYING]
    for hand in hands:
        assert hand.tables.count() == 6
        assert hand.seats.count() == 24
    for hand in hands[:3]:
        assert {t.status for t in hand.tables.all()} == {TableHand.Status.CONFIRMED}
        assert Result.objects.filter(table__hand=hand, status=Result.Status.CONFIRMED).count() == 6
    in_play = hands[3].tables.all()
    confirmed = sum(t.status == TableHand.Status.CONFIRMED for t in in_play)
    assert 1 <= confirmed <= 2
    assert sum(t.status == TableHand.Status.PLAYING for t in in_play) == 6 - confirmed


@pytest.mark.parametrize("game", all_games(), ids=lambda g: g.slug)
@pytest.mark.parametrize("seed", ["2", "5"])
def test_every_game_s_demo_is_still_playing_when_opened(demo_organiser, game, seed):
    """Wonderland's demo often opened finished, its leader past a total the demo set
    for every game alike."""
    run("--game", game.slug, "--seed", seed)
    drive = Drive.objects.get()
    assert drive.status == Drive.Status.PLAYING
    assert [h.status for h in drive.hands.order_by("number")] == [Hand.Status.CLOSED] * 3 + [Hand.Status.PLAYING]


def test_standings_match_the_scores_written(demo_organiser):
    run("--seed", "3")
    drive = Drive.objects.get()
    ranked = selectors.standings(drive)
    assert len(ranked) == 24 and ranked[0].rank == 1
    by_player = dict(
        Score.objects.filter(drive=drive, counted=True).values("player").annotate(t=Sum("points"))
        .values_list("player", "t")
    )
    for r in ranked:
        assert r.total == by_player.get(r.row.player_id, 0)
        assert r.row.hands_played in (3, 4)  # three closed hands, and the next for some
    assert sum(r.total for r in ranked) == sum(by_player.values())
    assert sum(r.facts[0] for r in ranked) == Result.objects.filter(drive=drive, winner__isnull=False).count()
    # Winners as the game decides them: some hands had one.
    assert Result.objects.filter(drive=drive, winner__isnull=False).exists()
    # Varied results: not everyone on the same score.
    assert len({r.total for r in ranked}) > 3


def test_standings_facts_are_the_totals_of_the_scores_details(demo_organiser):
    run("--seed", "3")
    drive = Drive.objects.get()
    ranked = selectors.standings(drive)
    scores = Score.objects.filter(drive=drive, counted=True)
    for i, fact in enumerate(drive.game_rules.facts):
        if not fact.best:
            written = sum(s.details.get(fact.key, 0) for s in scores)
            assert written and sum(r.row.facts[i] for r in ranked) == written, fact.key


def test_hands_and_players_options_and_same_seed_same_drive(demo_organiser):
    run("--players", "10", "--hands", "2", "--seed", "8")
    run("--players", "10", "--hands", "2", "--seed", "8")
    first, second = Drive.objects.order_by("pk")
    for drive in (first, second):
        assert drive.players.count() == 10
        assert drive.hands.filter(status=Hand.Status.CLOSED).count() == 2
        assert drive.hands.get(number=3).status == Hand.Status.PLAYING
    totals = [[(r.name, r.total) for r in selectors.standings(d)] for d in (first, second)]
    assert totals[0] == totals[1]


def test_no_hands_leaves_the_first_hand_under_way(demo_organiser):
    run("--players", "2", "--hands", "0", "--seed", "1")
    hand = Drive.objects.get().hands.get()
    assert hand.number == 1 and hand.status == Hand.Status.PLAYING
    assert hand.tables.get().status == TableHand.Status.CONFIRMED


def test_falls_back_to_the_first_superuser_and_honours_organiser(django_user_model):
    boss = django_user_model.objects.create_superuser(username="boss", password="x-pass-123456")
    other = django_user_model.objects.create_user(username="olive", password="x-pass-123456")
    run("--players", "4", "--hands", "1", "--seed", "2")
    run("--players", "4", "--hands", "1", "--seed", "2", "--organiser", "olive")
    assert [d.organiser for d in Drive.objects.order_by("pk")] == [boss, other]


@pytest.mark.parametrize("args,message", [
    (["--players", "1"], "--players must be from 2 to 400"),
    (["--players", "401"], "--players must be from 2 to 400"),
    (["--hands", "-1"], "--hands must be from 0"),
    (["--hands", "101"], "--hands must be from 0"),
    (["--organiser", "nobody"], "no user named 'nobody'"),
])
def test_bad_arguments_are_refused_and_create_nothing(demo_organiser, args, message):
    with pytest.raises(CommandError, match=message):
        run(*args)
    assert not Drive.objects.exists() and not Player.objects.exists()


def test_without_any_organiser_it_says_what_to_do():
    with pytest.raises(CommandError, match="make run"):
        run()
    assert not Drive.objects.exists()


@pytest.mark.parametrize("game", all_games(), ids=lambda g: g.slug)
def test_bot_played_summaries_are_accepted_by_the_rules(game):
    for players in range(game.min_players, game.max_players + 1):
        rng = random.Random(players)
        for _ in range(20):
            outcome = game.outcome_from_summary(players, bot_played_summary(game, players, rng))
            assert len(outcome.points) == players


def test_a_hand_stopped_at_the_action_cap_is_entered_too():
    game = get_game(default_slug())
    summary = bot_played_summary(game, game.max_players, random.Random(5), max_actions=3)
    assert len(game.outcome_from_summary(game.max_players, summary).points) == game.max_players


@pytest.mark.parametrize("game", all_games(), ids=lambda g: g.slug)
def test_every_registered_game_gets_a_demo(demo_organiser, game):
    output = run("--game", game.slug, "--players", "9", "--hands", "2", "--seed", "4")
    drive = Drive.objects.get()
    assert drive.game == game.slug and game.name in drive.name and f"/drives/{drive.pk}/" in output
    assert drive.hands.filter(status=Hand.Status.CLOSED).count() == 2
    assert Result.objects.filter(drive=drive, status=Result.Status.CONFIRMED).count() >= 2
    assert len({r.total for r in selectors.standings(drive)}) > 1


def test_an_unknown_game_is_refused_with_the_registered_ones(demo_organiser):
    with pytest.raises(CommandError, match="Unknown game 'snap'; the registered games are: .*" + default_slug()):
        run("--game", "snap")
    assert not Drive.objects.exists()


def test_names_are_distinct_even_for_a_big_drive():
    names = demo_names(400, random.Random(0))
    assert len(names) == len({n.casefold() for n in names}) == 400
    assert all(len(n) <= 40 for n in names)
