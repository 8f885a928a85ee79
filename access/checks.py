"""`manage.py check --database default`: fails when the service's role could read past RLS."""

from django.core.checks import Error, Tags, register

# Set while `migrate` runs: it is what installs the policies, so it must not be refused for lacking them.
MIGRATING = {"active": False}


@register(Tags.database)
def row_level_security(app_configs=None, databases=None, **kwargs):
    if not databases or "default" not in databases or MIGRATING["active"]:
        return []
    from access.policies import problems

    return [
        Error(problem, hint="Run `manage.py migrate` (as the owner role, DATABASE_MIGRATE_URL).", id="access.E001")
        for problem in problems("default")
    ]
