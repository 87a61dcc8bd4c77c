from __future__ import annotations

import unicodedata
from functools import cached_property

from django import forms

from drive.models import Drive, Player
from drive.services import DriveError, parse_names


def has_control_characters(text: str) -> bool:
    """True when ``text`` holds a control character other than a line break or tab: never part of
    a name (a NUL is refused by PostgreSQL outright), so such text is refused, not stored."""
    return any(unicodedata.category(c) == "Cc" and c not in "\n\r\t" for c in text)


def without_control_characters(text: str) -> str:
    return "".join(c for c in text if unicodedata.category(c) != "Cc" or c in "\n\r\t")


def posted_number(data, field: str) -> int | None:
    """A whole number a form posted (a hidden field: a revision, a hand's or a table's number),
    or None when it is missing or not plain digits."""
    raw = data.get(field, "")
    return int(raw) if isinstance(raw, str) and raw.isascii() and raw.isdigit() and len(raw) < 10 else None


class DriveForm(forms.ModelForm):
    class Meta:
        model = Drive
        fields = [
            "name", "date", "target", "target_hands", "target_total", "preferred_table_size",
            "play_mode", "allow_self_join", "suspense_hands",
        ]
        widgets = {"date": forms.DateInput(format="%Y-%m-%d", attrs={"type": "date"})}
        labels = {
            "target": "The drive ends after",
            "target_hands": "Number of hands",
            "target_total": "Total to reach",
            "preferred_table_size": "Players per table",
            "play_mode": "Tables play with",
            "suspense_hands": "Hide the standings for the last … hands",
            "allow_self_join": "Players may add themselves",
        }

    joker_penalty = forms.BooleanField(
        required=False, initial=True, label="Declarer's stray Joker costs 5",
        help_text="House rule (default on): a Joker the declarer holds outside the declaration costs 5.",
    )

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        if self.instance.pk:
            self.fields["joker_penalty"].initial = self.instance.house_rules.get("declarer_joker_penalty", True)
            if self._played:
                self.fields["joker_penalty"].help_text = "Fixed now: the first hand has started."
        self.fields["name"].widget.attrs["placeholder"] = "Spring drive at the village hall"

    def clean_name(self):
        name = " ".join(self.cleaned_data["name"].split())
        if not name:
            raise forms.ValidationError("Give the drive a name.")
        return name

    def clean(self):
        data = super().clean()
        if "joker_penalty" in self.changed_data and self.instance.pk and self._played:
            # An entry's points are computed when it is sent, a correction's when it is saved: a
            # rule changed after the first hand started would score the drive's tables (even
            # one hand's) by two rules.
            self.add_error("joker_penalty", "The house rule is fixed once the first hand has started: every table "
                                            "of the drive is scored by the same rules, corrections too.")
        suspense, hands = data.get("suspense_hands") or 0, data.get("target_hands")
        if data.get("target") in (Drive.Target.HANDS, Drive.Target.EITHER) and hands and suspense >= hands:
            self.add_error("suspense_hands", f"Hide at most {hands - 1} of the {hands} hands: hiding them all "
                                             "would keep the board's standings blank all evening.")
        if data.get("target") == Drive.Target.TOTAL and suspense:
            # Nobody knows which hands are the last: the board would never hide anything.
            self.add_error("suspense_hands", "A drive that ends at a total has no known last hands to hide: set "
                                             "this to 0, or end the drive after a number of hands (or whichever "
                                             "comes first).")
        return data

    @cached_property
    def _played(self) -> bool:
        """The first hand has started (one query, asked once per form: shown and checked)."""
        from tables.models import Hand

        return self.instance.hands.exclude(status=Hand.Status.SEATING).exists()

    def save(self, commit=True):
        drive = super().save(commit=False)
        drive.house_rules = {**drive.house_rules, "declarer_joker_penalty": self.cleaned_data["joker_penalty"]}
        if commit:
            drive.save()
        return drive


class NamesForm(forms.Form):
    names = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 6, "placeholder": "Ann\nBob\nCy\n…"}),
        label="Players' names", help_text="One per line (or separated by commas).", max_length=20000,
    )

    def clean_names(self):
        if has_control_characters(self.cleaned_data["names"]):
            raise forms.ValidationError("Names can hold letters, digits and punctuation, not control characters.")
        try:
            names = parse_names(self.cleaned_data["names"])
        except DriveError as exc:
            raise forms.ValidationError(str(exc)) from None
        if not names:
            raise forms.ValidationError("Give at least one name.")
        return names


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
    reason = forms.CharField(max_length=300, required=False, label="Reason for the correction")
