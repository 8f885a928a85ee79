"""One manual per deployment scope (seed §5): an exclusion constraint over a trader's TRADING_MANUAL.md
documents, so no deployment reads two (the trader's manual for all deployments, or one per deployment).

A database that already holds manuals breaking the rule is refused, not repaired: which manual is the
trader's is not ours to guess (the newer one may be an agent's, created beside the protected one to get
around it), and deleting a manual loses data. The error lists the documents and the command that keeps
the one the trader picks (`manage.py recall_manuals --keep ID`: the others are renamed, nothing is
deleted); then migrate again."""

import django.contrib.postgres.constraints
import django.contrib.postgres.fields.ranges
from django.conf import settings
from django.db import migrations, models

MANUAL_PATH_REGEX = r"(^|/)trading_manual\.md$"

# Pairs of a trader's manuals that a deployment would read together (row security off: the migrating
# role sees every row, or the statement fails instead of passing over hidden ones).
CONFLICTS = r"""
SELECT u.username, d.id, d.path, d.deployment_id, d.updated_at
FROM recall_documents d JOIN {users} u ON u.id = d.owner_id
WHERE d.path ~* %(manual)s AND EXISTS (
    SELECT 1 FROM recall_documents o
    WHERE o.owner_id = d.owner_id AND o.id <> d.id AND o.path ~* %(manual)s
      AND (o.deployment_id IS NULL OR d.deployment_id IS NULL OR o.deployment_id = d.deployment_id)
)
ORDER BY u.username, d.id
"""

REFUSED = (
    "recall 0003 allows one TRADING_MANUAL.md per deployment scope (seed §5), but a deployment reads two or more of "
    "these manuals:\n{listing}\nNothing was changed. For each trader, pick the manual to keep and run\n"
    "    python manage.py recall_manuals --keep ID\n"
    "(the manuals beside it are renamed TRADING_MANUAL.superseded-<id>.md, content kept, nothing deleted; "
    "`manage.py recall_manuals` lists them again), then migrate again."
)


def refuse_two_manuals_in_one_scope(apps, schema_editor):
    with schema_editor.connection.cursor() as cursor:
        cursor.execute("SET LOCAL row_security = off")
        users = schema_editor.quote_name(apps.get_model(settings.AUTH_USER_MODEL)._meta.db_table)
        cursor.execute(CONFLICTS.format(users=users), {"manual": MANUAL_PATH_REGEX})
        rows = cursor.fetchall()
        cursor.execute("RESET row_security")
    if rows:
        listing = "\n".join(
            f"  {username}: document {pk} {path} ({f'deployment #{deployment}' if deployment else 'all deployments'}, "
            f"updated {updated:%Y-%m-%d %H:%M} UTC)"
            for username, pk, path, deployment, updated in rows
        )
        raise RuntimeError(REFUSED.format(listing=listing))


class Migration(migrations.Migration):
    dependencies = [
        ("ledger", "0012_trade_last_filled_at"),
        ("recall", "0002_lexeme_stats"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.RunPython(refuse_two_manuals_in_one_scope, migrations.RunPython.noop),
        migrations.AddConstraint(
            model_name="document",
            constraint=django.contrib.postgres.constraints.ExclusionConstraint(
                condition=models.Q(("owner__isnull", False), ("path__iregex", MANUAL_PATH_REGEX)),
                expressions=[
                    (
                        models.Func(
                            models.F("owner"),
                            models.F("owner"),
                            models.Value("[]"),
                            function="int8range",
                            output_field=django.contrib.postgres.fields.ranges.BigIntegerRangeField(),
                        ),
                        "&&",
                    ),
                    (
                        models.Func(
                            models.F("deployment"),
                            models.F("deployment"),
                            models.Value("[]"),
                            function="int8range",
                            output_field=django.contrib.postgres.fields.ranges.BigIntegerRangeField(),
                        ),
                        "&&",
                    ),
                ],
                name="recall_one_manual_per_deployment",
            ),
        ),
    ]
