"""Template tags of the drive's pages: the board's chart (server-rendered SVG, the leaders'
cumulative scores, hand by hand), the CSRF field of a fragment that is also pushed, and the
filters that isolate a typed name from the text around it (``common.bidi``)."""

from __future__ import annotations

from django import template
from django.utils.html import conditional_escape, escape, format_html
from django.utils.safestring import SafeString, mark_safe

from common.bidi import bdi, isolates_as_bdi
from drive import movement, pages
from drive.selectors import entry_state
from games.base import and_list
from scoring.forms import answer_words
from tables.screen_facts import waits_for_phone
from tables.models import Seat

register = template.Library()

# {{ player.name|bdi }} in a page's content; {{ error|with_bdi }}: a plain-text sentence (a
# refusal, a flashed message) whose isolated names become <bdi>s. (A title, an attribute, a
# confirm()'s text hold the name as it is: no element can go there.)
register.filter("bdi", bdi)
register.filter("with_bdi", isolates_as_bdi)
register.filter("and_list", lambda words: and_list(list(words)))  # "A, B and C" (escaped as any text)


LEFT_TAG = SafeString(' <span class="tag-left" title="Left the drive: ranked by the points scored">left</span>')
BOT_TAG = SafeString(' <span class="tag-left" title="A bot: ranked by the points scored, wins no prize">bot</span>')


@register.filter
def standing_name(ranked) -> SafeString:
    """A standings row's name, and the tag of a player who left the drive or of a bot, who keep
    their place but win no prize (``no_prize_note``). (A filter, not an include: a standings page
    has 400 rows, and the board and each update as many.)"""
    tag = LEFT_TAG if ranked.row.left else BOT_TAG if ranked.row.bot else ""
    return SafeString(bdi(ranked.name) + tag)


@register.filter
def no_prize_note(ranked) -> str:
    """Why someone ranked may not be among the prizes, when the standings hold a bot or a player
    who left (``scoring.standings.wins_prizes``): said under the standings page's prizes and on
    the board, where "1 Bot 1" above "Winner: Ed" would otherwise puzzle the room."""
    bots = any(r.row.bot for r in ranked)
    left = any(r.row.left for r in ranked)
    if bots and left:
        return "Bots and players who left the drive keep their place in the standings but win no prize."
    if bots:
        return "Bots keep their place in the standings but win no prize: prizes go to people."
    if left:
        return "Players who left the drive keep their place in the standings but win no prize."
    return ""


@register.filter
def standing_data(ranked) -> SafeString:
    """A standings row's data attributes, by which static/js/live.js finds the row of a
    player whose result arrives: the player and their total (a whole number)."""
    row = ranked.row
    return SafeString(f'data-player="{escape(row.player_id)}" data-total="{int(row.total)}"')


@register.filter
def without_phone(table) -> list[SafeString]:
    """The names, each in a ``<bdi>``, of the people seated at a table played on the phones whose
    phone has not joined the drive and whom no bot plays for: the hand would wait for them."""
    if table.play_mode != table.PlayMode.DIGITAL or table.status != table.Status.PLAYING:
        return []
    bots = set(table.bots or [])
    return [bdi(s.player.name) for s in table.seats.all() if waits_for_phone(s, bots)]


@register.filter
def paper_questions(table, drive) -> dict[str, list[str]]:
    """What a table playing with cards notes on paper for its result, in its game's words (the
    questions of its result form, ``Game.entry_spec``): ``table``'s questions and each
    ``seat``'s."""
    spec = drive.game_rules.entry_spec(len(table.seats.all()))
    return {part: [field["label"] for field in spec.get(part, [])] for part in ("table", "seat")}


@register.filter
def names_and(names) -> SafeString:
    """Names (each escaped unless already HTML: ``bdi``'s), as "A, B and C"."""
    return SafeString(and_list([str(conditional_escape(n)) for n in names]))


@register.simple_tag
def entry_answers(result, game, table=None, tables: int = 0, hand=None, drive=None, ends=None) -> dict:
    """What a result's entry answered, in its form's words (``scoring.forms.answer_words``), for
    the player asked to confirm it: ``table`` (question, answer) pairs, ``rows`` (score, its
    seat's pairs) in seat order, and ``moves``: ``result_moves`` at ``table``, one of ``tables``
    (``ends``: whether closing ``hand`` ends the drive, ``closing_ends``).
    No query: the scores and their players are read with the result, in seat order."""
    scores = list(result.scores.all())
    names = [s.player.name for s in scores]
    try:
        spec = game.entry_spec(len(names))
    except ValueError:  # (a GameError: a table size the game does not play)
        spec = {"table": [], "seat": []}
    answers, seats = answer_words(spec, names, result.summary, quiet=True)
    return {"table": answers, "rows": list(zip(scores, seats)),
            "moves": result_moves(result, table, tables, hand, drive, ends) if table is not None else []}


@register.simple_tag
def result_moves(result, table, tables: int, hand=None, drive=None, ends=None) -> list[tuple[str, str]]:
    """What a result does at ``table``, one of ``tables`` (drive/movement.py): (the mover's
    name, "moves up") and (the name on the mover's left, "moves down"); "stays" at the top and
    the last table (a table not played too: its players move as when nobody won, the game's
    ``mover_without_winner``); nothing at a lone table. Once the hand is closed,
    the moves the close made (``TableHand.moved_up``: a correction after it changes the points,
    not the moves), said as done; nothing after the drive's last hand (``hand``, closed with no
    move made) nor during it (``hand`` of ``drive``, the last by its number of hands). The scores
    and their players are read with the result, in seat order: no query, but one for a closed
    hand's mover who has since left the drive (``_seated_after``). ``ends``: whether closing
    ``hand`` ends the drive, where the page knows it (the dashboard's ``last_hand``: at its total
    too), else by its number of hands."""
    made = table.moved_up_id is not None
    last = ends if isinstance(ends, bool) else drive is not None and hand is not None and drive.is_last_hand(hand.number)
    if not made and hand is not None and (hand.status == hand.Status.CLOSED or last):
        return []
    scores = list(result.scores.all())
    names = [s.player.name for s in scores]
    mover = table.moved_up_id if made else result.mover_id
    at = next((i for i, s in enumerate(scores) if s.player_id == mover), None)
    if at is None or tables < 2 or len(names) < 2:
        return []
    mover_does, left_does = movement.table_moves(table.number, tables, done=made)
    moves = [(at, mover_does), ((at + 1) % len(names), left_does)]
    # A player who has left the drive moves nowhere: the seating leaves them out (a bot may have
    # played their seat to the hand's end, and won it). One who left after this hand's close
    # moved as said (an earlier hand's page keeps "moved down", not "left the drive"); asked
    # only of a leaver, rarely on a page.
    said = [(names[i], words if scores[i].player.active or (made and _seated_after(scores[i].player_id, table))
             else "left the drive") for i, words in moves]
    if made and result.mover_id != table.moved_up_id:  # corrected since: the card names another mover
        said[-1] = (said[-1][0], f"{said[-1][1]}, at the close (a correction since changed the points, not the moves)")
    return said


def _seated_after(player_id: int, table) -> bool:
    """Whether the player sat at a table in a hand after ``table``'s."""
    return Seat.objects.filter(player_id=player_id, hand__number__gt=table.hand.number).exists()


@register.filter
def level_at_the_top(prizes) -> bool:
    """Whether the runner-up is level on points with the winners (``selectors.prizes``): the
    tie-breaks set them apart, which the prizes' list then says ("Runner-up:
    Gwen (40 points)" revealed after "Winners: Dmitri (40), Kate (40)" would puzzle the room)."""
    lists = {p.key: p.ranked for p in prizes}
    winners, runner_up = lists.get("winners"), lists.get("runner_up")
    return bool(winners and runner_up) and runner_up[0].total == winners[0].total


@register.filter
def full_stop(text: str) -> str:
    """The full stop a sentence ending in ``text`` (a name) needs: none after "Ann B." or "Jo!"."""
    return "" if str(text).rstrip().endswith((".", "!", "?", "…")) else "."


@register.filter
def closing_ends(view) -> bool:
    """Whether closing the hand in play of ``view`` (a ``DriveView``) ends the drive: its
    number of hands, or its total reached (``drive.pages.closing_ends``): no seating follows."""
    return pages.closing_ends(view)


@register.filter
def game_of_field(form, name: str) -> str:
    """The game whose house rule a drive form's field is ("" for the drive's own fields)."""
    return form.game_of_field(name)


@register.filter
def fact_notes(score, game) -> str:
    """The words after a player's points on a hand: the game's notes of the standings facts
    that player had in it (a winner's, say), and the game's ``winner_note`` for the hand's
    winner, in brackets; "" for none."""
    notes = [fact.note for fact in game.facts if fact.note and score.details.get(fact.key)]
    if game.winner_note and score.player_id == score.result.winner_id:  # (the result: cached, ``result.scores``)
        notes.append(game.winner_note)
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


COLOURS = ["#c79a2b", "#e0e0e0", "#e07a7a", "#6bb3d9", "#8fd96b", "#c58fd9"]

# The chart's geometry, in the board's own units (static/css/app.css, "The leaders' chart"):
# its plot is CHART_VH high on a wide screen (the side column's lower part), CHART_DONE_VH on a
# finished drive's wide board (the whole column: no join code above it) and CHART_TALL_VH on a
# screen taller than wide (below the standings); each name's line is LABEL_VH high. A label's
# place is a percentage of the plot's height, so the gap between two is worked out here for
# each layout, and CSS picks the one it shows (--yw, --yf, --yt).
CHART_VH, CHART_DONE_VH, CHART_TALL_VH, LABEL_VH = 52, 82, 33, 3.6
LABEL_GAP = 100 * LABEL_VH / CHART_VH  # % of the plot between two names (wide)
LABEL_GAP_DONE = 100 * LABEL_VH / CHART_DONE_VH
LABEL_GAP_TALL = 100 * LABEL_VH / CHART_TALL_VH
TIE_STEP = 2.2  # % of the plot between two lines at the same total: drawn side by side
PLOT_TOP, PLOT_BOTTOM = 5, 95  # % of the plot: room for the offsets of five tied lines


@register.simple_tag
def chart_svg(chart: dict) -> str:
    """The board's chart of the leaders' totals hand by hand: a ``figure.chart`` holding the
    lines (an SVG stretched to its box, the strokes kept their width), and in HTML, sized with
    the board, each leader's name and total at their line's end and the hands' numbers below.
    A name too long for its place is shortened with an ellipsis (CSS); the total never is.
    Lines at the same total after a hand are drawn apart, side by side, and so are their names;
    they all start from 0 at one point.
    "" when there is nothing to draw."""
    series = chart.get("series") or []
    hands = chart.get("hands") or 0
    if not series or not hands:
        return ""
    top = max(1, max(max(s["points"]) for s in series))
    low = min(0, min(min(s["points"]) for s in series))
    span = top - low or 1

    def x(i: int) -> float:
        return 100 * i / hands

    def y(v: float) -> float:
        return PLOT_TOP + (PLOT_BOTTOM - PLOT_TOP) * (top - v) / span

    # Equal totals after a hand, drawn apart: the first in the standings highest (y grows down).
    # Every line starts at one point, 0 before the first hand.
    offset = [[0.0] * (hands + 1) for _ in series]
    for i in range(1, hands + 1):
        groups: dict[int, list[int]] = {}
        for n, s in enumerate(series):
            groups.setdefault(s["points"][i], []).append(n)
        for value, members in groups.items():
            # Around their total, but a group at the chart's lowest (0, say) upwards from it: a
            # line drawn below the zero line reads as points lost.
            middle = len(members) - 1 if value == low else (len(members) - 1) / 2
            for k, n in enumerate(members):
                offset[n][i] = (k - middle) * TIE_STEP

    # Numbers are formatted here; the only text from users (names) goes through escape(). A
    # label's name is isolated by its own element (``dir="auto"``), which an ellipsis can
    # shorten anywhere (a <bdi> inside it was shortened only as a whole).
    summary = ", ".join(f"{s['name']} {s['points'][-1]}" for s in series)
    parts = [
        f'<figure class="chart" role="img" aria-label="{escape(f"Leaders after hand {hands}: {summary}")}">',
        '<svg class="chart-lines" viewBox="0 0 100 100" preserveAspectRatio="none" aria-hidden="true">',
        f'<line class="chart-zero" x1="0" y1="{y(0):.2f}" x2="100" y2="{y(0):.2f}" vector-effect="non-scaling-stroke"/>',
    ]
    for n, s in enumerate(series):
        points = " ".join(f"{x(i):.2f},{y(v) + offset[n][i]:.2f}" for i, v in enumerate(s["points"]))
        parts.append(f'<polyline data-total="{s["points"][-1]}" stroke="{COLOURS[n % len(COLOURS)]}" '
                     f'points="{points}" vector-effect="non-scaling-stroke"/>')
    parts.append("</svg>")
    ends = [y(s["points"][-1]) + offset[n][-1] for n, s in enumerate(series)]
    wide = _spread(ends, LABEL_GAP, LABEL_GAP / 2, 100 - LABEL_GAP / 2)
    done = _spread(ends, LABEL_GAP_DONE, LABEL_GAP_DONE / 2, 100 - LABEL_GAP_DONE / 2)
    tall = _spread(ends, LABEL_GAP_TALL, LABEL_GAP_TALL / 2, 100 - LABEL_GAP_TALL / 2)
    parts.append('<ol class="chart-names">')
    for n, s in enumerate(series):
        parts.append(
            f'<li style="--yw:{wide[n]:.2f}%;--yt:{tall[n]:.2f}%;--yf:{done[n]:.2f}%;color:{COLOURS[n % len(COLOURS)]}">'
            f'<span class="chart-name" dir="auto">{escape(s["name"])}</span> <span class="chart-points">{s["points"][-1]}</span></li>'
        )
    parts.append("</ol>")
    step = -(-hands // 8)  # at most 8 numbers or so under the lines
    shown = sorted({*range(step, hands + 1, step), hands})
    parts.append('<div class="chart-hands">')
    parts.extend(f'<span style="left:{x(i):.2f}%">{i}</span>' for i in shown)
    parts.append(f'</div><span class="chart-top" style="top:{y(top):.2f}%">{top}</span></figure>')
    return mark_safe("".join(parts))


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


@register.simple_tag
def board_moves(table, moves: dict, hand_number: int) -> list[tuple[str, str]]:
    """A table's line on the board while the room takes its seats, in seat order: everyone who
    sits there at hand 1; after it, who came to it (up, down, new): those who stay are told so
    on their phones, and ten tables of every name, a line each, took half the projector
    (three standings rows a page). (name, direction) pairs."""
    shown = []
    for seat in table.seats.all():
        move = moves.get(seat.player_id)
        direction = move.direction if move is not None else "new"
        if hand_number == 1 or direction != "stay":
            shown.append((seat.player.name, direction))
    return shown


@register.simple_tag
def player_items(players, finished: bool) -> SafeString:
    """The dashboard's list of players, an ``<li>`` each: the name, "(left)" for one who has
    left, and (until the drive has finished) the button that takes them out or brings them
    back; ``data-take-out`` names whom static/js/live.js asks about. Built here, not in a
    template loop: nine template nodes for each of 400 players cost more than the rest of the
    list's part (docs/benchmarks.md)."""
    items = []
    for p in players:
        name = bdi(p.name)
        left = "" if p.active else ' <span class="muted">(left)</span>'
        if finished:
            button = ""
        elif p.active:
            button = (f'<button class="link" name="withdraw" value="{p.pk}" data-take-out="{escape(p.name)}">'
                      f'<span class="visually-hidden">Take {name} out</span><span aria-hidden="true">take out</span></button>')
        else:
            button = (f'<button class="link" name="rejoin" value="{p.pk}">'
                      f'<span class="visually-hidden">Bring {name} back</span><span aria-hidden="true">bring back</span></button>')
        items.append(f"<li>{name}{left}\n    {button}</li>")
    return SafeString("".join(items))


@register.simple_tag
def seat_items(table, moves, hand) -> SafeString:
    """A table card's seats in seat order, an ``<li>`` each: the seat's number, the name, how
    they came to it at the close (``moved_in``: up or down), and a note for one who has left the
    drive or whose seat a bot plays in the hand on the phones. Built here, not in a template
    loop: a 100-table dashboard has 400 seats (docs/benchmarks.md)."""
    bots = set(table.bots or []) if table.on_the_phones else ()
    items = []
    for number, seat in enumerate(table.seats.all(), 1):
        player = seat.player
        move = moved_in(moves, seat.player_id)
        moved = "" if move is None else (
            f' <span class="small mv-{move.direction}" data-moved>{"↑ up" if move.direction == "up" else "↓ down"} '
            f'from Table {move.from_table}</span>')
        bot_plays = seat.position in bots and not player.is_bot
        if not player.active:
            why = ("has since left the drive" if hand.status == hand.Status.CLOSED else
                   "has left the drive: a bot plays for them until the close" if bot_plays else
                   "has left the drive: unseated at the close")
            note = f' <span class="small muted" data-left>({why})</span>'
        else:
            note = ' <span class="small muted">(a bot plays for them)</span>' if bot_plays else ""
        items.append(f'<li><span class="muted">Seat {number}</span> {bdi(player.name)}{moved}{note}</li>')
    return SafeString("".join(items))


@register.simple_tag
def moved_in(moves: dict, player_id: int):
    """How ``player_id`` came to their seat at the close, when they moved up or down (a ``Move``),
    else None: those who stay, and late arrivals, are not marked."""
    move = moves.get(player_id) if moves else None
    return move if move is not None and move.direction in ("up", "down") else None


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


@register.simple_tag(name="entry_state")
def entry_state_tag(table) -> str:
    """``drive.selectors.entry_state``: the phone's page and its entry page carry the same."""
    return entry_state(table)
