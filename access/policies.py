"""Row-level security: which tables are owned, their policies and grants, and the check.

Installed by `migrate` (post_migrate, as the owner role) on every run, so a new owned table is
covered by the migration that creates it; the system check `access.E00x` fails when the app role
could read past them. Every table of our apps is exactly one of:
- owned: it has `owner` (a user) — rows of the scope's trader; rows with no owner (staff
  playbooks in recall) are readable by every trader, writable only when elevated;
- a child: no owner, a required foreign key to an owned table — rows whose parent is visible;
- shared: listed in SHARED_MODELS (market data every trader reads; the elevation audit).
"""

from __future__ import annotations

from dataclasses import dataclass

from django.apps import apps
from django.conf import settings
from django.db import DatabaseError, connections, transaction

from access import scope

OUR_APPS = ("accounts", "ledger", "reflection", "chatmemory", "signals", "research", "recall", "access")
# Tables with no trader: market data and the append-only audit of elevations.
SHARED_MODELS = frozenset({"chatmemory.MarketEvent", "chatmemory.Bar", "access.Elevation"})
# Owned tables whose rows without an owner (staff playbooks and runbooks) every trader may read.
GLOBAL_READABLE = frozenset({"recall.Document", "recall.Chunk"})
POLICY_PREFIX = "memory_"
CURRENT_OWNER = "NULLIF(current_setting('app.owner_id', true), '')::bigint"
ELEVATED = "current_setting('app.elevated', true) = 'on'"
# The settings count only when this process sealed them (access/scope.py). A scalar subquery: the
# seal is checked once per statement (an InitPlan), not once per row.
SEALED = "(SELECT public.access_scope_sealed())"
# A runner or account token is found by its key's hash before its trader is known (ledger/auth.py,
# accounts/auth.py): `app.runner_key` holds the hash of the key being authenticated, of either kind.
KEY_LOOKUP_POLICIES = [
    (
        table,
        "memory_runner_key",
        f"FOR SELECT USING ({SEALED} AND key_hash = NULLIF(current_setting('app.runner_key', true), ''))",
    )
    for table in ("runner_tokens", "account_tokens")
]

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


def seal_pads(key: bytes) -> tuple[bytes, bytes]:
    """HMAC's inner and outer padded keys (RFC 2104, SHA-256's 64-byte block)."""
    block = key.ljust(64, b"\0")
    return bytes(b ^ 0x36 for b in block), bytes(b ^ 0x5C for b in block)


# Recall's keyword side over the GIN index. Row-level security keeps a non-LEAKPROOF operator such as
# `@@` out of index conditions, so under it a large trader's keyword search tests every row. This
# function runs as the tables' owner (who bypasses RLS when a superuser or BYPASSRLS; otherwise the
# policies still apply and it is merely no faster), and applies the trader's scope itself: it answers
# for `p_owner` only when that is the transaction's sealed trader (or the transaction is elevated).
KEYWORD_FUNCTION = """
CREATE OR REPLACE FUNCTION recall_keyword_matches(
    p_query tsquery, p_owner bigint, p_deployment bigint, p_sources text[], p_cap integer
) RETURNS TABLE(id bigint, rank real)
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
    SELECT m.id, ts_rank(m.search_vector, p_query) FROM (
        SELECT c.id, c.search_vector FROM public.recall_chunks c
        WHERE c.search_vector @@ p_query
          AND (
              p_owner IS NULL
              OR (public.access_scope_sealed() AND (
                  p_owner = NULLIF(current_setting('app.owner_id', true), '')::bigint
                  OR current_setting('app.elevated', true) = 'on'
              ))
          )
          AND (
              (c.owner_id = p_owner AND (p_deployment IS NULL OR c.deployment_id IS NULL
                                         OR c.deployment_id = p_deployment))
              OR c.owner_id IS NULL
          )
          AND (p_sources IS NULL OR c.source = ANY(p_sources))
        LIMIT p_cap
    ) AS m
$$
"""
KEYWORD_FUNCTION_SIGNATURE = "recall_keyword_matches(tsquery, bigint, bigint, text[], integer)"


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
            sql.append(f"CREATE POLICY {POLICY_PREFIX}global_read ON {table} FOR SELECT USING (owner_id IS NULL)")
        return sql


def _quote(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _label(model) -> str:
    return f"{model._meta.app_label}.{model.__name__}"


def our_models() -> list:
    return [
        model
        for model in apps.get_models()
        if model._meta.app_label in OUR_APPS and model._meta.managed and not model._meta.proxy
    ]


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
    """(the owned and child tables, labels of models that are none of owned/child/shared)."""
    owned_models = {model for model in our_models() if _owner_field(model) is not None}
    tables, unclassified = [], []
    for model in our_models():
        field = _owner_field(model)
        if field is not None:
            condition = f"{_quote(field.column)} = {CURRENT_OWNER}"
            global_rows = field.null and _label(model) in GLOBAL_READABLE
            tables.append(OwnedTable(model._meta.db_table, condition, global_rows=global_rows))
            continue
        if _label(model) in SHARED_MODELS:
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
    return tables, unclassified


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
        raise RuntimeError(f"tables neither owned, child nor shared (see access/policies.py): {unclassified}")
    role = app_role()
    with transaction.atomic(using=using), connections[using].cursor() as cursor:
        cursor.execute("SELECT current_user")
        owner = cursor.fetchone()[0]
        if role and role != owner:
            grantee = _quote(role)
            cursor.execute(f"GRANT USAGE ON SCHEMA public TO {grantee}")
            cursor.execute(f"GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO {grantee}")
            cursor.execute(f"GRANT USAGE, SELECT, UPDATE ON ALL SEQUENCES IN SCHEMA public TO {grantee}")
            # The audit trail is append-only; the migration history is the owner's.
            cursor.execute(f"REVOKE UPDATE, DELETE, TRUNCATE ON access_elevations FROM {grantee}")
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
        for table, name, clause in KEY_LOOKUP_POLICIES:
            cursor.execute(f"CREATE POLICY {name} ON {_quote(table)} {clause}")
        _install_authentication_tables(cursor, role if role and role != owner else "")
        cursor.execute(KEYWORD_FUNCTION)
        cursor.execute(f"REVOKE ALL ON FUNCTION {KEYWORD_FUNCTION_SIGNATURE} FROM PUBLIC")
        if role and role != owner:
            cursor.execute(f"GRANT EXECUTE ON FUNCTION {KEYWORD_FUNCTION_SIGNATURE} TO {_quote(role)}")


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


def install_after_migrate(sender, using="default", **kwargs) -> None:
    install(using)


def problems(using: str = "default") -> list[str]:
    """What lets the app role past row-level security, in words (empty: nothing)."""
    tables, unclassified = classify()
    found = [f"{label}: a table of ours that is neither owned, child nor shared" for label in unclassified]
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
        cursor.execute(
            "SELECT CASE WHEN to_regclass(%s) IS NULL THEN false "
            "ELSE has_table_privilege(%s, %s, 'SELECT, INSERT, UPDATE, DELETE, TRUNCATE') END",
            [f"public.{SEAL_KEY_TABLE}", role, f"public.{SEAL_KEY_TABLE}"],
        )
        if cursor.fetchone()[0]:
            found.append(f"the app role {role!r} has privileges on {SEAL_KEY_TABLE} (the scope seal's key)")
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
