#!/bin/sh
# The service's database role (docker-compose.yml, first start of an empty volume): it logs in,
# owns nothing, is no superuser and cannot bypass row-level security. `migrate` (as the owner,
# DATABASE_MIGRATE_URL) grants it the tables and installs the policies.
set -eu
psql -v ON_ERROR_STOP=1 --username "$POSTGRES_USER" --dbname "$POSTGRES_DB" -v password="$APP_DB_PASSWORD" <<'SQL'
CREATE ROLE memory_app LOGIN NOSUPERUSER NOBYPASSRLS NOCREATEDB NOCREATEROLE NOREPLICATION PASSWORD :'password';
SQL
