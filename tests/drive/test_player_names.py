"""Players' names as the organiser types them (``drive/services/names.py``, ``add_players``): a
name the drive holds already, in any spelling that looks the same, is refused naming it as it
is held; characters with no shape of their own make no name; a drive's cap of players and the
places a name taken out frees."""

from __future__ import annotations

import unicodedata

import pytest

from drive import services
from drive.services import DriveError
from tests.factories import make_drive, seated_drive

pytestmark = pytest.mark.django_db


def test_duplicate_names_are_refused_naming_the_player_as_the_drive_holds_them(organiser):
    drive = make_drive(organiser, 0)
    services.add_players(drive, ["Ann"])
    with pytest.raises(DriveError, match="Already in this drive: \u2068Ann\u2069"):
        services.add_players(drive, ["ann"])


def test_a_drive_holds_at_most_its_cap_of_players(organiser, monkeypatch):
    monkeypatch.setattr(services.players, "MAX_PLAYERS", 6)
    drive = make_drive(organiser, 0)
    services.add_players(drive, ["Ann", "Bob", "Cy", "Di"])
    with pytest.raises(DriveError, match="at most 6 players: it has 4, and these 3 names would make 7"):
        services.add_players(drive, ["Ed", "Flo", "Gus"])
    assert drive.players.count() == 4  # none of them added
    services.add_players(drive, ["Ed", "Flo"])
    assert drive.players.count() == 6
    with pytest.raises(DriveError, match="This drive is full: it holds at most 6 players"):
        services.add_players(drive, ["Gus"])


def test_a_name_taken_out_before_playing_frees_its_place_and_one_who_played_keeps_it(organiser, monkeypatch):
    """Found from outside: names a phone typed in (a prank, from many addresses) filled a drive
    of 500 for good: taking them out freed nothing, so the organiser could add nobody. A place
    is held by a player in the drive, or one who left after playing (in the standings); the
    names a drive keeps, those taken out included, are bounded on their own."""
    monkeypatch.setattr(services.players, "MAX_PLAYERS", 6)
    monkeypatch.setattr(services.players, "MAX_NAMES", 9)
    drive = seated_drive(organiser, 4)  # hand 1 in play: all four have played
    services.add_players(drive, ["Prank 1", "Prank 2"])
    with pytest.raises(DriveError, match="This drive is full"):
        services.add_players(drive, ["Late"])
    for name in ("Prank 1", "Prank 2"):
        services.withdraw_player(drive, drive.players.get(name=name))
    services.add_players(drive, ["Late"])  # the pranks' places are free
    played = drive.players.get(name="P001")
    services.withdraw_player(drive, played)  # left after playing: still in the standings, still a place
    assert services.places_held(drive) == 5
    services.add_players(drive, ["Later"])
    with pytest.raises(DriveError, match="This drive is full"):
        services.add_players(drive, ["Latest"])
    # Bringing back a name taken out before playing takes a place again: refused while none is free.
    with pytest.raises(DriveError, match="This drive is full: it holds at most 6 players. Take someone out"):
        services.rejoin_player(drive, drive.players.get(name="Prank 1"))
    assert not drive.players.get(name="Prank 1").active
    services.withdraw_player(drive, drive.players.get(name="Later"))
    services.rejoin_player(drive, drive.players.get(name="Prank 1"))
    # Nine names kept, four of them taken out before playing: the tenth is refused, a place free or not.
    services.withdraw_player(drive, drive.players.get(name="Prank 1"))
    services.add_players(drive, ["Last"])
    services.withdraw_player(drive, drive.players.get(name="Late"))
    assert drive.players.count() == 9 and services.places_held(drive) == 5
    with pytest.raises(DriveError, match="has had 9 names, those taken out included, and keeps at most 9"):
        services.add_players(drive, ["One more"])
    # A name the drive has is said to be there, not counted as one more (found by a review).
    with pytest.raises(DriveError, match="Already in this drive: \u2068Last\u2069"):
        services.add_players(drive, ["last"])


def test_parse_names_drops_blanks_and_repeats():
    assert services.parse_names("Ann\n\n  Bob  ,Cy\nann\n") == ["Ann", "Bob", "Cy"]
    with pytest.raises(DriveError, match="too long"):
        services.parse_names("x" * 41)


def test_names_that_look_the_same_are_one_name(organiser):
    """Invisible characters (zero-width space, soft hyphen, direction overrides) are dropped and
    compatibility forms folded (NFKC), so a name cannot pass for another on the board; a name
    of invisible characters only is no name (found by probing from outside)."""
    assert services.parse_names("Ann\nAnn\u200b\nA\u00adnn\n\uff21nn\n\u202eBob\u202c\n\u200b\u200b\n\u00ad") == ["Ann", "Bob"]
    assert services.clean_name("\U0001F469\u200d\U0001F4BB Di") == "\U0001F469\u200d\U0001F4BB Di"  # an emoji's joiner stays
    assert services.clean_name("\u0645\u06cc\u200c\u0631\u0648\u062f") == "\u0645\u06cc\u200c\u0631\u0648\u062f"  # and a Persian one
    assert services.clean_name("\u3164 \u2800\ufe0f") == ""
    drive = make_drive(organiser, 0)
    services.add_players(drive, ["Mallory"])
    for lookalike in ("Mallory\u200b", "Ma\u00adllory", "MAL\u200dLORY", "\uff2dallory", "Mallory\u3164",
                      "Mallory\u034f", "Mallory\ufe0f", "Mallory\u2800", "Mal\u17b5lory", "Mallory\u200c",
                      "Mallory\u2065"):  # (unassigned, but default-ignorable: browsers show nothing)
        with pytest.raises(DriveError, match="Already in this drive"):
            services.add_players(drive, [lookalike])
    with pytest.raises(DriveError, match="at least one name"):
        services.add_players(drive, ["\u200b", "\u00ad\u200d"])
    assert list(drive.players.values_list("name", flat=True)) == ["Mallory"]


def test_characters_with_no_shape_of_their_own_neither_make_a_name_nor_tell_two_apart(organiser):
    """Found by probing: a phone added "Zoe" followed by a noncharacter (U+FFFF), a private-use
    one (U+E000, U+F0000) or the musical null notehead (U+1D159), each a box or nothing on a
    phone, each a new name; "Bot 2" and one of them, or one unassigned (U+0378), passed for a
    bot. Private-use characters, noncharacters and the notehead are dropped; unassigned ones
    stay (a newer Unicode may give them a shape: a newer emoji) but make no bot's name a
    person's."""
    assert services.clean_name("Zoe\uffff\ue000\U000f0000\U0001d159\ufdd0\U0010fffe") == "Zoe"
    assert services.clean_name("\ue000\uffff") == ""
    drive = make_drive(organiser, 0)
    services.add_players(drive, ["Zoe"])
    for lookalike in ("Zoe\ue000", "Zoe\U0001d159", "Zoe\uffff"):
        with pytest.raises(DriveError, match="Already in this drive"):
            services.add_players(drive, [lookalike])
    added, refused, _ = services.add_names(drive, "Bot 2\u0378\nBot 2\ue000\nBot\U0001d1592")
    assert not added and [reason.endswith("is how the server names its bots: add an initial or another word.")
                          for _name, reason in refused] == [True] * 3
    assert list(drive.players.values_list("name", flat=True)) == ["Zoe"]


def test_a_name_of_combining_marks_only_is_no_name(organiser):
    """Found by a probe from outside: a phone could join as "\u0301\u0301" (two accents with no
    letter to sit on), a name that shows as nothing, or as dotted circles, on every list. Marks
    on letters stay."""
    assert services.parse_names("\u0301\u0301\n\u20dd\nAme\u0301lie\n\u0915\u093f") == ["Am\u00e9lie", "\u0915\u093f"]
    drive = make_drive(organiser, 0)
    with pytest.raises(DriveError, match="at least one name"):
        services.add_players(drive, ["\u0301\u0301", "\u0903\u200b"])
    assert not drive.players.exists()


def test_a_letter_keeps_at_most_four_marks_so_no_name_or_reason_stacks_over_its_neighbours():
    """Found by a probe from outside: a dispute's reason of one letter and 40,000 accents was
    kept as a tower of accents over the dashboard's lines. Marks a script needs stay."""
    assert services.clean_name("a" + "\u0301" * 40_000) == "\u00e1" + "\u0301" * 4  # (NFKC: "a" and one make "á")
    assert services.clean_name("Zoe" + "\u0316\u0317" * 5 + " Ann") == "Zoe\u0316\u0317\u0316\u0317 Ann"
    pointed = unicodedata.normalize("NFKC", "\u05e9\u05c1\u05b8\u05bc\u05b8")  # a Hebrew letter, four marks
    assert services.clean_name(pointed) == pointed and services.clean_name("Vi\u1ec7t") == "Vi\u1ec7t"
