"""Names that people type (players', drives'), isolated from the text around them.

A right-to-left name ("נועה", "مريم"), or one that ends in digits or punctuation ("Ann 2"),
set next to other words and numbers takes them into its own direction: "Ann 2" before "15
points" reads as one number, and a Hebrew name beside "20" swaps places with it. Isolated, a
name is laid out on its own and the sentence around it keeps its order. Two ways, one for
each kind of text:

- ``bdi(name)``: HTML, ``<bdi>name</bdi>`` with the name escaped. Every name shown in a
  page's content (templates: the ``bdi`` filter of ``drive_tags``; sentences built in Python
  for a page: ``format_html("{} is back.", bdi(name))``).
- ``isolate(name)``: plain text, the name between U+2068 FIRST STRONG ISOLATE and U+2069 POP
  DIRECTIONAL ISOLATE, in a sentence that is plain text (a refusal's message, sent as JSON or
  over a socket, or flashed). Where such a sentence is put on a page, each isolated name
  becomes a ``<bdi>`` (``isolates_as_bdi``: the ``with_bdi`` filter; ``sentenceParts`` and
  ``sentenceInto`` in static/js/sentence.js, for the game screens, the preview and the entry
  form), so the page's text holds no invisible characters
  (a search of the page, or a test's, for "Eve is on the list already" finds it).

A title, an attribute, an ``<option>`` or a dialog's text (``confirm()``) holds the name as it
is: no element can go there, and invisible characters in them would break a search for the
words around the name.

Exports (CSV) hold names as they are: they are data, not sentences.
"""

from __future__ import annotations

import html
import re

from django.utils.safestring import SafeString

FIRST_STRONG_ISOLATE = "\u2068"
POP_DIRECTIONAL_ISOLATE = "\u2069"


def bdi(name: object) -> SafeString:
    """``<bdi>name</bdi>``, the name escaped (as ``format_html("<bdi>{}</bdi>", name)``: text
    already safe, with ``__html__``, goes in as it is). Written out because a page shows
    hundreds of names (the dashboard 800, each phone's fragment a few, 400 phones an update)
    and ``format_html``'s escaping through lazy-text wrappers cost ten times as much."""
    text = name.__html__() if hasattr(name, "__html__") else html.escape(str(name))
    return SafeString(f"<bdi>{text}</bdi>")


def isolate(name: object) -> str:
    """The name as plain text between the two isolate characters (escaped where it is shown)."""
    return f"{FIRST_STRONG_ISOLATE}{name}{POP_DIRECTIONAL_ISOLATE}"


_ISOLATED = re.compile(f"{FIRST_STRONG_ISOLATE}([^{FIRST_STRONG_ISOLATE}{POP_DIRECTIONAL_ISOLATE}]*){POP_DIRECTIONAL_ISOLATE}")


def isolates_as_bdi(text: object) -> SafeString:
    """A plain-text sentence as HTML: escaped (text already safe as it is), each name that
    ``isolate`` marked in a ``<bdi>`` instead of its two characters."""
    if text is None:
        return SafeString("")
    markup = text.__html__() if hasattr(text, "__html__") else html.escape(str(text))
    return SafeString(_ISOLATED.sub(r"<bdi>\1</bdi>", markup))
