"""Small, strict readers for settings that come from the environment.

Each reader names the variable in its error, so a bad value stops start-up with a message an
operator can act on (``ImproperlyConfigured: DEBUG must be one of ...``).
"""

from __future__ import annotations

import os
from urllib.parse import urlsplit

from django.core.exceptions import ImproperlyConfigured

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off", ""}


def env_str(name: str, default: str | None = None) -> str | None:
    value = os.environ.get(name)
    return default if value is None else value.strip()


def env_bool(name: str, default: bool) -> bool:
    value = os.environ.get(name)
    if value is None:
        return default
    lowered = value.strip().lower()
    if lowered in _TRUE:
        return True
    if lowered in _FALSE:
        return False
    raise ImproperlyConfigured(
        f"{name} must be one of 1/0, true/false, yes/no, on/off; got {value!r}."
    )


def env_int(name: str, default: int, *, minimum: int | None = None, maximum: int | None = None) -> int:
    value = os.environ.get(name)
    if value is None or not value.strip():
        return default
    try:
        number = int(value.strip())
    except ValueError:
        raise ImproperlyConfigured(f"{name} must be a whole number; got {value!r}.") from None
    if minimum is not None and number < minimum or maximum is not None and number > maximum:
        if minimum is not None and maximum is not None:
            bounds = f"between {minimum} and {maximum}"
        else:
            bounds = f"at least {minimum}" if minimum is not None else f"at most {maximum}"
        raise ImproperlyConfigured(f"{name} must be {bounds}; got {number}.")
    return number


def env_choice(name: str, default: str, choices: tuple[str, ...]) -> str:
    """One of ``choices`` (any letter case given; returned as written in ``choices``)."""
    value = (os.environ.get(name) or "").strip()
    if not value:
        return default
    for choice in choices:
        if value.upper() == choice.upper():
            return choice
    raise ImproperlyConfigured(f"{name} must be one of {', '.join(choices)}; got {value!r}.")


def env_time_zone(name: str, default: str) -> str:
    """An IANA time zone name (``Europe/London``), as Django needs it; the default when unset/empty."""
    value = (os.environ.get(name) or "").strip()
    if not value:
        return default
    from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

    try:
        ZoneInfo(value)
    except (ZoneInfoNotFoundError, ValueError):
        raise ImproperlyConfigured(
            f"{name} must be a time zone name such as Europe/London or America/New_York; got {value!r}."
        ) from None
    return value


def env_list(name: str, default: list[str]) -> list[str]:
    value = os.environ.get(name)
    if value is None:
        return list(default)
    items = [item.strip() for item in value.split(",") if item.strip()]
    if not items:
        raise ImproperlyConfigured(f"{name} is set but empty; give a comma-separated list.")
    return items


def env_url(name: str, schemes: set[str]) -> str | None:
    """A URL whose scheme is one of ``schemes``, or None when unset/empty."""
    value = os.environ.get(name)
    if value is None or not value.strip():
        return None
    value = value.strip()
    parts = urlsplit(value)
    if parts.scheme not in schemes:
        raise ImproperlyConfigured(
            f"{name} must be a URL starting with one of {', '.join(sorted(s + '://' for s in schemes))}; "
            f"got {value!r}."
        )
    return value
