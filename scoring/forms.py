"""The result-entry form, built from the game's entry spec (``game.entry_spec(players)``).

The drive knows nothing of cards: the game says which questions to ask about the table and about
each seat, with the allowed answers. This form renders them as large tap targets and turns the
answers into the game's summary dict: ``{<table field>: value, ..., "holdings": [{<seat field>:
value, ...} per seat]}``. Points are never typed: the game computes them from the summary.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django import forms


def _choice_field(spec: dict, players: Sequence[str]) -> forms.TypedChoiceField:
    if spec["type"] == "seat":
        choices = [(i, name) for i, name in enumerate(players)]
        if spec.get("optional"):
            choices.append((None, spec.get("none_label", "Nobody")))
    else:
        choices = [tuple(c) for c in spec["choices"]]
    # "Nobody" is an explicit answer ("none"): a default only where the game gives one
    # (``"default": None`` on an optional seat question), else a question must be answered.
    str_choices = [(_key(v), label) for v, label in choices]
    lookup = {_key(v): v for v, _ in choices}
    field = forms.TypedChoiceField(
        label=spec["label"],
        choices=str_choices,
        coerce=lambda raw: lookup[raw],
        widget=forms.RadioSelect,
        help_text=spec.get("help", ""),
        # Not Django's "Select a valid choice. <what was sent> is not one of…": a forged answer
        # of 5,000 digits would come back whole.
        error_messages={"required": spec.get("missing", "Choose one."),
                        "invalid_choice": "Choose one of the answers shown."},
    )
    if "default" in spec:
        field.initial = _key(spec["default"])
    field.asked_if = spec.get("asked_if")  # the question whose "nobody" (or "none") answer makes this one moot
    return field


def _key(value: Any) -> str:
    return "none" if value is None else str(value)


class ResultForm(forms.Form):
    """Answers about one table's hand. ``players`` are the seated names in seat order."""

    def __init__(self, spec: dict, players: Sequence[str], *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.spec = spec
        self.players = list(players)
        for f in spec["table"]:
            self.fields[f["name"]] = _choice_field(f, self.players)
        for i, _name in enumerate(self.players):
            for f in spec["seat"]:
                self.fields[f"seat{i}_{f['name']}"] = _choice_field(f, self.players)

    def clean(self) -> dict:
        """A question asked only once another was (``asked_if``: a table question's gate is a
        table question, a seat question's a question of the same seat) is moot when that one's
        answer is "nobody" or "none": the page hides it, and whatever it still sends for it (the
        answer chosen before) is not read; the summary holds the question's default."""
        data = super().clean()
        asked = [(f, f["name"], f.get("asked_if")) for f in self.spec["table"]]
        asked += [(f, f"seat{i}_{f['name']}", f.get("asked_if") and f"seat{i}_{f['asked_if']}")
                  for i in range(len(self.players)) for f in self.spec["seat"]]
        for f, name, gate in asked:
            if gate and gate in data and _key(data[gate]) == "none":
                self.errors.pop(name, None)
                data[name] = f.get("default")
        return data

    def unanswered(self) -> str:
        """What the answers lack, in the questions' words ("Who dealt? Say who dealt: tap their
        name."), for a message at the top of the form and for a phone sending without the page
        (static/js/entry.js); "" when nothing is missing."""
        return " ".join(
            f"{field.label} {' '.join(field.errors)}" for field in self if field.errors
        )

    def table_fields(self):
        """The table's questions asked before the players' rows."""
        return [self[f["name"]] for f in self.spec["table"] if not f.get("after_seats")]

    def closing_fields(self):
        """The table's questions asked after the players' rows (``"after_seats": True``: one
        that reads the rows' answers, as a question about the players tied on them)."""
        return [self[f["name"]] for f in self.spec["table"] if f.get("after_seats")]

    def seat_rows(self):
        """Each player's row: (seat, name, [(field, the name of the field it is asked after, or "")])."""
        return [
            (i, name, [(self[f"seat{i}_{f['name']}"], f"seat{i}_{f['asked_if']}" if f.get("asked_if") else "")
                       for f in self.spec["seat"]])
            for i, name in enumerate(self.players)
        ]

    @classmethod
    def initial_from_summary(cls, spec: dict, summary: dict | None) -> dict:
        if not summary:
            return {}
        initial = {}
        for f in spec["table"]:
            if f["name"] in summary:
                initial[f["name"]] = _key(summary[f["name"]])
        for i, holding in enumerate(summary.get("holdings", [])):
            for f in spec["seat"]:
                if f["name"] in holding:
                    initial[f"seat{i}_{f['name']}"] = str(holding[f["name"]])
        return initial

    def summary(self) -> dict:
        data = self.cleaned_data
        summary: dict[str, Any] = {f["name"]: data.get(f["name"]) for f in self.spec["table"]}
        summary["holdings"] = [
            {f["name"]: data.get(f"seat{i}_{f['name']}") for f in self.spec["seat"]} for i in range(len(self.players))
        ]
        return summary


def answer_words(spec: dict, players: Sequence[str], summary: dict | None, *, quiet: bool = False
                 ) -> tuple[list, list]:
    """An entered summary in the form's own words, for the player who checks it: the table's
    answers as (question, answer) pairs, and each seat's in seat order (``players``). Answers
    the spec does not ask (a digital hand's extras) and values it does not know are left out, as
    is the answer to a question asked only once another was (``asked_if``) when that one's
    answer is "nobody". ``quiet``: a question left at its default "nobody" is left out too
    (a tie question answered "no tie" says nothing to the player checking; the correction log
    keeps it, to show a change).
    Plain lookups, no form: the phones' live fragments show it for every table."""
    summary = summary or {}

    def said(field: dict, value: Any) -> bool:
        return not (quiet and value is None and "default" in field and field["default"] is None)

    def words(field: dict, value: Any) -> str | None:
        if field["type"] == "seat":
            if value is None:
                return field.get("none_label", "Nobody") if field.get("optional") else None
            return players[value] if type(value) is int and 0 <= value < len(players) else None
        return next((w for v, w in field["choices"] if v == value and type(v) is type(value)), None)

    def asked(field: dict, answers: dict) -> bool:  # not moot (``asked_if``)
        return not field.get("asked_if") or _key(answers.get(field["asked_if"])) != "none"

    table = [(f["label"], w) for f in spec["table"]
             if f["name"] in summary and said(f, summary[f["name"]]) and (w := words(f, summary[f["name"]])) is not None
             and asked(f, summary)]
    holdings = summary.get("holdings") or []
    seats = []
    for i in range(len(players)):
        holding = holdings[i] if i < len(holdings) and isinstance(holdings[i], dict) else {}
        seats.append([(f["label"], w) for f in spec["seat"]
                      if f["name"] in holding and (w := words(f, holding[f["name"]])) is not None and asked(f, holding)])
    return table, seats
