"""Server-rendered SVG for the board: the leaders' cumulative scores, hand by hand."""

from __future__ import annotations

from django import template
from django.utils.html import escape, format_html
from django.utils.safestring import mark_safe

register = template.Library()

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

    parts = [format_html(
        '<svg class="chart" viewBox="0 0 {} {}" role="img" aria-label="Leaders\' scores hand by hand">', width, height)]
    parts.append(format_html('<line x1="{}" y1="{}" x2="{}" y2="{}" stroke="#555"/>', pad_l, y(0), width - pad_r, y(0)))
    for i in range(1, hands + 1):
        parts.append(format_html('<text x="{:.1f}" y="{}" fill="#aaa" font-size="12" text-anchor="middle">{}</text>',
                                 x(i), height - 8, i))
    parts.append(format_html('<text x="4" y="{:.1f}" fill="#aaa" font-size="12">{}</text>', y(top) + 4, top))
    for n, s in enumerate(series):
        colour = COLOURS[n % len(COLOURS)]
        points = " ".join(f"{x(i):.1f},{y(v):.1f}" for i, v in enumerate(s["points"]))
        parts.append(format_html('<polyline fill="none" stroke="{}" stroke-width="3" points="{}"/>', colour, points))
        last = s["points"][-1]
        parts.append(format_html(
            '<text x="{:.1f}" y="{:.1f}" fill="{}" font-size="14">{} ({})</text>',
            width - pad_r + 6, y(last) + 5 + (n * 0), colour, s["name"][:18], last))
    parts.append(mark_safe("</svg>"))
    return mark_safe("".join(str(p) for p in parts))


@register.filter
def esc(value) -> str:
    return escape(value)
