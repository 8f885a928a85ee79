"""Row-level security (issue 9): every owned table shows the app role one trader's rows, fails
closed without a scope, and refuses writes of another trader's rows; elevations are audited; the
system check catches a role or table that would let queries past; pooled connections carry nothing
from one request to the next."""

from __future__ import annotations

import datetime as dt

import psycopg
import pytest
import requests
from django.conf import settings
from django.db import ProgrammingError, connection, transaction

from access import policies, scope
from access.keys import key_hash
from access.models import Elevation
from access.pool import SCOPE_SETTINGS
from accounts.models import AccountToken
from ledger.models import Deployment, RunnerToken, Skill
from recall import services as recall_services
from recall.models import Document
from tests.dbroles import owner_connection
from tests.factories import DeploymentFactory, UserFactory, account_key
from tests.security.world import make_trader
from tests.workers import database_url_of_test_db

T0 = dt.datetime(2026, 6, 4, 10, 0, tzinfo=dt.UTC)
OWNED_TABLES, _ = policies.classify()


def _tick(minutes: int, size: float) -> dict:
    at = (T0 + dt.timedelta(minutes=minutes)).isoformat()
    positions = [{"symbol": "ETH", "side": "long", "size": size, "mark_price": 3000 + minutes}] if size else []
    return {"tick_at": at, "equity_usd": 10_000, "positions": positions}


def _workload(username: str):
    """One trader's memory, written through the API (each request under that trader's scope): what
    tests/security/world.py makes (skill, deployment, tick, runner token, fact, document, experiment
    with hypotheses), plus a closed trade, a signal, a journal entry and an edit proposal."""
    trader = make_trader(username, hypotheses=2)
    api, base = trader.client, f"/api/v1/deployments/{trader.deployment_id}"

    def post(url, body, statuses=(200, 201)):
        response = api.post(url, body, format="json")
        assert response.status_code in statuses, (url, response.content[:300])
        return response.json()

    for minutes, size in [(5, 0.02), (10, 0)]:
        post(f"{base}/ticks/", _tick(minutes, size))
    assert api.get(f"{base}/trades/").status_code == 200  # reads catch materialization up
    assert api.get(f"{base}/context/").status_code == 200  # recorded: a served context
    signal = {
        "agent_name": "micro",
        "agent_type": "analyst",
        "condition_id": "0xabc",
        "question": "BTC above 100k?",
        "direction": "YES",
        "fair_probability": 0.6,
        "confidence": 0.7,
    }
    post("/api/v1/signals/", signal)
    post("/api/v1/signals/", {**signal, "direction": "NO"})  # an evolution event
    post("/api/v1/recall/journal/", {"deployment_id": trader.deployment_id, "content": "Held.", "run_id": "r1"})
    proposal = {
        "document_id": trader.document_id,
        "proposed_content": "# Strategy\nSell.\n",
        "reason": "r",
        "run_id": "r1",
    }
    post("/api/v1/recall/proposals/", proposal)
    return trader.user


@pytest.fixture
def traders(db):
    alice, bob = _workload("alice"), _workload("bob")
    with scope.elevated("test: a staff playbook"):
        recall_services.document_upsert(
            owner=None, path="playbooks/risk.md", content="# Risk\n\nCut losers.\n", source="playbook"
        )
    return alice, bob


def _count(sql: str, params=()) -> int:
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.fetchone()[0]


def _owner_column(table: policies.OwnedTable) -> str | None:
    return table.condition.split(" = ")[0] if " = " in table.condition and " IN " not in table.condition else None


def _populated(alice, bob) -> list[policies.OwnedTable]:
    tables = []
    for table in OWNED_TABLES:
        column = _owner_column(table)
        if column is None:
            continue
        query = f'SELECT count(*) FROM "{table.table}" WHERE {column} = %s'  # noqa: S608 (our table names)
        if _count(query, [alice.pk]) and _count(query, [bob.pk]):
            tables.append(table)
    return tables


class TestPolicies:
    def test_the_workload_reaches_most_owned_tables(self, traders):
        populated = {table.table for table in _populated(*traders)}
        expected = {"skills", "skill_versions", "deployments", "decision_snapshots", "trade_history"}
        expected |= {"trade_daily_pnl", "runner_tokens", "user_facts", "markets", "agent_signals"}
        expected |= {"signal_evolution_events", "experiments", "hypotheses", "recall_documents", "recall_chunks"}
        expected |= {"recall_journal_entries", "recall_edit_proposals", "served_contexts"}
        assert expected <= populated, sorted(expected - populated)

    def test_every_owned_table_shows_a_trader_only_their_rows(self, traders):
        alice, bob = traders
        for table in _populated(alice, bob):
            column = _owner_column(table)
            mine = _count(f'SELECT count(*) FROM "{table.table}" WHERE {column} = %s', [alice.pk])  # noqa: S608
            with scope.owner_scope(alice):
                # No owner filter: the policy alone decides (a query that forgot .owned_by()).
                seen = _count(f'SELECT count(*) FROM "{table.table}" WHERE {column} IS NOT NULL')  # noqa: S608
                theirs = _count(f'SELECT count(*) FROM "{table.table}" WHERE {column} = %s', [bob.pk])  # noqa: S608
            assert (table.table, seen, theirs) == (table.table, mine, 0)

    def test_without_a_scope_every_owned_table_is_empty_but_for_global_rows(self, traders):
        with scope.entered(scope.NONE):
            counts = {table.table: _count(f'SELECT count(*) FROM "{table.table}"') for table in OWNED_TABLES}  # noqa: S608
            global_rows = {
                table.table: _count(f'SELECT count(*) FROM "{table.table}" WHERE owner_id IS NULL')  # noqa: S608
                for table in OWNED_TABLES
                if table.global_rows
            }
        assert {name: count for name, count in counts.items() if name not in global_rows} == dict.fromkeys(
            set(counts) - set(global_rows), 0
        )
        # the staff playbook: one document, one chunk, and its lexemes (3) and totals in recall_lexeme_stats
        assert global_rows == {"recall_documents": 1, "recall_chunks": 1, "recall_lexeme_stats": 4}
        assert counts["recall_documents"] == 1

    def test_an_orm_query_without_owned_by_returns_the_scoped_traders_rows(self, traders):
        alice, bob = traders
        with scope.owner_scope(bob):
            assert {d.owner_id for d in Deployment.objects.all()} == {bob.pk}
            assert Skill.objects.filter(owner=alice).count() == 0

    def test_writing_another_traders_row_is_refused_or_touches_nothing(self, traders):
        alice, bob = traders
        with scope.owner_scope(alice):
            assert Skill.objects.filter(owner=bob).update(name="hijacked") == 0
            assert Skill.objects.filter(owner=bob).delete()[0] == 0
            with pytest.raises(ProgrammingError, match="row-level security"), transaction.atomic():
                Skill.objects.create(owner=bob, name="planted")
        assert not Skill.objects.filter(name__in=["hijacked", "planted"]).exists()

    def test_global_rows_are_readable_by_every_trader_and_writable_by_none(self, traders):
        alice, _ = traders
        with scope.owner_scope(alice):
            paths = set(Document.objects.values_list("path", flat=True))
            assert "playbooks/risk.md" in paths
            assert Document.objects.filter(owner__isnull=True).update(content="# Edited") == 0
            with pytest.raises(ProgrammingError, match="row-level security"), transaction.atomic():
                Document.objects.create(owner=None, path="playbooks/planted.md", content="x", content_hash="0")
        assert Document.objects.get(path="playbooks/risk.md").content.startswith("# Risk")

    def test_a_runner_token_is_visible_before_its_trader_only_to_its_key(self, traders):
        token = RunnerToken.objects.filter(owner=traders[0]).first()
        with scope.entered(scope.Scope(runner_key=token.key_hash)):
            assert list(RunnerToken.objects.values_list("pk", flat=True)) == [token.pk]
        with scope.entered(scope.Scope(runner_key=key_hash("rt_wrong"))):
            assert not RunnerToken.objects.exists()

    def test_an_account_token_is_visible_before_its_trader_only_to_its_key(self, traders):
        alice, bob = traders
        key = account_key(alice)
        with scope.entered(scope.Scope(runner_key=key_hash(key))):
            assert list(AccountToken.objects.values_list("owner_id", flat=True)) == [alice.pk]
        with scope.entered(scope.Scope(runner_key=key_hash("at_wrong"))):
            assert not AccountToken.objects.exists()
        with scope.owner_scope(bob):
            assert not AccountToken.objects.filter(owner=alice).exists()

    def test_the_keyword_function_answers_only_for_the_transactions_trader(self, traders):
        alice, bob = traders
        sql = "SELECT count(*) FROM recall_keyword_candidates(ARRAY['breakout'], ARRAY[1.0]::float8[], %s, NULL, NULL, 100, 100)"
        with scope.owner_scope(alice):
            mine, theirs = _count(sql, [alice.pk]), _count(sql, [bob.pk])
        with scope.entered(scope.NONE):
            unscoped = _count(sql, [alice.pk])
        assert (mine, theirs, unscoped) == (1, 0, 0)

    def test_a_child_table_follows_its_parents_owner(self, traders):
        child = next(table for table in OWNED_TABLES if table.table == "hypothesis_tests")
        assert "hypotheses" in child.condition and "experiments" in child.condition


class TestElevation:
    def test_it_is_audited_before_anything_is_read(self, db, owner):
        DeploymentFactory(skill_version__skill__owner=owner)
        before = Elevation.objects.count()
        with scope.elevated("test: a cross-trader job", actor="staff1"):
            assert Deployment.objects.count() == 1
        entry = Elevation.objects.order_by("-id").first()
        assert Elevation.objects.count() == before + 1
        assert (entry.reason, entry.actor) == ("test: a cross-trader job", "staff1")

    def test_it_needs_a_reason(self, db):
        with pytest.raises(ValueError, match="reason"):
            scope.elevated("  ").__enter__()

    def test_the_app_role_cannot_rewrite_the_audit_trail(self, db):
        Elevation.objects.create(reason="x", pid=1)
        with pytest.raises(ProgrammingError, match="permission denied"), transaction.atomic():
            Elevation.objects.update(reason="y")

    def test_staff_in_admin_are_elevated_and_audited(self, client, owner, other):
        DeploymentFactory(skill_version__skill__owner=other)
        staff = UserFactory(username="curator", is_staff=True, is_superuser=True)
        client.force_login(staff)
        response = client.get("/admin/ledger/deployment/")
        assert response.status_code == 200
        assert b"1 deployment" in response.content
        entry = Elevation.objects.order_by("-id").first()
        assert (entry.actor, entry.reason) == ("curator", "admin GET /admin/ledger/deployment/")

    def test_a_trader_on_their_pages_is_not_elevated(self, client, owner, other):
        DeploymentFactory(skill_version__skill__owner=other)
        client.force_login(owner)
        before = Elevation.objects.count()
        assert client.get("/").status_code == 200
        assert Elevation.objects.count() == before


class TestSystemCheck:
    def test_it_passes_on_the_migrated_database(self, db):
        assert policies.problems() == []

    def test_it_fails_for_a_table_without_forced_rls_or_policy(self, transactional_db):
        with owner_connection() as owner:
            owner.execute("ALTER TABLE skills NO FORCE ROW LEVEL SECURITY")
            owner.execute("DROP POLICY memory_owner ON trade_history")
            try:
                found = policies.problems()
            finally:
                owner.execute("ALTER TABLE skills FORCE ROW LEVEL SECURITY")
                policies_sql = next(t for t in OWNED_TABLES if t.table == "trade_history").statements()[2]
                owner.execute(policies_sql)
        assert "owned table skills does not force row-level security" in found
        assert "owned table trade_history has no memory_owner policy" in found
        assert policies.problems() == []

    def test_it_fails_for_a_role_that_bypasses_rls_or_owns_a_table(self, transactional_db, settings):
        role = f"rls_probe_{connection.settings_dict['NAME'][-8:]}"
        with owner_connection() as owner:
            owner.execute(f'DROP TABLE IF EXISTS "{role}_t"; DROP ROLE IF EXISTS "{role}"')
            owner.execute(f'CREATE ROLE "{role}" BYPASSRLS; CREATE TABLE "{role}_t" (id int)')
            owner.execute(f'ALTER TABLE "{role}_t" OWNER TO "{role}"')
            try:
                settings.DATABASE_APP_ROLE = role
                found = policies.problems()
            finally:
                owner.execute(f'DROP TABLE "{role}_t"; DROP ROLE "{role}"')
        assert f"the app role {role!r} has BYPASSRLS" in found
        assert f"the app role {role!r} owns table {role}_t" in found

    def test_it_fails_when_the_database_holds_another_seal_key(self, db, settings):
        settings.SECRET_KEY = "a-secret-key-the-last-migrate-did-not-see-" * 2
        found = policies.problems()
        assert found == [
            "the database's scope-seal key is not this process's (SECRET_KEY differs from the last migrate's)"
        ]

    def test_it_fails_when_the_app_role_can_read_the_seal_key(self, transactional_db):
        with owner_connection() as owner:
            owner.execute(f'GRANT SELECT ON access_scope_key TO "{settings.DATABASE_APP_ROLE}"')
            try:
                found = policies.problems()
            finally:
                owner.execute(f'REVOKE SELECT ON access_scope_key FROM "{settings.DATABASE_APP_ROLE}"')  # noqa: S608
        role = settings.DATABASE_APP_ROLE
        assert found == [f"the app role {role!r} has privileges on {policies.SEAL_KEY_TABLE} (the scope seal's key)"]

    def test_the_service_connects_as_a_role_without_privileges(self, db):
        with connection.cursor() as cursor:
            cursor.execute("SELECT rolsuper, rolbypassrls, current_user FROM pg_roles WHERE rolname = current_user")
            assert cursor.fetchone() == (False, False, settings.DATABASE_APP_ROLE)


@pytest.mark.urls("tests.access.urls")
class TestPooledConnections:
    """A threaded server (pooled connections, each request on a connection borrowed and returned):
    traders alternate, one request fails mid-way, and nothing of one reaches the next."""

    def test_traders_alternating_never_see_each_other(self, live_server):
        alice, bob = UserFactory(username="alice"), UserFactory(username="bob")
        mine = {user.username: DeploymentFactory(skill_version__skill__owner=user).pk for user in (alice, bob)}
        sessions = {}
        for user in (alice, bob):
            session = requests.Session()
            session.headers["Authorization"] = f"Token {account_key(user)}"
            sessions[user.username] = session
        url = f"{live_server.url}/api/v1/deployments/"
        unscoped = f"{live_server.url}/test/deployments-unscoped/"
        for round_ in range(6):
            for name, session in sessions.items():
                listed = {row["id"] for row in session.get(url, timeout=10).json()["results"]}
                assert listed == {mine[name]}, (round_, name)
                if round_ % 2:
                    assert session.get(unscoped, params={"fail": 1}, timeout=10).status_code == 500
            # An anonymous request after each round: no trader's rows, whoever used the connection before.
            assert requests.get(unscoped, timeout=10).json() == {"deployments": []}
        pooled = connection.pool
        for _ in range(pooled.get_stats().get("pool_size", 1)):
            with pooled.connection() as raw:
                settings_now = raw.execute(
                    "SELECT " + ", ".join(f"current_setting('{name}', true)" for name in SCOPE_SETTINGS)
                ).fetchone()
                assert all(value in (None, "") for value in settings_now), settings_now


def test_a_worker_connection_without_scope_sees_nothing(transactional_db, owner):
    """A plain session of the app role (what a task that forgot its scope gets)."""
    DeploymentFactory(skill_version__skill__owner=owner)
    with psycopg.connect(database_url_of_test_db()) as raw:
        assert raw.execute("SELECT count(*) FROM deployments").fetchone() == (0,)


class TestTheAppRoleCannotWidenItsScope:
    """Issue 16: as `memory_app` (what an SQL injection on the service's connection gets), no statement
    sequence reaches another trader's rows — not by setting the scope's settings itself, not with a
    seal made for another connection or key, not by shadowing the key table, reading it, switching
    role or calling the keyword function for the other trader."""

    @pytest.fixture
    def world(self, transactional_db):
        alice, bob = UserFactory(username="alice"), UserFactory(username="bob")
        for user in (alice, bob):
            DeploymentFactory(skill_version__skill__owner=user)
            recall_services.document_upsert(
                owner=user, path="notes.md", content="# Notes\n\nbreakouts\n", source="workspace"
            )
        with psycopg.connect(database_url_of_test_db(), autocommit=True) as attacker:
            yield alice, bob, attacker

    @staticmethod
    def _visible(raw) -> set[int]:
        rows = raw.execute("SELECT DISTINCT owner_id FROM skills UNION SELECT owner_id FROM recall_documents")
        return {owner for (owner,) in rows.fetchall() if owner is not None}

    def _attempt(self, raw, statements: list[str], params=None) -> set[int]:
        """Run the statements in one transaction, then what the transaction can see."""
        with raw.transaction(force_rollback=True):
            for statement in statements:
                raw.execute(statement, params)
            return self._visible(raw)

    def test_setting_the_scope_without_this_process_seal_shows_nothing(self, world):
        _, bob, raw = world
        setting = "SELECT set_config('app.{}', %s, {})"
        for local in ("true", "false"):
            assert self._attempt(raw, [setting.format("elevated", local)], ["on"]) == set()
            assert self._attempt(raw, [setting.format("owner_id", local)], [str(bob.pk)]) == set()
            forged = scope.seal(scope.Scope(owner_id=bob.pk), raw.info.backend_pid, key=b"guessed")
            statements = [setting.format("owner_id", local), setting.format("scope_seal", local)]
            with raw.transaction(force_rollback=True):
                raw.execute(statements[0], [str(bob.pk)])
                raw.execute(statements[1], [forged])
                assert self._visible(raw) == set()
            raw.execute("RESET ALL")
        raw.execute("SET app.elevated = 'on'")
        assert self._visible(raw) == set()
        raw.execute("RESET ALL")

    def test_a_seal_made_for_another_connection_is_worthless_here(self, world):
        _, bob, raw = world
        with psycopg.connect(database_url_of_test_db(), autocommit=True) as other:  # bob's request
            bobs = scope.Scope(owner_id=bob.pk)
            seal = scope.seal(bobs, other.info.backend_pid)
            with other.transaction(force_rollback=True):
                scope.apply_to_raw(other, bobs)
                assert self._visible(other) == {bob.pk}
                # What another session of the role can read of it: the statement, not the values.
                texts = [q for (q,) in raw.execute("SELECT query FROM pg_stat_activity WHERE pid <> pg_backend_pid()")]
                assert not any(seal in text or f"'{bob.pk}'" in text for text in texts)
            with raw.transaction(force_rollback=True):
                raw.execute(scope.APPLY_SQL.replace("%s", "'{}'").format(bob.pk, "", "", seal))
                assert self._visible(raw) == set()
            elevated = scope.Scope(elevated=True)
            with raw.transaction(force_rollback=True):
                values = [*elevated.values(), scope.seal(elevated, other.info.backend_pid)]
                raw.execute(scope.APPLY_SQL.replace("%s", "'{}'").format(*values))
                assert self._visible(raw) == set()

    def test_the_key_cannot_be_read_shadowed_or_bypassed(self, world):
        _, bob, raw = world
        for statement in (
            "SELECT * FROM access_scope_key",
            "UPDATE access_scope_key SET inner_pad = ''",
            "CREATE OR REPLACE FUNCTION public.access_scope_sealed() RETURNS boolean LANGUAGE sql AS 'SELECT true'",
            "SET ROLE postgres",
            "SET SESSION AUTHORIZATION postgres",
            "ALTER TABLE skills NO FORCE ROW LEVEL SECURITY",
            "DROP POLICY memory_owner ON skills",
        ):
            with pytest.raises(psycopg.errors.InsufficientPrivilege), raw.transaction():
                raw.execute(statement)
        # A temporary table of the key's name, holding a key the attacker knows: the function names
        # the real one, so a seal under the attacker's key stays unaccepted.
        key = b"k" * 32
        inner, outer = policies.seal_pads(key)
        bobs = scope.Scope(owner_id=bob.pk)
        with raw.transaction(force_rollback=True):
            raw.execute("CREATE TEMP TABLE access_scope_key (id int, inner_pad bytea, outer_pad bytea)")
            raw.execute("INSERT INTO access_scope_key VALUES (1, %s, %s)", [inner, outer])
            values = [*bobs.values(), scope.seal(bobs, raw.info.backend_pid, key=key)]
            raw.execute(scope.APPLY_SQL, values)
            assert self._visible(raw) == set()
            raw.execute("SET LOCAL search_path = pg_temp, public")
            assert self._visible(raw) == set()
        keyword = "SELECT count(*) FROM recall_keyword_candidates(ARRAY['breakout'], ARRAY[1.0]::float8[], %s, NULL, NULL, 100, 100)"
        with raw.transaction(force_rollback=True):
            raw.execute(
                "SELECT set_config('app.owner_id', %s, true), set_config('app.elevated', 'on', true)", [str(bob.pk)]
            )
            assert raw.execute(keyword, [bob.pk]).fetchone() == (0,)

    def test_authentications_tables_give_no_way_around(self, world):
        """Not another trader's rows, but the way to them (issue 16's walk-through): a staff flag set on
        one's own row, another user's password replaced, permissions granted, a session key read."""
        alice, bob, raw = world
        alices = scope.owner_scope_of(alice)
        denied = psycopg.errors.InsufficientPrivilege
        for statement, params in (
            ("UPDATE auth_user SET is_superuser = true, is_staff = true WHERE id = %s", [alice.pk]),
            ("UPDATE auth_user SET is_active = false WHERE id = %s", [alice.pk]),
            (
                "INSERT INTO auth_user (username, password, is_superuser, is_staff, is_active, first_name, "
                "last_name, email, date_joined) VALUES ('mallory', 'x', true, true, true, '', '', '', now())",
                None,
            ),
            (
                "INSERT INTO auth_user_user_permissions (user_id, permission_id) SELECT %s, min(id) FROM auth_permission",
                [alice.pk],
            ),
            ("INSERT INTO auth_user_groups (user_id, group_id) VALUES (%s, 1)", [alice.pk]),
            ("SELECT session_key FROM django_session", None),
        ):
            with pytest.raises(denied), raw.transaction():
                scope.apply_to_raw(raw, alices)
                raw.execute(statement, params)
                pytest.fail(f"not refused: {statement}")
        with raw.transaction(force_rollback=True):
            scope.apply_to_raw(raw, alices)
            taken = raw.execute("UPDATE auth_user SET password = 'known' WHERE id = %s", [bob.pk])
            assert taken.rowcount == 0  # another user's row is not the scope's to write
            assert raw.execute("UPDATE auth_permission SET codename = 'x'").rowcount == 0  # staff-written
            assert raw.execute("DELETE FROM django_content_type").rowcount == 0
            own = raw.execute("UPDATE auth_user SET last_login = now() WHERE id = %s", [alice.pk])
            assert own.rowcount == 1  # a login's own bookkeeping still works
        with raw.transaction(force_rollback=True):
            scope.apply_to_raw(raw, scope.Scope(elevated=True))  # what admin does, audited
            raw.execute("UPDATE auth_user SET is_staff = true WHERE id = %s", [bob.pk])

    def test_this_process_seal_opens_exactly_its_traders_rows(self, world):
        """The control: the same connection, sealed by our code, sees alice's rows and only hers."""
        alice, bob, raw = world
        with raw.transaction(force_rollback=True):
            scope.apply_to_raw(raw, scope.owner_scope_of(alice))
            assert self._visible(raw) == {alice.pk}
            raw.execute("SELECT set_config('app.owner_id', %s, true)", [str(bob.pk)])  # then an injection
            assert self._visible(raw) == set()
        with raw.transaction(force_rollback=True):
            scope.apply_to_raw(raw, scope.Scope(elevated=True))
            assert self._visible(raw) == {alice.pk, bob.pk}
        assert self._visible(raw) == set()  # the seal was the transaction's only
