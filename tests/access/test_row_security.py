"""The row-security registry (issue 17): access knows no app; each app declares its extras in its
AppConfig's `row_security`, and what `migrate` installs is exactly what the apps declare."""

from __future__ import annotations

import re
import threading
import time
from pathlib import Path

import pytest
from django.apps import apps
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.db import connection

import access
from access import policies
from access.roles import as_owner
from access.row_security import DefinerFunction, RowSecurity
from tests.dbroles import owner_connection

ACCESS_DIR = Path(access.__file__).parent


def _project_apps() -> list:
    """Our apps other than access: the top-level packages of this repository."""
    return [
        config
        for config in apps.get_app_configs()
        if Path(config.path).parent == Path(settings.BASE_DIR) and config.label != "access"
    ]


def _access_sources() -> dict[Path, str]:
    """access's modules; its migrations are history and may name the apps they depend on."""
    return {
        path: path.read_text()
        for path in sorted(ACCESS_DIR.rglob("*.py"))
        if "migrations" not in path.relative_to(ACCESS_DIR).parts
    }


def test_the_project_apps_are_found():
    labels = {config.label for config in _project_apps()}
    assert {"ledger", "recall", "accounts", "signals", "mcpserver", "agentcontext"} <= labels


def _mention(labels: set[str], tables: set[str]) -> re.Pattern:
    """An app label beginning a module path, a model label or a table / function name (`recall_chunks`),
    or a table's name; a dotted tail such as `django.db.models.signals` is someone else's module."""
    return re.compile(
        r"(?<![\w.])(" + "|".join(sorted(labels)) + r")(?![A-Za-z0-9])"
        r"|(?<![\w.])(" + "|".join(sorted(tables)) + r")(?!\w)"
    )


def test_access_names_no_app_of_ours_nor_their_tables():
    labels = {config.label for config in _project_apps()}
    tables = {
        model._meta.db_table
        for config in _project_apps()
        for model in config.get_models()
        if "_" in model._meta.db_table  # plain words (skills, markets) may be English in a comment
    }
    mention = _mention(labels, tables)
    found = [
        f"{path.relative_to(ACCESS_DIR.parent)}:{number}: {line.strip()}"
        for path, text in _access_sources().items()
        for number, line in enumerate(text.splitlines(), 1)
        if mention.search(line)
    ]
    assert found == []


def test_the_name_check_would_catch_a_mention():
    mention = _mention({"ledger", "recall", "signals"}, {"runner_tokens"})
    for line in ('"recall.Document"', "from ledger.models import X", "recall_keyword_candidates(", "ledger/auth.py"):
        assert mention.search(line), line
    assert mention.search('REVOKE ALL ON "runner_tokens"')
    assert not mention.search("from django.db.models.signals import post_migrate")
    assert not mention.search("the runner_tokens_seq sequence, a recalled value")


def test_every_app_with_tables_declares_its_row_security():
    declared = {config.label for config, _ in policies.declarations()}
    with_tables = {config.label for config in _project_apps() if list(config.get_models())}
    assert with_tables | {"access"} == declared


class TestInstalledIsDeclared:
    def test_the_policies_are_the_declared_ones_and_nothing_else(self, db):
        tables, unclassified = policies.classify()
        assert unclassified == []
        expected = {(owned.table, "memory_owner") for owned in tables}
        expected |= {(owned.table, policies.GLOBAL_READ_POLICY) for owned in tables if owned.global_rows}
        expected |= {(table, name) for table, name, _ in policies.key_lookup_policies()}
        for name in policies.STAFF_WRITTEN_TABLES:
            expected |= {(name, f"memory_{command}") for command in ("read", "insert", "update", "delete")}
        expected |= {(policies.USER_TABLE, f"memory_user_{n}") for n in range(len(policies.USER_POLICIES))}
        with owner_connection() as owner:
            installed = set(owner.execute("SELECT tablename, policyname FROM pg_policies").fetchall())
        assert installed == expected

    def test_the_declarations_are_the_apps_extras(self, db):
        """What each app declares today (the installer's input, named once here, not in access)."""
        tables, _ = policies.classify()
        assert {owned.table for owned in tables if owned.global_rows} == {
            "recall_documents",
            "recall_chunks",
            "recall_lexeme_stats",
        }
        assert {table for table, _, _ in policies.key_lookup_policies()} == {"runner_tokens", "account_tokens"}
        assert policies.append_only_tables() == ["access_elevations"]
        assert [f.signature for f in policies.definer_functions()] == [
            "recall_keyword_candidates(text[], double precision[], bigint, bigint, text[], integer, integer, text, boolean,"
            " integer)"
        ]
        owned = {owned.table for owned in tables}
        assert not {"market_events", "bars", "access_elevations"} & owned  # declared shared

    def test_the_definer_functions_are_the_declared_ones(self, db):
        declared = {function.signature.split("(")[0] for function in policies.definer_functions()}
        role = settings.DATABASE_APP_ROLE
        with owner_connection() as owner:
            rows = owner.execute(
                "SELECT p.proname, has_function_privilege(%s, p.oid, 'EXECUTE'), "
                "has_function_privilege('public', p.oid, 'EXECUTE') FROM pg_proc p "
                "JOIN pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname = 'public' AND p.prosecdef",
                [role],
            ).fetchall()
        assert {name for name, _, _ in rows} == declared | {"access_scope_sealed"}
        assert {(name, by_app, by_public) for name, by_app, by_public in rows if name in declared} == {
            (name, True, False) for name in declared
        }


@pytest.fixture
def declarations(monkeypatch):
    """Change what apps declare for one test; the policies are installed again as declared after it."""
    yield monkeypatch
    monkeypatch.undo()
    with as_owner():
        policies.install()


PROBE_FUNCTION = DefinerFunction(
    "rls_registry_probe(integer)",
    "CREATE OR REPLACE FUNCTION rls_registry_probe(p integer) RETURNS integer "
    "LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$ SELECT p $$",
)


class TestADeclarationChangesWhatIsInstalled:
    def test_a_declared_function_and_append_only_table_are_installed(self, transactional_db, declarations):
        research = apps.get_app_config("research")
        declarations.setattr(research, "row_security", RowSecurity(append_only=("Experiment",)))
        declarations.setattr(
            apps.get_app_config("signals"),
            "row_security",
            RowSecurity(shared=("MemorySettings",), functions=(PROBE_FUNCTION,)),
        )
        role = settings.DATABASE_APP_ROLE
        privileges = (
            "SELECT has_table_privilege(%s, 'experiments', 'UPDATE'), has_table_privilege(%s, 'experiments', 'INSERT')"
        )
        try:
            with as_owner():
                policies.install()
            with owner_connection() as owner:
                assert owner.execute(privileges, [role, role]).fetchone() == (False, True)
                probe = "SELECT has_function_privilege(%s, 'rls_registry_probe(integer)', 'EXECUTE'), "
                probe += "has_function_privilege('public', 'rls_registry_probe(integer)', 'EXECUTE')"
                assert owner.execute(probe, [role]).fetchone() == (True, False)
            assert policies.problems() == []
            with owner_connection() as owner:  # what the check sees of a grant gone wrong
                owner.execute(f'GRANT UPDATE ON experiments TO "{role}"')
                owner.execute("GRANT EXECUTE ON FUNCTION rls_registry_probe(integer) TO PUBLIC")
            assert policies.problems() == [
                f"the app role {role!r} may change or delete rows of the append-only table experiments",
                "PUBLIC may execute the SECURITY DEFINER function rls_registry_probe(integer)",
            ]
        finally:
            with owner_connection() as owner:
                owner.execute("DROP FUNCTION IF EXISTS rls_registry_probe(integer)")
        declarations.undo()
        with as_owner():
            policies.install()
        with owner_connection() as owner:
            assert owner.execute(privileges, [role, role]).fetchone() == (True, True)

    def test_an_undeclared_key_lookup_is_not_installed(self, transactional_db, declarations):
        declarations.setattr(apps.get_app_config("ledger"), "row_security", RowSecurity())
        with as_owner():
            policies.install()
        with owner_connection() as owner:
            rows = owner.execute("SELECT tablename FROM pg_policies WHERE policyname = 'memory_runner_key'")
            assert [table for (table,) in rows.fetchall()] == ["account_tokens"]

    def test_a_missing_declared_policy_or_function_fails_the_check(self, transactional_db, declarations):
        with owner_connection() as owner:
            owner.execute("DROP POLICY memory_runner_key ON account_tokens")
            owner.execute("DROP POLICY memory_global_read ON recall_chunks")
        declarations.setattr(
            apps.get_app_config("signals"),
            "row_security",
            RowSecurity(shared=("MemorySettings",), functions=(PROBE_FUNCTION,)),
        )
        assert policies.problems() == [
            "table recall_chunks has no memory_global_read policy",
            "table account_tokens has no memory_runner_key policy",
            "function rls_registry_probe(integer) is not installed",
        ]


def test_install_takes_its_table_locks_before_it_changes_the_catalogue(transactional_db):
    """A maintenance job that holds a table (autovacuum, here an ANALYZE in a transaction) and then writes the
    table's statistics into pg_class waits for any transaction that changed that pg_class row, as install's GRANT
    does. Had install taken its table locks after the GRANT, the two would wait for each other (a deadlock, as
    after a transactional test's flush once). It takes them first, while it has changed nothing: it waits for the
    job, which finishes, and both succeed."""
    waiting_for = "SELECT count(*) FROM pg_locks WHERE NOT granted AND relation = 'skills'::regclass"
    failures: list[BaseException] = []
    holding, done = threading.Event(), threading.Event()

    def maintenance():
        try:
            with owner_connection() as job, owner_connection() as watcher, job.transaction():
                job.execute("LOCK TABLE skills IN SHARE UPDATE EXCLUSIVE MODE")  # ANALYZE's own lock
                holding.set()
                deadline = time.monotonic() + 10
                while not watcher.execute(waiting_for).fetchone()[0]:  # install waits for the table
                    assert time.monotonic() < deadline, "install never waited for the table"
                    time.sleep(0.01)
                job.execute("ANALYZE skills")  # writes skills' row of pg_class
        except BaseException as error:  # handed to the test's thread
            failures.append(error)
        finally:
            holding.set()
            done.set()

    job = threading.Thread(target=maintenance)
    job.start()
    try:
        assert holding.wait(10)
        with as_owner():
            policies.install()
    finally:
        assert done.wait(30)
        job.join()
        connection.close()
    assert failures == []
    assert policies.problems() == []


class TestAnAppThatDeclaresNothing:
    def test_its_tables_are_unclassified_and_migrate_refuses(self, db, monkeypatch):
        monkeypatch.setattr(apps.get_app_config("signals"), "row_security", None)
        _, unclassified = policies.classify()
        assert "signals.AgentSignal" in unclassified
        assert f"signals.AgentSignal: {policies.UNCLASSIFIED}" in policies.problems()
        with pytest.raises(RuntimeError, match="declares no row security"):
            policies.install()

    def test_a_declared_model_that_does_not_exist_fails_loudly(self, db, monkeypatch):
        monkeypatch.setattr(apps.get_app_config("recall"), "row_security", RowSecurity(global_read=("Nothing",)))
        with pytest.raises(LookupError):
            policies.classify()

    def test_a_declaration_that_would_not_hold_fails_loudly(self, db, monkeypatch):
        signals = apps.get_app_config("signals")
        for wrong in (RowSecurity(global_read=("AgentSignal",)), RowSecurity(shared=("Market",))):
            monkeypatch.setattr(signals, "row_security", wrong)  # owner not nullable; owned, not shared
            with pytest.raises(ImproperlyConfigured, match="declared global_read but not owned"):
                policies.classify()
