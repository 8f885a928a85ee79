"""Row-level security: which tables are owned, their policies and grants, and the check.

Installed by `migrate` (post_migrate, as the owner role) on every run, so a new owned table is
covered by the migration that creates it; the system check `access.E00x` fails when the app role
could read past them. This module knows no app: an app's tables are ours when its AppConfig
declares `row_security` (access/row_security.py), and each of them is exactly one of:
- owned: it has `owner` (a user) — rows of the scope's trader; rows with no owner are readable by
  every trader when the app declares the model `global_read`, writable only when elevated;
- a child: no owner, a required foreign key to an owned table — rows whose parent is visible;
- shared: declared `shared` by its app (market data every trader reads; the elevation audit).
Besides, what an app declares: key-lookup policies (`key_lookup`), append-only grants
(`append_only`) and SECURITY DEFINER functions (`functions`). Django's authentication tables
(no app of ours) are protected here by name.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.apps import AppConfig, apps
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.db import DatabaseError, connections, transaction

from access import scope
from access.row_security import DefinerFunction, RowSecurity

POLICY_PREFIX = "memory_"
CURRENT_OWNER = "NULLIF(current_setting('app.owner_id', true), '')::bigint"
ELEVATED = "current_setting('app.elevated', true) = 'on'"
# The settings count only when this process sealed them (access/scope.py). A scalar subquery: the
# seal is checked once per statement (an InitPlan), not once per row.
SEALED = "(SELECT public.access_scope_sealed())"
GLOBAL_READ_POLICY = f"{POLICY_PREFIX}global_read"
# An API key's row is found by its hash before its trader is known: `app.runner_key` holds the hash of
# the key being authenticated, of whichever kind.
KEY_LOOKUP_POLICY = f"{POLICY_PREFIX}runner_key"
KEY_LOOKUP_CLAUSE = f"FOR SELECT USING ({SEALED} AND {{column}} = NULLIF(current_setting('app.runner_key', true), ''))"

# The seal's key, where only the tables' owner can read it: the app role has no privilege on the
# table, and the function reading it names it with its schema under a search_path that puts pg_temp
# last, so a temporary table of the same name cannot stand in for it. HMAC-SHA256 from the built-in
# sha256(), over the padded key halves stored by install().
SEAL_KEY_TABLE = "access_scope_key"
SEAL_KEY_TABLE_SQL = (
    f"CREATE TABLE IF NOT EXISTS public.{SEAL_KEY_TABLE} "
    "(id integer PRIMARY KEY CHECK (id = 1), inner_pad bytea NOT NULL, outer_pad bytea NOT NULL)"
)
SEAL_FUNCTION = f"""
CREATE OR REPLACE FUNCTION public.access_scope_sealed() RETURNS boolean
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    seal text := current_setting('app.scope_seal', true);
    inner_pad bytea;
    outer_pad bytea;
BEGIN
    IF seal IS NULL OR seal = '' THEN
        RETURN false;
    END IF;
    SELECT k.inner_pad, k.outer_pad INTO inner_pad, outer_pad FROM public.{SEAL_KEY_TABLE} k WHERE k.id = 1;
    RETURN coalesce(encode(sha256(outer_pad || sha256(inner_pad || convert_to(
        coalesce(current_setting('app.owner_id', true), '') || '{scope.SEAL_SEPARATOR}'
        || coalesce(current_setting('app.elevated', true), '') || '{scope.SEAL_SEPARATOR}'
        || coalesce(current_setting('app.runner_key', true), '') || '{scope.SEAL_SEPARATOR}'
        || pg_backend_pid()::text, 'UTF8'))), 'hex') = seal, false);
END
$$
"""  # noqa: S608 (our own names)


# Authentication's tables (issue 16): not a trader's rows, yet a way around every trader's wall if the app
# role could write them (make itself staff, give itself permissions, take over a staff account). Row-level
# security is enabled, not forced: the owner (migrate, which creates permissions and content types) is
# not held back; the app role is.
SEALED_ELEVATED = f"{SEALED} AND {ELEVATED}"
# Everyone may read them (a login finds its user before anyone is known; staff's permission checks), but
# only an audited elevation (admin, maintenance) may write them.
STAFF_WRITTEN_TABLES = (
    "auth_group",
    "auth_group_permissions",
    "auth_permission",
    "auth_user_groups",
    "auth_user_user_permissions",
    "django_admin_log",
    "django_content_type",
)
USER_TABLE = "auth_user"
# auth_user: a trader updates their own row (last login, password); who is staff, superuser or active, and
# usernames, change only elevated; users are created (a plain trader) by anyone, as staff only elevated.
USER_POLICIES = [
    "FOR SELECT USING (true)",
    "FOR INSERT WITH CHECK (true)",
    f"FOR UPDATE USING ({SEALED} AND (id = {CURRENT_OWNER} OR {ELEVATED})) "
    f"WITH CHECK ({SEALED} AND (id = {CURRENT_OWNER} OR {ELEVATED}))",
    f"FOR DELETE USING ({SEALED_ELEVATED})",
]
# The guard holds the app role only (`{role}`): the owner's commands (createsuperuser) are not its business.
USER_PRIVILEGES_TRIGGER_FUNCTION = """
CREATE OR REPLACE FUNCTION public.access_user_privileges_guard() RETURNS trigger
LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS $$
BEGIN
    IF current_user <> {role} OR (public.access_scope_sealed() AND current_setting('app.elevated', true) = 'on') THEN
        RETURN NEW;
    END IF;
    IF TG_OP = 'INSERT' THEN
        IF NEW.is_staff OR NEW.is_superuser THEN
            RAISE EXCEPTION 'only an audited elevation may create a staff user'
                USING ERRCODE = 'insufficient_privilege';
        END IF;
    ELSIF NEW.is_staff IS DISTINCT FROM OLD.is_staff OR NEW.is_superuser IS DISTINCT FROM OLD.is_superuser
          OR NEW.is_active IS DISTINCT FROM OLD.is_active OR NEW.username IS DISTINCT FROM OLD.username THEN
        RAISE EXCEPTION 'only an audited elevation may change who is staff, superuser or active, or a username'
            USING ERRCODE = 'insufficient_privilege';
    END IF;
    RETURN NEW;
END
$$
"""
USER_PRIVILEGES_TRIGGER = "memory_user_privileges"
# The database session store is not used (sessions live in Redis): the app role may not touch it.
UNUSED_TABLES = ("django_session",)
# Django's own tables, protected here: no app of ours declares them.
DJANGO_TABLES = frozenset({*STAFF_WRITTEN_TABLES, USER_TABLE, *UNUSED_TABLES})
# A declaration that would not do what it says: fails loudly (migrate, the check).
MISDECLARED = "declared global_read but not owned with a nullable owner, or declared shared but owned"
UNCLASSIFIED = "a table neither owned, child nor shared, or whose app declares no row security (access/row_security.py)"


def seal_pads(key: bytes) -> tuple[bytes, bytes]:
    """HMAC's inner and outer padded keys (RFC 2104, SHA-256's 64-byte block)."""
    block = key.ljust(64, b"\0")
    return bytes(b ^ 0x36 for b in block), bytes(b ^ 0x5C for b in block)


@dataclass(frozen=True)
class OwnedTable:
    table: str
    condition: str  # the row is the scope's
    global_rows: bool = False  # rows with a null owner are everyone's to read

    def statements(self) -> list[str]:
        table = _quote(self.table)
        visible = f"{SEALED} AND (({self.condition}) OR {ELEVATED})"
        sql = [
            f"ALTER TABLE {table} ENABLE ROW LEVEL SECURITY",
            f"ALTER TABLE {table} FORCE ROW LEVEL SECURITY",
            f"CREATE POLICY {POLICY_PREFIX}owner ON {table} USING ({visible}) WITH CHECK ({visible})",
        ]
        if self.global_rows:
            sql.append(f"CREATE POLICY {GLOBAL_READ_POLICY} ON {table} FOR SELECT USING (owner_id IS NULL)")
        return sql


def _quote(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _label(model) -> str:
    return f"{model._meta.app_label}.{model.__name__}"


def declarations() -> list[tuple[AppConfig, RowSecurity]]:
    """The installed apps that declare their row security, with what they declare."""
    declared = [(config, getattr(config, "row_security", None)) for config in apps.get_app_configs()]
    return [(config, security) for config, security in declared if isinstance(security, RowSecurity)]


def _tables(config: AppConfig, model_names: tuple[str, ...]) -> list[str]:
    return [config.get_model(name)._meta.db_table for name in model_names]


def _managed(model) -> bool:
    return model._meta.managed and not model._meta.proxy


def our_models() -> list:
    return [model for config, _ in declarations() for model in config.get_models() if _managed(model)]


def _owner_field(model):
    for field in model._meta.concrete_fields:
        if (
            field.name == "owner"
            and field.is_relation
            and field.related_model is apps.get_model(settings.AUTH_USER_MODEL)
        ):
            return field
    return None


def classify() -> tuple[list[OwnedTable], list[str]]:
    """(the owned and child tables, labels of models that are none of owned/child/shared, or whose
    app declares no row security and that are not Django's authentication tables)."""
    declared = declarations()
    shared = {_label(config.get_model(name)) for config, security in declared for name in security.shared}
    global_read = {_label(config.get_model(name)) for config, security in declared for name in security.global_read}
    ours = {config.label for config, _ in declared}
    owned_models = {model for model in our_models() if _owner_field(model) is not None}
    tables, unclassified, misdeclared = [], [], set(global_read)
    for model in (model for model in apps.get_models() if _managed(model)):
        if model._meta.app_label not in ours:
            if model._meta.db_table not in DJANGO_TABLES:
                unclassified.append(_label(model))
            continue
        field = _owner_field(model)
        if field is not None:
            condition = f"{_quote(field.column)} = {CURRENT_OWNER}"
            global_rows = field.null and _label(model) in global_read
            tables.append(OwnedTable(model._meta.db_table, condition, global_rows=global_rows))
            if global_rows:
                misdeclared.discard(_label(model))
            if _label(model) in shared:
                misdeclared.add(_label(model))
            continue
        if _label(model) in shared:
            continue
        parents = [
            f
            for f in model._meta.concrete_fields
            if f.is_relation and f.many_to_one and not f.null and f.related_model in owned_models
        ]
        if not parents:
            unclassified.append(_label(model))
            continue
        condition = " AND ".join(_parent_visible(f) for f in parents)
        tables.append(OwnedTable(model._meta.db_table, condition))
    if misdeclared:
        raise ImproperlyConfigured(f"{MISDECLARED}: {sorted(misdeclared)}")
    return tables, unclassified


def key_lookup_policies() -> list[tuple[str, str, str]]:
    """(table, policy name, clause) of every declared key lookup."""
    return [
        (
            model._meta.db_table,
            KEY_LOOKUP_POLICY,
            KEY_LOOKUP_CLAUSE.format(column=model._meta.get_field("key_hash").column),  # type: ignore[union-attr]  # a concrete field
        )
        for config, security in declarations()
        for model in (config.get_model(name) for name in security.key_lookup)
    ]


def append_only_tables() -> list[str]:
    return [table for config, security in declarations() for table in _tables(config, security.append_only)]


def definer_functions() -> list[DefinerFunction]:
    return [function for _, security in declarations() for function in security.functions]


def _parent_visible(field) -> str:
    """The row's parent is visible (the parent table's own policy decides)."""
    parent, key = _quote(field.related_model._meta.db_table), _quote(field.target_field.column)
    return f"{_quote(field.column)} IN (SELECT {key} FROM {parent})"  # noqa: S608 (quoted identifiers)


def app_role() -> str:
    return settings.DATABASE_APP_ROLE


def install(using: str = "default") -> None:
    """Grants for the app role, then every owned table's policies, from scratch, in one transaction."""
    tables, unclassified = classify()
    if unclassified:
        raise RuntimeError(f"{UNCLASSIFIED}: {unclassified}")
    role = app_role()
    with transaction.atomic(using=using), connections[using].cursor() as cursor:
        cursor.execute("SELECT current_user")
        owner = cursor.fetchone()[0]
        _lock_tables(cursor)
        if role and role != owner:
            grantee = _quote(role)
            cursor.execute(f"GRANT USAGE ON SCHEMA public TO {grantee}")
            cursor.execute(f"GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO {grantee}")
            cursor.execute(f"GRANT USAGE, SELECT, UPDATE ON ALL SEQUENCES IN SCHEMA public TO {grantee}")
            for table in append_only_tables():
                cursor.execute(f"REVOKE UPDATE, DELETE, TRUNCATE ON {_quote(table)} FROM {grantee}")
            # The migration history is the owner's.
            cursor.execute(f"REVOKE INSERT, UPDATE, DELETE, TRUNCATE ON django_migrations FROM {grantee}")
        cursor.execute(
            "SELECT schemaname, tablename, policyname FROM pg_policies WHERE schemaname = 'public' "
            "AND policyname LIKE %s",
            [POLICY_PREFIX + "%"],
        )
        for schema, table, policy in cursor.fetchall():
            cursor.execute(f"DROP POLICY {_quote(policy)} ON {_quote(schema)}.{_quote(table)}")
        _install_seal(cursor, role if role and role != owner else "")  # the policies call it
        for owned in tables:
            for statement in owned.statements():
                cursor.execute(statement)
        for table, name, clause in key_lookup_policies():
            cursor.execute(f"CREATE POLICY {name} ON {_quote(table)} {clause}")
        _install_authentication_tables(cursor, role if role and role != owner else "")
        for function in definer_functions():
            cursor.execute(function.sql)
            cursor.execute(f"REVOKE ALL ON FUNCTION {function.signature} FROM PUBLIC")
            if role and role != owner:
                cursor.execute(f"GRANT EXECUTE ON FUNCTION {function.signature} TO {_quote(role)}")


def _lock_tables(cursor) -> None:
    """Every table install may alter, locked before it changes anything, in one order (by name).

    The GRANTs below rewrite each table's row of pg_class. A maintenance job (autovacuum, ANALYZE) holding a table
    writes its statistics into that row at its end, and waits for the transaction that changed it: had install
    granted first and then waited for the job's table lock (DROP POLICY), each would wait for the other, a
    deadlock. Waiting here, before it has changed anything, install waits for the job alone (PostgreSQL cancels an
    autovacuum that blocks a lock after deadlock_timeout)."""
    cursor.execute(
        "SELECT quote_ident(c.relname) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
        "WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p') AND c.relowner = current_user::regrole "
        "ORDER BY c.relname"
    )
    tables = [name for (name,) in cursor.fetchall()]
    if tables:
        cursor.execute(f"LOCK TABLE {', '.join(tables)} IN ACCESS EXCLUSIVE MODE")


def _install_seal(cursor, app_role_name: str) -> None:
    """The seal's key (this process's, from SECRET_KEY) and the function the policies call."""
    cursor.execute(SEAL_KEY_TABLE_SQL)
    cursor.execute(f"REVOKE ALL ON {SEAL_KEY_TABLE} FROM PUBLIC")
    if app_role_name:
        cursor.execute(f"REVOKE ALL ON {SEAL_KEY_TABLE} FROM {_quote(app_role_name)}")
    inner, outer = seal_pads(scope.seal_key())
    cursor.execute(
        f"INSERT INTO {SEAL_KEY_TABLE} (id, inner_pad, outer_pad) VALUES (1, %s, %s) "  # noqa: S608 (our table)
        "ON CONFLICT (id) DO UPDATE SET inner_pad = EXCLUDED.inner_pad, outer_pad = EXCLUDED.outer_pad",
        [inner, outer],
    )
    cursor.execute(SEAL_FUNCTION)


def _install_authentication_tables(cursor, app_role_name: str) -> None:
    cursor.execute(
        "SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
        "WHERE n.nspname = 'public' AND c.relname = ANY(%s)",
        [[*STAFF_WRITTEN_TABLES, USER_TABLE, *UNUSED_TABLES]],
    )
    present = {name for (name,) in cursor.fetchall()}  # what the apps migrated so far created
    for table in (name for name in STAFF_WRITTEN_TABLES if name in present):
        cursor.execute(f"ALTER TABLE {_quote(table)} ENABLE ROW LEVEL SECURITY")
        cursor.execute(f"CREATE POLICY {POLICY_PREFIX}read ON {_quote(table)} FOR SELECT USING (true)")
        for command in ("INSERT", "UPDATE", "DELETE"):
            check = "WITH CHECK" if command == "INSERT" else "USING"
            cursor.execute(
                f"CREATE POLICY {POLICY_PREFIX}{command.lower()} ON {_quote(table)} FOR {command} "
                f"{check} ({SEALED_ELEVATED})"
            )
    if USER_TABLE in present:
        cursor.execute(f"ALTER TABLE {USER_TABLE} ENABLE ROW LEVEL SECURITY")
        for n, clause in enumerate(USER_POLICIES):
            cursor.execute(f"CREATE POLICY {POLICY_PREFIX}user_{n} ON {USER_TABLE} {clause}")
        guarded = app_role_name or "memory_app"
        cursor.execute(USER_PRIVILEGES_TRIGGER_FUNCTION.replace("{role}", "'" + guarded.replace("'", "''") + "'"))
        cursor.execute(f"DROP TRIGGER IF EXISTS {USER_PRIVILEGES_TRIGGER} ON {USER_TABLE}")
        cursor.execute(
            f"CREATE TRIGGER {USER_PRIVILEGES_TRIGGER} BEFORE INSERT OR UPDATE ON {USER_TABLE} "
            "FOR EACH ROW EXECUTE FUNCTION public.access_user_privileges_guard()"
        )
    if app_role_name:
        for table in (name for name in UNUSED_TABLES if name in present):
            cursor.execute(f"REVOKE ALL ON {_quote(table)} FROM {_quote(app_role_name)}")


def _declared_problems(cursor, role: str, tables: list[OwnedTable]) -> list[str]:
    """What the apps declared and the database lacks (or grants too widely)."""
    expected = [(owned.table, GLOBAL_READ_POLICY) for owned in tables if owned.global_rows]
    expected += [(table, name) for table, name, _ in key_lookup_policies()]
    cursor.execute(
        "SELECT tablename, policyname FROM pg_policies WHERE schemaname = 'public' AND tablename = ANY(%s)",
        [[table for table, _ in expected]],
    )
    present = set(cursor.fetchall())
    found = [f"table {table} has no {name} policy" for table, name in expected if (table, name) not in present]
    for table in append_only_tables():
        if _role_may(cursor, role, table, "UPDATE, DELETE, TRUNCATE"):
            found.append(f"the app role {role!r} may change or delete rows of the append-only table {table}")
    for function in definer_functions():
        # NULL: not installed (a CASE, so has_function_privilege never sees a missing function).
        cursor.execute(
            "SELECT CASE WHEN to_regprocedure(%s) IS NULL THEN NULL "
            "ELSE has_function_privilege('public', %s, 'EXECUTE') END",
            [function.signature, function.signature],
        )
        public = cursor.fetchone()[0]
        if public is None:
            found.append(f"function {function.signature} is not installed")
        elif public:
            found.append(f"PUBLIC may execute the SECURITY DEFINER function {function.signature}")
    return found


def install_after_migrate(sender, using="default", **kwargs) -> None:
    install(using)


def _role_may(cursor, role: str, table: str, privileges: str) -> bool:
    """Whether `role` holds any of `privileges` on the table (false when the table does not exist)."""
    cursor.execute(
        "SELECT CASE WHEN to_regclass(%s) IS NULL THEN false ELSE has_table_privilege(%s, %s, %s) END",
        [f"public.{table}", role, f"public.{table}", privileges],
    )
    return cursor.fetchone()[0]


def problems(using: str = "default") -> list[str]:
    """What lets the app role past row-level security, in words (empty: nothing)."""
    tables, unclassified = classify()
    found = [f"{label}: {UNCLASSIFIED}" for label in unclassified]
    role = app_role()
    with connections[using].cursor() as cursor:
        cursor.execute("SELECT rolsuper, rolbypassrls FROM pg_roles WHERE rolname = %s", [role])
        row = cursor.fetchone()
        if row is None:
            return [*found, f"the app role {role!r} (DATABASE_URL's user) does not exist"]
        if row[0]:
            found.append(f"the app role {role!r} is a superuser")
        if row[1]:
            found.append(f"the app role {role!r} has BYPASSRLS")
        cursor.execute(
            "SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
            "WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p', 'v', 'm') AND pg_get_userbyid(c.relowner) = %s",
            [role],
        )
        found += [f"the app role {role!r} owns table {name}" for (name,) in cursor.fetchall()]
        cursor.execute(
            "SELECT c.relname, c.relrowsecurity, c.relforcerowsecurity, "
            "EXISTS (SELECT 1 FROM pg_policies p WHERE p.schemaname = 'public' AND p.tablename = c.relname "
            "AND p.policyname = %s) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
            "WHERE n.nspname = 'public' AND c.relname = ANY(%s)",
            [POLICY_PREFIX + "owner", [owned.table for owned in tables]],
        )
        existing = cursor.fetchall()
        for name, enabled, forced, has_policy in existing:
            if not enabled:
                found.append(f"owned table {name} does not have row-level security enabled")
            if not forced:
                found.append(f"owned table {name} does not force row-level security")
            if not has_policy:
                found.append(f"owned table {name} has no {POLICY_PREFIX}owner policy")
        if _role_may(cursor, role, SEAL_KEY_TABLE, "SELECT, INSERT, UPDATE, DELETE, TRUNCATE"):
            found.append(f"the app role {role!r} has privileges on {SEAL_KEY_TABLE} (the scope seal's key)")
        if existing:
            found += _declared_problems(cursor, role, tables)
    # An empty (unmigrated) database has nothing to protect yet; a migrated one must take our seal.
    return [*found, *_seal_problems(using)] if existing else found


# Any scope will do: the check is that the database accepts this process's seal.
_PROBE = scope.Scope(runner_key="system check")


def _seal_problems(using: str) -> list[str]:
    try:
        with scope.entered(_PROBE, using), connections[using].cursor() as cursor:
            cursor.execute("SELECT public.access_scope_sealed()")
            accepted = cursor.fetchone()[0]
    except DatabaseError as error:
        reason = str(error).strip().splitlines()[0]
        return [f"the scope seal cannot be checked ({reason}): the policies are not installed"]
    if not accepted:
        return ["the database's scope-seal key is not this process's (SECRET_KEY differs from the last migrate's)"]
    return []
