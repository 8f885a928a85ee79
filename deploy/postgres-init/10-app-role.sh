#!/bin/sh
# The service's database role (docker-compose.yml, first start of an empty volume): it logs in,
# owns nothing, is no superuser and cannot bypass row-level security. `migrate` (as the owner,
# DATABASE_MIGRATE_URL) grants it the tables and installs the policies. Its limits bound any session
# as the role (the service's own connections set DATABASE_*_TIMEOUT_MS themselves): no statement runs
# longer than statement_timeout, no transaction sits idle longer than idle_in_transaction_session_timeout.
set -eu
psql -v ON_ERROR_STOP=1 --username "$POSTGRES_USER" --dbname "$POSTGRES_DB" -v password="$APP_DB_PASSWORD" \
  -v statement_timeout="${DATABASE_STATEMENT_TIMEOUT_MS:-30000}" \
  -v idle_timeout="${DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS:-120000}" <<'SQL'
CREATE ROLE memory_app LOGIN NOSUPERUSER NOBYPASSRLS NOCREATEDB NOCREATEROLE NOREPLICATION PASSWORD :'password';
ALTER ROLE memory_app SET statement_timeout = :'statement_timeout';
ALTER ROLE memory_app SET idle_in_transaction_session_timeout = :'idle_timeout';
SQL
