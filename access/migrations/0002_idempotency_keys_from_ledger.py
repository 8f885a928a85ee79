# IdempotencyKey moved here from ledger (ledger/migrations/0011_idempotency_keys_to_access.py): state only.
# The table, its indexes and constraints are the ones ledger/migrations/0010_idempotency_keys.py created,
# which must therefore have run first (on a fresh database, that migration creates the table).

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("access", "0001_elevations"),
        ("ledger", "0010_idempotency_keys"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name="IdempotencyKey",
                    fields=[
                        (
                            "id",
                            models.BigAutoField(
                                auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                            ),
                        ),
                        ("key", models.CharField(max_length=255)),
                        (
                            "request_hash",
                            models.CharField(help_text="sha256 hex digest of method, path and body.", max_length=64),
                        ),
                        ("response_status", models.PositiveSmallIntegerField(blank=True, null=True)),
                        ("response_body", models.JSONField(blank=True, null=True)),
                        ("created_at", models.DateTimeField()),
                        (
                            "owner",
                            models.ForeignKey(
                                on_delete=django.db.models.deletion.CASCADE,
                                related_name="+",
                                to=settings.AUTH_USER_MODEL,
                            ),
                        ),
                    ],
                    options={
                        "db_table": "idempotency_keys",
                        "ordering": ["-created_at", "-id"],
                        "constraints": [
                            models.UniqueConstraint(fields=("owner", "key"), name="idempotency_key_unique_per_owner"),
                            models.CheckConstraint(
                                condition=models.Q(("request_hash__regex", "^[0-9a-f]{64}$")),
                                name="idempotency_key_request_hash_is_sha256_hex",
                            ),
                        ],
                    },
                ),
            ],
            database_operations=[],
        ),
    ]
