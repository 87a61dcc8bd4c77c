"""Names as people type them: cleaned (``clean_name``), told apart (``name_key``), read from
a pasted list (``read_names``, ``parse_names``, ``sort_names``) or a phone's own (``has_control_characters``).
Pure text, no database: the services that add players (``drive.services.players``) refuse what
these say is wrong.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable

from common.bidi import isolate
from drive.services.base import DriveError

# Invisible characters a name keeps (they shape what is shown: joiners of emoji and of Persian
# or Indic letters, emoji presentation, the tags of subdivision flags) but that two names may
# not differ in alone.
_SHAPING = {0x200C, 0x200D, 0xFE0E, 0xFE0F, *range(0xE0020, 0xE0080)}
# Invisible or blank characters a name drops: Unicode's default-ignorable code points (besides
# the format characters, Cf, dropped by category; U+2065, among the Cf ones but unassigned, is
# listed), the Braille blank, the musical null notehead, and the noncharacters (U+FDD0-U+FDEF,
# and the last two of every plane). Private-use characters (Co) are dropped by category: they
# show as a box, or as nothing, on a phone without the font that gives them a shape.
_IGNORED = {0x00AD, 0x034F, 0x115F, 0x1160, 0x17B4, 0x17B5, *range(0x180B, 0x1810), 0x2065, 0x2800, 0x3164,
            *range(0xFE00, 0xFE10), 0xFFA0, *range(0xFFF0, 0xFFF9), *range(0x1BCA0, 0x1BCA4), 0x1D159,
            *range(0x1D173, 0x1D17B), *range(0xE0000, 0xE1000), *range(0xFDD0, 0xFDF0),
            *(plane + last for plane in range(0, 0x110000, 0x10000) for last in (0xFFFE, 0xFFFF))}
_DROPPED_CATEGORIES = ("Cf", "Co")

MAX_NAME = 40
# Text typed into one field is read no further than this: Unicode's normalisation (NFKC) takes
# time that grows with the square of a run of combining marks, in C, holding the interpreter
# (a name of 126,000 accents froze the whole server for 11 s). Every field's own limit, counted
# once cleaned (a name's 40, a reason's 300), is far below it. (The organiser's pasted list, held
# to 20,000 characters by its form, is folded a line, or a piece between commas, at a time:
# ``_pieces``.)
MAX_TYPED = 1000
def clean_name(raw: str) -> str:
    """A name as stored: Unicode's compatibility form (NFKC: full-width letters, ligatures),
    without invisible characters (zero-width spaces, soft hyphens, direction overrides, fillers)
    except those that shape what is shown (``_SHAPING``), single spaces, at most ``MOST_MARKS``
    combining marks on a letter. Empty when nothing
    visible is left. Only the first ``MAX_TYPED`` characters are read: a caller that must not
    cut refuses longer text first (``typed_too_long``)."""
    name = "".join(c for c in unicodedata.normalize("NFKC", raw[:MAX_TYPED])
                   if ord(c) in _SHAPING or (ord(c) not in _IGNORED and unicodedata.category(c) not in _DROPPED_CATEGORIES))
    name = " ".join(_fewer_marks(name).split())
    return name if _visible(name) else ""


# A letter carries at most this many combining marks in a row (a Vietnamese letter two, pointed
# Hebrew three or four); more are dropped: hundreds on one letter ("Zalgo" text) stack up over
# the lines around a name or a dispute's reason on every screen that shows it.
MOST_MARKS = 4


def _fewer_marks(text: str) -> str:
    kept, run = [], 0
    for c in text:
        run = run + 1 if unicodedata.category(c).startswith("M") else 0
        if run <= MOST_MARKS:
            kept.append(c)
    return "".join(kept)


def typed_too_long(raw: str) -> bool:
    """More than any field takes, and more than is read (``MAX_TYPED``): refused unread."""
    return len(raw) > MAX_TYPED


def _visible(name: str) -> str:
    """The name without its shaping characters; empty when nothing but marks would be left (a
    combining accent with no letter to sit on shows as nothing, or as a dotted circle)."""
    shown = "".join(c for c in name if ord(c) not in _SHAPING)
    return shown if any(not unicodedata.category(c).startswith("M") and not c.isspace() for c in shown) else ""


def name_key(name: str) -> str:
    """What two names must differ in to be told apart: "Ann", "ANN", "An\u00adn" and "Ann\u200b"
    are one name. (Letters of other scripts that look alike, a Cyrillic "а" for a Latin "a",
    are not caught.)"""
    return _visible(clean_name(name)).casefold()


def sort_names(text: str) -> tuple[list[str], list[tuple[str, str]]]:
    """Names from pasted text: one per line (commas also separate); blanks and repeats dropped;
    and the lines refused, each with why: ``(names, [(line, reason), ...])``. Split after the
    compatibility fold (NFKC, as each name is stored): a full-width comma ("Smith，John") would
    otherwise become a comma inside one name."""
    names, refused, _repeats = read_names(text)
    return names, refused


# "Bot 1", "bot2": the names ``add_bot`` gives the server's bots, never a person's (a phone
# typing "Bot 1" would pass for a bot on the board and in the CSV).
_BOT_NAME = re.compile(r"bot\s*\d+")


def _is_bots_name(name: str) -> bool:
    """Whether ``name`` reads as the server's bots are named, characters unassigned in this
    Python's Unicode aside ("Bot 2" followed by one passed for a bot; a newer Python may know
    them, so only this check leaves them out)."""
    return _BOT_NAME.fullmatch("".join(c for c in name_key(name) if unicodedata.category(c) != "Cn")) is not None


# A comma, and what the compatibility fold (NFKC) turns into one ("，", "﹐", "︐").
_COMMAS = re.compile("[,\ufe10\ufe50\uff0c]")


def _pieces(text: str) -> Iterable[str]:
    """The pasted text's lines, split at commas too, each folded (NFKC) on its own. The fold's
    time grows with the square of a run of combining marks: folded whole, a pasted list of
    20,000 accents held the server for 4 s; a piece longer than any name (``MAX_TYPED``) comes
    as typed, unread, to be refused as too long. (The fold makes no line break; the commas it
    makes come from the characters split here, or inside a piece, which is split again after
    it: "🄂" folds to "1,".)"""
    for piece in _COMMAS.sub("\n", text).splitlines():
        if typed_too_long(piece):
            yield piece
        else:
            yield from unicodedata.normalize("NFKC", piece).replace(",", "\n").splitlines()


def read_names(text: str) -> tuple[list[str], list[tuple[str, str]], list[tuple[str, str]]]:
    """``sort_names``' names and refusals, and the repeats it dropped, each with the name it
    repeats as first written: ``[(repeat, first), ...]`` ("zed" after "Zed": ``("zed", "Zed")``)."""
    names: list[str] = []
    refused: list[tuple[str, str]] = []
    repeats: list[tuple[str, str]] = []
    seen: dict[str, str] = {}
    for raw in _pieces(text):
        name = raw if typed_too_long(raw) else clean_name(raw)  # (refused below, as too long)
        if not name:
            continue
        if len(name) > MAX_NAME:
            refused.append((name, f"“{isolate(name[:20] + '…')}” is too long: names have at most {MAX_NAME} characters."))
        elif _is_bots_name(name):
            refused.append((name, f"“{isolate(name)}” is how the server names its bots: add an initial or another word."))
        elif name_key(name) in seen:
            repeats.append((name, seen[name_key(name)]))
        else:
            seen[name_key(name)] = name
            names.append(name)
    return names, refused, repeats


def has_control_characters(text: str) -> bool:
    """True when ``text`` holds a control character other than a line break or tab: never part of
    a name (a NUL is refused by PostgreSQL outright), so such text is refused, not stored."""
    return any(unicodedata.category(c) == "Cc" and c not in "\n\r\t" for c in text)


def parse_names(text: str) -> list[str]:
    """``sort_names``' names; a refused line refuses them all (a name typed on a phone). Text
    longer than anything a name can be is refused unread (``MAX_TYPED``); the organiser's pasted
    list is read whole, its form holding it to 20,000 characters."""
    if typed_too_long(text):
        raise DriveError(f"That is too long: names have at most {MAX_NAME} characters.")
    names, refused = sort_names(text)
    if refused:
        raise DriveError(refused[0][1])
    return names
