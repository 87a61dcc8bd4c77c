"""The board's chart of the leaders (drive_tags.chart_svg): equal totals drawn apart, lines and
names; each name as near its line's end as can be and on the chart. (How it looks on a
projector: tests/browser/test_board_readable.py.)"""

from __future__ import annotations

import re

from drive.templatetags.drive_tags import LABEL_GAP, LABEL_GAP_DONE, LABEL_GAP_TALL, PLOT_BOTTOM, PLOT_TOP, chart_svg


def names_at(html: str) -> dict[str, tuple[float, float, float]]:
    """Each name's place on the chart, wide, tall and on a finished drive's wide board (percent
    of the plot's height)."""
    return {name: (float(w), float(t), float(f)) for w, t, f, name in re.findall(
        r'<li style="--yw:([\d.]+)%;--yt:([\d.]+)%;--yf:([\d.]+)%;[^"]*"><span class="chart-name" dir="auto">([^<]*)</span>',
        str(html))}


def line_ends(html: str) -> list[float]:
    return [float(points.split()[-1].split(",")[1]) for points in re.findall(r'points="([^"]+)"', str(html))]


def test_the_boards_chart_keeps_equal_totals_names_apart():
    """Players with the same total end their lines at the same height: their names are moved
    apart, each as near its line's end as can be, and stay on the chart."""
    series = [{"name": n, "points": p} for n, p in
              (("Eve", [0, 10]), ("Hal", [0, 10]), ("Ann", [0, 0]), ("Bob", [0, 0]), ("Cy", [0, 0]), ("Top", [0, 25]))]
    at = names_at(chart_svg({"hands": 1, "series": series}))
    assert len(at) == 6
    for layout, gap in ((0, LABEL_GAP), (1, LABEL_GAP_TALL), (2, LABEL_GAP_DONE)):
        ys = sorted(place[layout] for place in at.values())
        assert all(b - a >= gap - 0.01 for a, b in zip(ys, ys[1:]))
        assert ys[0] >= gap / 2 - 0.01 and ys[-1] <= 100 - gap / 2 + 0.01


def test_equal_totals_are_drawn_side_by_side_the_first_in_the_standings_highest():
    series = [{"name": n, "points": p} for n, p in (("Top", [0, 25]), ("Ann", [0, 10]), ("Bob", [0, 10]))]
    top, ann, bob = line_ends(chart_svg({"hands": 1, "series": series}))
    assert top == PLOT_TOP and ann < bob and bob - ann >= 2  # percent of the plot: apart
    at = names_at(chart_svg({"hands": 1, "series": series}))
    assert at["Ann"][0] < at["Bob"][0]


def test_every_line_starts_at_one_point_on_the_zero_line_and_stays_on_the_plot():
    """Found by a tester: before the first hand everyone was on 0, yet the lines started at
    different heights, one below the zero line."""
    series = [{"name": n, "points": [0, 0, 0]} for n in ("Ann", "Bob", "Cy", "Di", "Ed")]
    html = str(chart_svg({"hands": 2, "series": series}))
    starts = {points.split()[0] for points in re.findall(r'points="([^"]+)"', html)}
    zero = re.search(r'class="chart-zero" x1="0" y1="([\d.]+)"', html).group(1)
    assert starts == {f"0.00,{zero}"}
    ys = [float(p.split(",")[1]) for points in re.findall(r'points="([^"]+)"', html) for p in points.split()]
    assert 0 <= min(ys) and max(ys) <= 100  # five tied lines drawn apart, all on the plot


def test_equal_totals_at_the_bottom_are_drawn_above_it_never_below_the_zero_line():
    """Two leaders still on 0 after hand 1, drawn apart around 0, one below the zero
    line, which read as points lost."""
    series = [{"name": n, "points": p} for n, p in (("Top", [0, 25]), ("Ann", [0, 0]), ("Bob", [0, 0]))]
    html = str(chart_svg({"hands": 1, "series": series}))
    zero = float(re.search(r'class="chart-zero" x1="0" y1="([\d.]+)"', html).group(1))
    top, ann, bob = line_ends(html)
    assert ann < bob == zero  # apart, the first in the standings higher, none below the line


def test_names_far_apart_sit_at_their_lines_ends():
    series = [{"name": n, "points": p} for n, p in (("Top", [0, 25]), ("Ann", [0, 20]), ("Bob", [0, 5]))]
    html = chart_svg({"hands": 1, "series": series})
    ends, at = line_ends(html), names_at(html)
    assert (at["Ann"][0], at["Bob"][0]) == (round(ends[1], 2), round(ends[2], 2))
    assert ends[2] < PLOT_BOTTOM


def test_the_chart_says_in_words_who_leads_with_each_name_isolated():
    series = [{"name": "Ann <b>", "points": [0, 5, 12]}, {"name": "Bob", "points": [0, 5, 9]}]
    html = str(chart_svg({"hands": 2, "series": series}))
    assert 'aria-label="Leaders after hand 2: Ann &lt;b&gt; 12, Bob 9"' in html
    # Each label's name isolated by its own element (an ellipsis may shorten it anywhere).
    assert '<span class="chart-name" dir="auto">Ann &lt;b&gt;</span> <span class="chart-points">12</span>' in html
    assert chart_svg({"hands": 0, "series": []}) == ""


def test_the_leaders_chart_draws_only_players_who_have_played_a_hand(organiser):
    """Found in a browser: a bot just added (on 0, no hand played) took a line of the board's
    chart from a player who had played a hand and stood on fewer points."""
    from drive import services
    from drive.charts import leaders_chart
    from drive.selectors import standings
    from tests.factories import finish_all_tables, seated_drive

    drive = seated_drive(organiser, 8, target="hands", target_hands=3)
    finish_all_tables(drive, organiser, declarer_seat=1)
    services.close_hand(drive)
    late = services.add_players(drive, ["Aaron"])[0]
    ranked = standings(drive)
    assert any(r.row.player_id == late.pk for r in ranked)
    chart = leaders_chart(drive, ranked, leaders=8)
    assert len(chart["series"]) == 8 and "Aaron" not in {s["name"] for s in chart["series"]}
