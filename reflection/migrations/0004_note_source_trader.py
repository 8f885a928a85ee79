# A note's source gains "trader": the revision a trader's veto (or taking one back) makes of the active lessons.

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("reflection", "0003_lesson_verdicts"),
    ]

    operations = [
        migrations.RemoveConstraint(model_name="reflectionnote", name="reflection_source_valid"),
        migrations.AlterField(
            model_name="reflectionnote",
            name="source",
            field=models.CharField(
                choices=[
                    ("reflection", "reflection run"),
                    ("staff_edit", "staff edit"),
                    ("promotion", "promoted to skill scope"),
                    ("trader", "trader's verdict"),
                ],
                default="reflection",
                max_length=10,
            ),
        ),
        migrations.AddConstraint(
            model_name="reflectionnote",
            constraint=models.CheckConstraint(
                condition=models.Q(("source__in", ["reflection", "staff_edit", "promotion", "trader"])),
                name="reflection_source_valid",
            ),
        ),
    ]
