"""Standings facts move into ``Score.details`` (one JSON object per score, keyed by the game's
fact names) and the result's ``declarer`` becomes the game-neutral ``winner``.

Existing drives are all Film Fantasy drives: a declared score becomes
``{"declarations": 1}`` and a nine-card one also ``"nine_card_declarations": 1``, which is what
the game's facts say, so every standing and tie-break stays as it was."""

from django.db import migrations, models


def to_details(apps, schema_editor):
    Score = apps.get_model("scoring", "Score")
    Score.objects.filter(declared=True, nine_card=False).update(details={"declarations": 1})
    Score.objects.filter(declared=True, nine_card=True).update(
        details={"declarations": 1, "nine_card_declarations": 1}
    )


def from_details(apps, schema_editor):
    Score = apps.get_model("scoring", "Score")
    for score in Score.objects.exclude(details={}):
        score.declared = bool(score.details.get("declarations"))
        score.nine_card = bool(score.details.get("nine_card_declarations"))
        score.save(update_fields=["declared", "nine_card"])


def winner_in_corrections(apps, schema_editor):
    """Each correction's old and new snapshots name the winner by player id (``winner``), as
    ``scoring.services.result_snapshot`` now records; before, the log read the declarer's seat
    from the Film Fantasy summary."""
    Correction = apps.get_model("scoring", "Correction")
    Seat = apps.get_model("tables", "Seat")
    for correction in Correction.objects.all():
        seated = list(Seat.objects.filter(table_id=correction.result.table_id)
                      .order_by("position").values_list("player_id", flat=True))
        for side in ("old", "new"):
            snapshot = getattr(correction, side) or {}
            if "winner" in snapshot:
                continue
            seat = (snapshot.get("summary") or {}).get("declarer")
            snapshot["winner"] = seated[seat] if isinstance(seat, int) and 0 <= seat < len(seated) else None
            setattr(correction, side, snapshot)
        correction.save(update_fields=["old", "new"])


class Migration(migrations.Migration):
    dependencies = [
        ("scoring", "0001_initial"),
        ("drive", "0003_player_added_by_phone"),
        ("tables", "0002_digital_play"),
    ]

    operations = [
        migrations.AddField(
            model_name="score", name="details", field=models.JSONField(blank=True, default=dict),
        ),
        migrations.RunPython(to_details, from_details),
        migrations.RunPython(winner_in_corrections, migrations.RunPython.noop),
        migrations.RemoveField(model_name="score", name="declared"),
        migrations.RemoveField(model_name="score", name="nine_card"),
        migrations.RenameField(model_name="result", old_name="declarer", new_name="winner"),
        migrations.AlterField(
            model_name="result", name="winner",
            field=models.ForeignKey(
                blank=True, null=True, on_delete=models.deletion.PROTECT, related_name="won_results",
                to="drive.player",
            ),
        ),
    ]
