from django.db import migrations, models


def mark_unchanged(apps, schema_editor):
    """A correction whose answers are those it replaced confirmed or upheld an entry as it stood."""
    Correction = apps.get_model("scoring", "Correction")
    for correction in Correction.objects.only("old", "new").iterator():
        if (correction.old or {}).get("summary") == (correction.new or {}).get("summary"):
            Correction.objects.filter(pk=correction.pk).update(changed=False)


class Migration(migrations.Migration):

    dependencies = [
        ("scoring", "0003_json_by_orjson"),
    ]

    operations = [
        migrations.AddField(
            model_name="correction",
            name="changed",
            field=models.BooleanField(default=True),
        ),
        migrations.RunPython(mark_unchanged, migrations.RunPython.noop),
    ]
