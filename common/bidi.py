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
  DIRECTIONAL ISOLATE. Where no element can go (a page's title, an attribute, an
  ``<option>``, SVG text: the ``isolate`` filter) and in a sentence that is plain text (a
  refusal's message, which may be shown on a page or set as text by a script).

Exports (CSV) hold names as they are: they are data, not sentences.
"""

from __future__ import annotations

import html

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
