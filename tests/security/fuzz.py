"""Hypothesis strategies for hostile form data, and the checks every fuzzed request must pass."""

from __future__ import annotations

from django.contrib.messages import constants, get_messages
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

FUZZ = settings(
    max_examples=25, deadline=None, database=None, derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)

TEXT = st.text(alphabet=st.characters(exclude_categories=("Cs",)), max_size=60)
NASTY = st.sampled_from([
    "", " ", "0", "-1", "00", "1e9", "NaN", "None", "null", "true", "[]", "{}",
    "<script>alert(1)</script>", "' OR 1=1 --", "\x00", "a\x00b", "\u202e\u200b", "ＡＢＣ", "١٢٣",
    "9" * 40, "-" + "9" * 40, "x" * 5000, "💥" * 300, "\r\n\r\n", "%00", "../../etc/passwd",
])
NUMBER = st.one_of(st.integers(min_value=-(10**30), max_value=10**30), st.floats(allow_nan=True)).map(str)
VALUE = st.one_of(TEXT, NASTY, NUMBER)
FIELD_VALUE = st.one_of(VALUE, st.lists(VALUE, min_size=2, max_size=3))


def form_data(fields: dict[str, list[str]]):
    """Each known field: absent, junk, a list, or one of its valid answers; plus unknown keys."""
    optional = {
        name: st.one_of(FIELD_VALUE, st.sampled_from(valid)) if valid else FIELD_VALUE
        for name, valid in fields.items()
    }
    extra = st.dictionaries(st.text(alphabet=st.characters(exclude_categories=("Cs",)), min_size=1, max_size=20),
                            VALUE, max_size=3)
    # A browser's POST always carries the CSRF field, so it is never empty (an empty POST would
    # make ``Form(request.POST or None)`` unbound, which is not what a browser can send).
    return st.tuples(st.fixed_dictionaries({}, optional=optional), extra).map(
        lambda t: {**t[1], **t[0], "csrfmiddlewaretoken": "x"}
    )


def messages_of(response) -> list:
    return list(get_messages(response.wsgi_request)) if hasattr(response, "wsgi_request") else []


def said(response, *levels: int) -> bool:
    return any(m.level in levels for m in messages_of(response))


def refused_clearly(response) -> bool:
    """A refusal the user can see: a 4xx, a page with errors, or an error message to show."""
    if 400 <= response.status_code < 500:
        return True
    if said(response, constants.ERROR, constants.WARNING, constants.INFO):
        return True
    context = response.context
    if response.status_code == 200 and context is not None:
        form = context.get("form")
        if form is not None and form.errors:
            return True
        if context.get("error"):
            return True
        reason_form = context.get("reason_form")
        if reason_form is not None and reason_form.errors:
            return True
    return False
