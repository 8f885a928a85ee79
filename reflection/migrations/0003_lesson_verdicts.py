# The trader's veto or pin of one lessons bullet of a skill (the lessons page); owned, so row-level security
# (access/policies.py) scopes it like every owned table.

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("ledger", "0001_initial"),
        ("reflection", "0002_note_cache_tokens"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name="LessonVerdict",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("bullet", models.CharField(max_length=500)),
                ("verdict", models.CharField(choices=[("veto", "vetoed"), ("pin", "pinned")], max_length=4)),
                ("created_at", models.DateTimeField(auto_now_add=True)),
                (
                    "owner",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE, related_name="+", to=settings.AUTH_USER_MODEL
                    ),
                ),
                (
                    "skill",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE, related_name="lesson_verdicts", to="ledger.skill"
                    ),
                ),
            ],
            options={
                "db_table": "reflection_lesson_verdicts",
                "ordering": ["created_at", "id"],
                "constraints": [
                    models.UniqueConstraint(fields=("skill", "bullet"), name="reflection_one_verdict_per_bullet"),
                    models.CheckConstraint(
                        condition=models.Q(("verdict__in", ["veto", "pin"])), name="reflection_verdict_valid"
                    ),
                    models.CheckConstraint(
                        condition=models.Q(("bullet", ""), _negated=True), name="reflection_verdict_bullet_set"
                    ),
                ],
            },
        ),
    ]
