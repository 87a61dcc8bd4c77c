"""The drive, the tables, the scoring and the generic pages know only the game contract
(games/base.py): no game's own words there. A game's words live in games/<game>/,
templates/games/<slug>/ and static/games/<slug>/."""

from __future__ import annotations

import re
from pathlib import Path

from games import all_games

ROOT = Path(__file__).resolve().parent.parent
GENERIC = ["drive", "tables", "scoring", "config", "common", "templates", "static"]
GAME_FOLDERS = [ROOT / "templates" / "games", ROOT / "static" / "games"]
# Each game's own words (``Game.own_words``: its cards, its moves), in any case, with a space, "-"
# or "_" inside: "Ice Follies", "nine_card", "NINE-CARD"; Film Fantasy's "declar" covers declare,
# declarer, declared and declaration. "Alice", in two games' names, is one more word the generic
# code never says.
GAME_WORDS = {game.slug: game.own_words for game in all_games() if game.own_words}  # (none: see the last test)
WORDS = re.compile("|".join(["alice", *GAME_WORDS.values()]), re.IGNORECASE)


def other_games_words(slug: str) -> re.Pattern:
    """The words of every game but ``slug``: none may show on that game's drive's pages."""
    return re.compile("|".join(words for game, words in GAME_WORDS.items() if game != slug), re.IGNORECASE)


def generic_files() -> list[Path]:
    files = []
    for folder in GENERIC:
        for path in (ROOT / folder).rglob("*"):
            if (path.is_file() and path.suffix in {".py", ".html", ".js", ".css", ".txt"}
                    and "migrations" not in path.parts
                    and not any(game in path.parents for game in GAME_FOLDERS)):
                files.append(path)
    return files


def test_the_generic_layers_hold_no_game_words():
    found = [
        f"{path.relative_to(ROOT)}:{n}: {line.strip()[:100]}"
        for path in generic_files()
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1)
        if WORDS.search(line)
    ]
    assert not found, "a game's words outside its own folders:\n" + "\n".join(found)


def test_the_check_finds_each_word_in_any_spelling():
    for text in ("Film", "JOKER", "Ice Follies", "ice_follies", "ice-follies", "auction", "Nine-card",
                 "nine_card", "nine card", "declaration", "Declarer", "Alice", "White Rabbit", "Cheshire Cat",
                 "a Cat", "sets_laid", "Wonderland", "Pool of Tears", "pool_of_tears", "trick", "Star picture"):
        assert WORDS.search(text), text
    assert len(generic_files()) > 50  # the folders are where the check looks
    assert other_games_words("alice").search("Pool of Tears") and not other_games_words("alice").search("Cheshire Cat")


def test_every_game_names_its_own_words():
    for game in all_games():
        assert game.own_words and not re.compile(game.own_words, re.IGNORECASE).search(""), game.slug
