# IdempotencyKey moved to access (the bottom layer, beside the owned-row base): the table stays as it is,
# only the migration state changes hands (access/migrations/0002_idempotency_keys_from_ledger.py).

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("ledger", "0010_idempotency_keys"),
        # access takes the model over first, so the state always holds the table under one app or both.
        ("access", "0002_idempotency_keys_from_ledger"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[migrations.DeleteModel(name="IdempotencyKey")],
            database_operations=[],
        ),
    ]
