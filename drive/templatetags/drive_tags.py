"""Template tags of the drive's pages: the board's chart (server-rendered SVG, the leaders'
cumulative scores, hand by hand), the CSRF field of a fragment that is also pushed, and the
filters that isolate a typed name from the text around it (``common.bidi``)."""

from __future__ import annotations

from django import template
from django.utils.html import escape, format_html
from django.utils.safestring import SafeString, mark_safe

from common.bidi import bdi, isolate

register = template.Library()

# {{ player.name|bdi }} in a page's content; {{ drive.name|isolate }} where no element can go
# (a title, an attribute, an <option>).
register.filter("bdi", bdi)
register.filter("isolate", isolate)


LEFT_TAG = SafeString(' <span class="tag-left" title="Left the drive: ranked by the points scored">left</span>')


@register.filter
def standing_name(ranked) -> SafeString:
    """A standings row's name, and the "left" tag of a player who left the drive. (A filter,
    not an include: a standings page has 400 rows, and the board and each update as many.)"""
    return SafeString(bdi(ranked.name) + LEFT_TAG) if ranked.row.left else bdi(ranked.name)


@register.filter
def standing_data(ranked) -> SafeString:
    """A standings row's data attributes, by which static/js/live.js finds the row of a
    player whose result arrives: the player and their total (a whole number)."""
    row = ranked.row
    return SafeString(f'data-player="{escape(row.player_id)}" data-total="{int(row.total)}"')


@register.filter
def game_of_field(form, name: str) -> str:
    """The game whose house rule a drive form's field is ("" for the drive's own fields)."""
    return form.game_of_field(name)


@register.filter
def fact_notes(score, game) -> str:
    """The words after a player's points on a hand: the game's notes of the standings facts
    that player had in it (a winner's, say), in brackets; "" for none."""
    notes = [fact.note for fact in game.facts if fact.note and score.details.get(fact.key)]
    return f" ({', '.join(notes)})" if notes else ""


@register.simple_tag(takes_context=True)
def form_token(context) -> str:
    """``{% csrf_token %}`` for the live fragments: rendered for a request, the same hidden
    field; rendered once for everyone to push (no request, drive.live), nothing, and no warning
    of a missing token: each page's live.js adds its own to the forms it receives."""
    token = context.get("csrf_token")
    if not token or token == "NOTPROVIDED":  # (Django's own marker of "no token here")
        return ""
    return format_html('<input type="hidden" name="csrfmiddlewaretoken" value="{}">', token)


COLOURS = ["#c79a2b", "#e0e0e0", "#d96b6b", "#6bb3d9", "#8fd96b", "#c58fd9"]


@register.simple_tag
def chart_svg(chart: dict, width: int = 640, height: int = 260) -> str:
    series = chart.get("series") or []
    hands = chart.get("hands") or 0
    if not series or not hands:
        return ""
    pad_l, pad_r, pad_t, pad_b = 40, 150, 10, 28
    top = max(1, max(max(s["points"]) for s in series))
    low = min(0, min(min(s["points"]) for s in series))
    span = top - low or 1

    def x(i: int) -> float:
        return pad_l + (width - pad_l - pad_r) * i / hands

    def y(v: int) -> float:
        return pad_t + (height - pad_t - pad_b) * (top - v) / span

    # Numbers are formatted here; the only text from users (names) goes through escape(),
    # isolated (SVG text takes no <bdi>).
    parts = [
        f'<svg class="chart" viewBox="0 0 {width} {height}" role="img" aria-label="Leaders&#x27; scores hand by hand">',
        f'<line x1="{pad_l}" y1="{y(0):.1f}" x2="{width - pad_r}" y2="{y(0):.1f}" stroke="#555"/>',
    ]
    for i in range(1, hands + 1):
        parts.append(f'<text x="{x(i):.1f}" y="{height - 8}" fill="#aaa" font-size="12" text-anchor="middle">{i}</text>')
    parts.append(f'<text x="4" y="{y(top) + 4:.1f}" fill="#aaa" font-size="12">{top}</text>')
    label_at = _spread([y(s["points"][-1]) + 5 for s in series], LABEL_GAP, pad_t + 12, height - pad_b + 12)
    for n, s in enumerate(series):
        colour = COLOURS[n % len(COLOURS)]
        points = " ".join(f"{x(i):.1f},{y(v):.1f}" for i, v in enumerate(s["points"]))
        parts.append(f'<polyline fill="none" stroke="{colour}" stroke-width="3" points="{points}"/>')
        last = s["points"][-1]
        parts.append(
            f'<text x="{width - pad_r + 6}" y="{label_at[n]:.1f}" fill="{colour}" font-size="14">'
            f"{escape(isolate(s['name'][:18]))} ({last})</text>"
        )
    parts.append("</svg>")
    return mark_safe("".join(parts))


LABEL_GAP = 17  # px between two names at the chart's right end (14 px type)


def _spread(wanted: list[float], gap: float, lowest: float, highest: float) -> list[float]:
    """Each label's y, as near as can be to where it is ``wanted`` (its line's end), at least
    ``gap`` apart (equal totals would print their names over each other), within
    [``lowest``, ``highest``] where they fit; in the order given."""
    order = sorted(range(len(wanted)), key=lambda i: (wanted[i], i))
    at = [min(max(wanted[i], lowest), highest) for i in order]
    for k in range(1, len(at)):  # downwards: each at least a gap below the one above
        at[k] = max(at[k], at[k - 1] + gap)
    if at and at[-1] > highest:  # past the bottom: upwards from it, as far as needed
        at[-1] = highest
        for k in range(len(at) - 2, -1, -1):
            at[k] = min(at[k], at[k + 1] - gap)
    placed = dict(zip(order, at))
    return [placed[i] for i in range(len(wanted))]


@register.filter
def get_item(mapping, key):
    """``{{ moves|get_item:player_id }}``: a dict lookup by a variable key."""
    return mapping.get(key) if hasattr(mapping, "get") else None


@register.filter
def place(ranked) -> str:
    """A player's place as a sentence says it: "19th", or "joint 19th" when shared (the board's
    short "=19" is for a column)."""
    rank = ranked.rank
    suffix = "th" if 10 <= rank % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(rank % 10, "th")
    return f"{'joint ' if ranked.tied else ''}{rank}{suffix}"


@register.simple_tag
def neighbours(table, player_id) -> dict:
    """Who sits beside ``player_id`` at ``table`` (its seats read in seat order, as prefetched):
    ``{"left": name, "right": name}``, or {} for a player not seated there or alone. Seats go
    clockwise, so the next seat is on the player's left and the first seat is on the last
    seat's left (docs/drive-rules.md): the mover's left-hand player is who moves the other way."""
    names = [(seat.player_id, seat.player.name) for seat in table.seats.all()] if table else []
    at = next((i for i, (pid, _) in enumerate(names) if pid == player_id), None)
    if at is None or len(names) < 2:
        return {}
    return {"left": names[(at + 1) % len(names)][1], "right": names[at - 1][1]}
