"""The project's ``JSONField``: Django's, its text made and read by orjson.

A digital table's state (a few KB of JSON) is decoded when its row is read and encoded when it
is saved, on every move; a result's summary on every entry. The standard library's ``json``
took about a millisecond of a move's CPU for the two on the slower machine kind
(`bench/profile_moves.py`, docs/benchmarks.md); orjson a fraction of that. Django's field calls
``json.dumps(value, cls=encoder)`` and ``json.loads(text, cls=decoder)``, which call the
``encode`` and ``decode`` of the classes below (the field's public ``encoder`` and ``decoder``
options). What orjson does not write (an integer dict key, an integer beyond 64 bits) is
written by the standard library, and what it would not read back as written (a number of 19
digits or more, which it reads as a float; a lone surrogate's escape) is read by it too: every
value reads back as before. The stored text is plain JSON either way. One difference: a float
that is not a number (NaN, an infinity) is stored as null, where the standard library wrote
text that is not JSON (which PostgreSQL refused)."""

from __future__ import annotations

import json
from typing import Any

import orjson
from django.db import models


# What the standard library refuses, orjson must too: datetimes and dataclasses go to the fallback.
_AS_THE_STANDARD_LIBRARY = orjson.OPT_PASSTHROUGH_DATETIME | orjson.OPT_PASSTHROUGH_DATACLASS


class Encoder(json.JSONEncoder):
    def encode(self, o: Any) -> str:
        try:
            return orjson.dumps(o, option=_AS_THE_STANDARD_LIBRARY).decode()
        except TypeError:
            return super().encode(o)


# 19 digits or more in a row: maybe an integer beyond 64 bits, which orjson reads as a float.
# Found by mapping every digit to "0" and every other byte to a space, then looking for 19 zeros:
# both steps in C, about 25 times as fast as a regular expression's search (which took 0.1-0.4
# ms for a digital table's largest state, more than orjson's decoding of it).
_DIGITS_AS_ZEROS = bytes(48 if 48 <= b <= 57 else 32 for b in range(256))
_LONG_NUMBER = b"0" * 19


def has_long_number(text: str) -> bool:
    return _LONG_NUMBER in text.encode("utf-8", "surrogatepass").translate(_DIGITS_AS_ZEROS)


class Decoder(json.JSONDecoder):
    def decode(self, s: str, _w: Any = None) -> Any:  # the standard library's signature
        if has_long_number(s):
            return super().decode(s)
        try:
            return orjson.loads(s)
        except orjson.JSONDecodeError:  # what orjson does not read (a lone surrogate's escape)
            return super().decode(s)


class JSONField(models.JSONField):
    """``models.JSONField`` with orjson as its encoder and decoder (unless given others)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("encoder", Encoder)
        kwargs.setdefault("decoder", Decoder)
        super().__init__(*args, **kwargs)
