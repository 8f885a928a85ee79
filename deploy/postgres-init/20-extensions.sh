#!/bin/sh
# pg_stat_statements' view in the service's database (the library is preloaded by docker-compose.yml's command):
# the benchmarks and an operator read where the time goes from it. pgvector's extension is created by `migrate`.
set -eu
psql -v ON_ERROR_STOP=1 --username "$POSTGRES_USER" --dbname "$POSTGRES_DB" <<'SQL'
CREATE EXTENSION IF NOT EXISTS pg_stat_statements;
SQL
