from __future__ import annotations

import datetime
import json
import unicodedata
from functools import cached_property

from django import forms
from django.core.validators import MaxLengthValidator, MaxValueValidator, MinValueValidator
from django.db import transaction
from django.utils import timezone

from drive.models import Drive, Player
from games import Game, HouseRule, all_games, default_slug, get_game
from drive import live, selectors, services
from drive.services import clean_name, has_control_characters, sort_names, typed_too_long


def without_control_characters(text: str) -> str:
    return "".join(c for c in text if unicodedata.category(c) != "Cc" or c in "\n\r\t")


def posted_number(data, field: str) -> int | None:
    """A whole number a form posted (a hidden field: a revision, a hand's or a table's number),
    or None when it is missing or not plain digits."""
    raw = data.get(field, "")
    return int(raw) if isinstance(raw, str) and raw.isascii() and raw.isdigit() and len(raw) < 10 else None


def rule_field_name(game: Game, rule: HouseRule) -> str:
    """The drive form's field of a game's house rule (each game's rules have their own)."""
    return f"rule_{game.slug.replace('-', '_')}_{rule.key}"


def rule_field(game: Game, rule: HouseRule) -> forms.Field:
    """A form field from a game's plain description of a house rule (``games.base.HouseRule``)."""
    if rule.kind == "bool":
        return forms.BooleanField(required=False, initial=rule.default, label=rule.label, help_text=rule.help)
    # Not required: only the chosen game's rules are kept, and one not sent keeps its default.
    return forms.ChoiceField(choices=list(rule.choices), initial=rule.default, label=rule.label, help_text=rule.help,
                             required=False)


# The drive form's number boxes, as its refusals name them ("Type the number of hands as …").
NUMBER_WORDS = {
    "target_hands": "the number of hands",
    "target_total": "the total to reach",
    "preferred_table_size": "the players per table",
    "suspense_hands": "the last hands to hide the standings for",
}


class DriveForm(forms.ModelForm):
    """A drive's settings: the game and its house rules (one field per rule of each registered
    game, the chosen game's kept), the end, the tables, who may join. The game and its house
    rules are fixed once the first hand has started."""

    class Meta:
        model = Drive
        fields = [
            "name", "date", "game", "target", "target_hands", "target_total", "preferred_table_size",
            "play_mode", "allow_self_join", "suspense_hands",
        ]
        widgets = {"date": forms.DateInput(format="%Y-%m-%d", attrs={"type": "date"})}
        labels = {
            "game": "Game",
            "target": "The drive ends after",
            "target_hands": "Number of hands",
            "target_total": "Total to reach",
            "preferred_table_size": "Players per table",
            "play_mode": "Tables play with",
            "suspense_hands": "Hide the standings for the last … hands",
            "allow_self_join": "Players may add themselves",
        }
        help_texts = {  # (the model's own say less: these are the form's words, said to the organiser)
            "suspense_hands": "For suspense: the board and the phones keep showing the standings as they were "
                              "before these hands, and the final standings stay hidden until you reveal the prizes "
                              "on the standings page. 0 hides nothing.",
            "allow_self_join": "A player not on the list types their own name on the join page, instead of asking "
                               "you to add it.",
        }

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["game"] = forms.ChoiceField(
            choices=[(g.slug, g.name) for g in all_games()], initial=default_slug(), label="Game", required=False,
        )
        if self.instance.pk:
            self.fields["game"].initial = self.instance.game
        else:  # a new drive: the default game's suggested total, changed with the game (drive_form.js)
            self.fields["target_total"].initial = get_game(default_slug()).target_total
        # The name's length is checked once it is cleaned (below): "ﷺ" is one character typed and
        # eighteen stored, and a count of what was typed would make no sense to whoever typed it.
        self.fields["name"].max_length = None
        self.fields["name"].validators = [v for v in self.fields["name"].validators
                                          if not isinstance(v, MaxLengthValidator)]
        # A name of spaces only is stripped to nothing and refused as missing: said as a name
        # of invisible characters is (``clean_name``), not as Django's "This field is required."
        self.fields["name"].error_messages["required"] = "Give the drive a name."
        self.fields["game"].widget.attrs["data-totals"] = json.dumps({g.slug: g.target_total for g in all_games()})
        # Each game's table sizes: the players-per-table box takes the chosen game's (drive_form.js).
        self.fields["game"].widget.attrs["data-sizes"] = json.dumps({g.slug: [g.min_players, g.max_players]
                                                                     for g in all_games()})
        # Each game's house rules, after the game (static/js/drive_form.js shows the chosen game's).
        self.rule_fields: dict[str, tuple[Game, HouseRule]] = {}
        for game in all_games():
            for rule in game.house_rules:
                name = rule_field_name(game, rule)
                self.fields[name] = rule_field(game, rule)
                self.rule_fields[name] = (game, rule)
                if self.instance.pk and self.instance.game == game.slug:
                    self.fields[name].initial = self.instance.house_rules.get(rule.key, rule.default)
        order = list(self.Meta.fields)
        order[order.index("game") + 1:order.index("game") + 1] = list(self.rule_fields)
        self.order_fields(order)
        if self.instance.pk and self.instance.is_finished:
            # Its final standings are frozen (a new target would say the drive ended otherwise):
            # only its name may change. Shown disabled; what a page sends for them anyway is
            # not read (Django keeps a disabled field's initial value).
            for name, field in self.fields.items():
                if name != "name":
                    field.disabled = True
        elif self.instance.pk and self._played:
            # An entry's points are computed when it is sent, a correction's when it is saved: a
            # rule (or game) changed after the first hand started would score the drive's tables
            # (even one hand's) by two rules. Shown disabled, so the rest of the form still saves
            # (Django keeps a disabled field's initial value, whatever a page sends).
            for name in ["game", *self.rule_fields]:
                self.fields[name].disabled = True
                self.fields[name].help_text = "Fixed now: the first hand has started."
        self.fields["name"].widget.attrs["placeholder"] = "Spring drive at the village hall"
        # The number boxes offer the model's own bounds (a box that offered 0 hands, refused
        # on saving, would puzzle), and a number outside them is refused naming them (not
        # the "0" of a positive number field).
        for name in ("target_hands", "target_total", "preferred_table_size", "suspense_hands"):
            field = self.fields[name]
            bounds = [v for v in Drive._meta.get_field(name).validators
                      if isinstance(v, (MinValueValidator, MaxValueValidator))]
            # (Players per table: the chosen game's bounds, checked in ``clean``, say it best.)
            kinds = {MinValueValidator, MaxValueValidator} if name == "preferred_table_size" else {type(v) for v in bounds}
            field.validators = [v for v in field.validators if type(v) not in kinds]
            if name != "preferred_table_size":
                field.validators += bounds
            for validator in bounds:
                key = "min" if isinstance(validator, MinValueValidator) else "max"
                field.widget.attrs[key] = validator.limit_value
        # The fewest and most players any game seats at a table (``clean`` checks the chosen game's).
        self.fields["preferred_table_size"].widget.attrs["min"] = min(g.min_players for g in all_games())
        self.fields["preferred_table_size"].widget.attrs["max"] = max(g.max_players for g in all_games())
        # A number out of bounds, missing or not a number (a box of letters is sent empty) is said in
        # the form's words, naming the bounds: Django's "Ensure this value is greater than or equal
        # to 1." and "This field is required." puzzled a tester.
        for name, what in NUMBER_WORDS.items():
            field = self.fields[name]
            said = f"Type {what} as a whole number from {field.widget.attrs.get('min', 0)} to {field.widget.attrs['max']}."
            field.error_messages.update(required=said, invalid=said, min_value=said, max_value=said)

    def game_of_field(self, name: str) -> str:
        """The slug of the game a house-rule field belongs to ("" for the drive's own fields)."""
        return self.rule_fields[name][0].slug if name in self.rule_fields else ""

    def clean_game(self):
        """The chosen game; a form sent without one keeps the drive's (a new drive: the default)."""
        return self.cleaned_data.get("game") or (self.instance.game if self.instance.pk else default_slug())

    def clean_date(self):
        """An evening's date: from the year 2000 to ten years ahead (a year 9999 sorted the drive
        above every other on the home page)."""
        date = self.cleaned_data["date"]
        earliest, latest = datetime.date(2000, 1, 1), timezone.localdate() + datetime.timedelta(days=3653)
        if not earliest <= date <= latest:
            raise forms.ValidationError(f"Give a date from {earliest:%-d %B %Y} to {latest:%-d %B %Y}.")
        return date

    def clean_name(self):
        if has_control_characters(self.cleaned_data["name"]):
            raise forms.ValidationError("A drive's name can hold letters, digits and punctuation, not control characters.")
        limit = Drive._meta.get_field("name").max_length
        if typed_too_long(self.cleaned_data["name"]):  # refused unread (MAX_TYPED)
            raise forms.ValidationError(f"Keep the name to {limit} characters (it has {len(self.cleaned_data['name'])}).")
        name = clean_name(self.cleaned_data["name"])  # as a player's: nothing invisible, no overrides
        if not name:
            raise forms.ValidationError("Give the drive a name.")
        if len(name) > limit:
            raise forms.ValidationError(f"Keep the name to {limit} characters (it has {len(name)}).")
        return name

    def clean(self):
        data = super().clean()
        if self.instance.pk and self.instance.is_finished:
            return data  # only the name is read (the rest is disabled): nothing else to check together
        # (Players per table within the game's sizes: ``Drive.clean``.)
        suspense, hands = data.get("suspense_hands") or 0, data.get("target_hands")
        if data.get("target") in (Drive.Target.HANDS, Drive.Target.EITHER) and hands and suspense >= hands:
            self.add_error("suspense_hands", f"Hide at most {hands - 1} of the {hands} hands: hiding them all "
                                             "would keep the board's standings blank all evening.")
        if data.get("target") == Drive.Target.TOTAL:
            # Nobody knows which hands are the last: nothing is hidden (the page shows no such box
            # then, though it sends what the box held: a hidden box must not refuse the form).
            data["suspense_hands"] = 0
        elif hands and suspense and self.instance.pk and "suspense_hands" not in self.errors:
            shown = self._standings_shown()
            if hands - suspense < shown:
                # The room has seen the standings after that hand: hiding it again would take
                # back what the board showed (two screens would then disagree).
                self.add_error("suspense_hands", f"The board has shown the standings after hand {shown}: hide at "
                                                 f"most {max(hands - shown, 0)} of the {hands} hands.")
        return data

    def _standings_shown(self) -> int:
        """The hand after which the room has seen the standings (0: none yet), by the settings
        saved: the latest hand with a counted result (a hand in play shows those as they are
        confirmed), or the last before the hidden ones."""
        from django.db.models import Max

        from scoring.models import Score

        counted = Score.objects.filter(drive=self.instance, counted=True).aggregate(n=Max("hand_number"))["n"] or 0
        frozen_at = selectors.suspense_from(self.instance)
        return counted if frozen_at is None else min(counted, frozen_at)

    def kept_finished(self) -> bool:
        """The page, shown before the drive finished, sent a change to more than its name, which
        the form kept as it was (the page says so, not only "Saved.")."""
        if not (self.instance.pk and self.instance.is_finished and "target" in self.data):
            return False
        for name, field in self.fields.items():
            if name == "name" or self.add_prefix(name) not in self.data:  # (not sent: shown disabled then)
                continue
            sent = field.widget.value_from_datadict(self.data, self.files, self.add_prefix(name))
            try:
                if field.to_python(sent) != field.to_python(self[name].initial):
                    return True
            except forms.ValidationError:
                return True
        return False

    def kept_fixed(self) -> bool:
        """The page sent a changed game or house rule that the form kept as it was (the first
        hand started after the page was shown with them open to change: a page that shows them
        disabled does not send them at all)."""
        if not (self.instance.pk and not self.instance.is_finished and self._played and "game" in self.data):
            return False
        if self.data.get("game") != self.instance.game:
            return True
        for name, (game, _rule) in self.rule_fields.items():
            field = self.fields[name]
            if game.slug == self.instance.game and str(field.to_python(self.data.get(name))) != str(
                    field.to_python(field.initial)):
                return True
        return False

    @cached_property
    def _played(self) -> bool:
        """The first hand has started (one query, asked once per form: shown and checked)."""
        from tables.models import Hand

        return self.instance.hands.exclude(status=Hand.Status.SEATING).exists()

    def save(self, commit=True):
        drive = super().save(commit=False)
        chosen = self.cleaned_data["game"]
        drive.house_rules = {
            rule.key: rule.default if self.cleaned_data[name] in (None, "") else self.cleaned_data[name]
            for name, (game, rule) in self.rule_fields.items() if game.slug == chosen
        }
        drive.__dict__.pop("game_rules", None)  # the cached game, now with these rules
        if commit:
            drive.save()
        return drive


def edit_drive(drive: Drive, data) -> tuple[DriveForm, list[str]]:
    """The organiser's changed settings (``data``, the form as posted), judged and saved on the
    drive's row as it stands, locked, with the seating's tables in the same transaction (or
    neither): saving the whole row as the page's request first read it undid a close that ended
    the drive meanwhile (its final standings, its status). Returns the form (its errors, when
    refused, on the field whose change was) and what the changes did to the seating, in words."""
    notes: list[str] = []
    refused_on = None
    try:
        with transaction.atomic():
            form = DriveForm(data, instance=services.lock(drive))
            if form.is_valid():
                drive = form.save()
                live.drive_changed(drive.pk)  # the open screens show the settings saved (its name, the hidden hands)
                # Each table keeps its mode and its players from hand to hand: these change the
                # seating shown, between hands (during a hand they are refused). Another game
                # (chosen before the first hand) re-forms a table it cannot seat; after a
                # re-formed table size (or with the game unchanged) there is none, and it says
                # nothing.
                changes = {
                    "play_mode": lambda: services.drive_play_mode_changed(drive, form.cleaned_data["play_mode"]),
                    "preferred_table_size": lambda: services.drive_table_size_changed(drive),
                    "game": lambda: services.drive_game_changed(drive),
                }
                for field in (f for f in changes if f in form.changed_data):
                    refused_on = field
                    notes.append(changes[field]())
    except services.DriveError as exc:
        form.add_error(refused_on, str(exc))
    return form, [note.removeprefix("Saved: ") for note in notes if note]


class NamesForm(forms.Form):
    names = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 6, "placeholder": "Ann\nBob\nCy\n…"}),
        label="Players' names", help_text="One per line (or separated by commas).", max_length=20000,
    )

    def clean_names(self):
        """The pasted text as it is: the service sorts the names it can add from the others."""
        text = self.cleaned_data["names"]
        if has_control_characters(text):
            raise forms.ValidationError("Names can hold letters, digits and punctuation, not control characters.")
        if sort_names(text) == ([], []):
            raise forms.ValidationError("Give at least one name.")
        return text


class PlayerChoiceField(forms.ModelChoiceField):
    def label_from_instance(self, obj: Player) -> str:
        return obj.name


class SwapForm(forms.Form):
    a = PlayerChoiceField(queryset=Player.objects.none(), label="Swap")
    b = PlayerChoiceField(queryset=Player.objects.none(), label="with")

    def __init__(self, drive: Drive, *args, **kwargs):
        super().__init__(*args, **kwargs)
        players = drive.players.filter(active=True)
        self.fields["a"].queryset = players
        self.fields["b"].queryset = players

    def clean(self):
        data = super().clean()
        if data.get("a") and data.get("a") == data.get("b"):
            raise forms.ValidationError("Pick two different players.")
        return data


class ReasonForm(forms.Form):
    LIMIT = 300  # characters, once cleaned as a name is (as stored)

    reason = forms.CharField(required=False, label="Reason for the correction",
                             widget=forms.TextInput(attrs={"maxlength": LIMIT}))

    def clean_reason(self) -> str:
        """The reason as the log keeps it: cleaned as a name is (nothing invisible); its length
        counted once cleaned; control characters refused, as in names."""
        raw = self.cleaned_data["reason"]
        if has_control_characters(raw):
            raise forms.ValidationError("A reason can hold letters, digits and punctuation, not control characters.")
        reason = raw if typed_too_long(raw) else clean_name(raw)  # refused unread (MAX_TYPED)
        if len(reason) > self.LIMIT:
            raise forms.ValidationError(f"Keep the reason for the correction to {self.LIMIT} characters (it has {len(reason)}).")
        return reason
