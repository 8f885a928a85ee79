"""DRF's `authtoken_token` keys keep working: each is hashed into account_tokens, then the table is dropped.

The old table stored keys in clear (40 hex characters, one per user); the new one stores only their
sha256, so a leaked database no longer hands out working keys. A fresh database has no such table."""

from django.db import migrations

LEGACY_NAME = "API token from before named tokens"

COPY = """
INSERT INTO account_tokens (owner_id, name, key_prefix, key_hash, created_at)
SELECT user_id, %s, left(key, 8), encode(sha256(convert_to(key, 'UTF8')), 'hex'), created
FROM authtoken_token
ON CONFLICT (key_hash) DO NOTHING
"""


def hash_drf_tokens(apps, schema_editor):
    with schema_editor.connection.cursor() as cursor:
        cursor.execute("SELECT to_regclass('authtoken_token') IS NOT NULL")
        if not cursor.fetchone()[0]:
            return
        cursor.execute(COPY, [LEGACY_NAME])
        cursor.execute("DROP TABLE authtoken_token")


class Migration(migrations.Migration):
    dependencies = [("accounts", "0001_initial")]

    operations = [migrations.RunPython(hash_drf_tokens, migrations.RunPython.noop)]
