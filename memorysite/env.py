"""Small, loud readers for environment variables and service URLs.

Every helper raises ImproperlyConfigured naming the variable and the rule when a value is
malformed; nothing silently falls back to a default once a variable is set.
"""

from __future__ import annotations

import os
import secrets
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import overload
from urllib.parse import parse_qsl, unquote, urlencode, urlsplit

from django.core.exceptions import ImproperlyConfigured

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off"}


@overload
def env_str(name: str, default: str, environ: Mapping[str, str] = ...) -> str: ...
@overload
def env_str(name: str, default: None = None, environ: Mapping[str, str] = ...) -> str | None: ...


def env_str(name: str, default: str | None = None, environ: Mapping[str, str] = os.environ) -> str | None:
    value = environ.get(name)
    if value is None or value.strip() == "":
        return default
    return value.strip()


def env_bool(name: str, default: bool, environ: Mapping[str, str] = os.environ) -> bool:
    value = env_str(name, None, environ)
    if value is None:
        return default
    lowered = value.lower()
    if lowered in _TRUE:
        return True
    if lowered in _FALSE:
        return False
    raise ImproperlyConfigured(f"{name}={value!r}: must be one of true/false/1/0/yes/no/on/off")


def env_choice(name: str, choices: tuple[str, ...], default: str, environ: Mapping[str, str] = os.environ) -> str:
    value = env_str(name, None, environ)
    if value is None:
        return default
    if value not in choices:
        raise ImproperlyConfigured(f"{name}={value!r}: must be one of {', '.join(choices)}")
    return value


def env_int(name: str, default: int, *, minimum: int = 0, environ: Mapping[str, str] = os.environ) -> int:
    value = env_str(name, None, environ)
    if value is None:
        return default
    if not value.isdigit() or int(value) < minimum:
        raise ImproperlyConfigured(f"{name}={value!r}: must be a whole number of at least {minimum}")
    return int(value)


def env_list(name: str, default: list[str], environ: Mapping[str, str] = os.environ) -> list[str]:
    value = env_str(name, None, environ)
    if value is None:
        return list(default)
    items = [item.strip() for item in value.split(",")]
    if any(not item for item in items):
        raise ImproperlyConfigured(f"{name}={value!r}: must be a comma-separated list with no empty items")
    return items


def parse_database_url(url: str, *, name: str = "DATABASE_URL") -> dict:
    """Turn postgres://user:pass@host:port/db?opt=v into a Django DATABASES entry.

    A Unix-socket directory may be given as the host (percent-encoded) or as ?host=/path.
    """
    parts = urlsplit(url)
    if parts.scheme not in {"postgres", "postgresql"}:
        raise ImproperlyConfigured(f"{name}: scheme must be postgres:// or postgresql://, got {parts.scheme!r}")
    db_name = unquote(parts.path.lstrip("/"))
    if not db_name or "/" in db_name:
        raise ImproperlyConfigured(f"{name}: must name exactly one database in its path, e.g. postgres://host/memory")
    try:
        port = parts.port
    except ValueError as exc:
        raise ImproperlyConfigured(f"{name}: port must be a number between 0 and 65535") from exc
    options = dict(parse_qsl(parts.query, keep_blank_values=False, strict_parsing=False))
    host = options.pop("host", None) or unquote(parts.hostname or "")
    return {
        "ENGINE": "django.db.backends.postgresql",
        "NAME": db_name,
        "USER": unquote(parts.username or ""),
        "PASSWORD": unquote(parts.password or ""),
        "HOST": host,
        "PORT": str(port or ""),
        "OPTIONS": options,
    }


def validate_redis_url(url: str, *, name: str = "REDIS_URL") -> str:
    parts = urlsplit(url)
    if parts.scheme not in {"redis", "rediss", "unix"}:
        raise ImproperlyConfigured(f"{name}: scheme must be redis://, rediss:// or unix://, got {parts.scheme!r}")
    if parts.scheme == "unix" and not parts.path:
        raise ImproperlyConfigured(f"{name}: unix:// URLs need a socket path, e.g. unix:///run/redis.sock?db=0")
    db = _redis_db(parts)
    if not db.isdigit():
        raise ImproperlyConfigured(f"{name}: database index must be a non-negative integer, got {db!r}")
    return url


def _redis_db(parts) -> str:
    if parts.scheme == "unix":
        return dict(parse_qsl(parts.query)).get("db", "0")
    return parts.path.lstrip("/") or "0"


def redis_url_with_db(url: str, db: int) -> str:
    """The same server with another logical database (used to keep test traffic apart)."""
    parts = urlsplit(url)
    if parts.scheme == "unix":
        query = dict(parse_qsl(parts.query))
        query["db"] = str(db)
        return f"unix://{parts.path}?{urlencode(query)}"
    return parts._replace(path=f"/{db}").geturl()


def development_secret_key(data_dir: Path, fallback: str) -> str:
    """SECRET_KEY for DEBUG=true without one: random, made once per data directory (`.data/secret-key`,
    mode 0600), so no two checkouts share it and nobody can compute this one's row-security seal. A
    data directory that cannot be written gives `fallback`."""
    path = data_dir / "secret-key"
    if not path.exists():
        try:
            data_dir.mkdir(parents=True, exist_ok=True)
            descriptor, written = tempfile.mkstemp(dir=data_dir, prefix=".secret-key-")  # mode 0600
            with os.fdopen(descriptor, "w") as handle:
                handle.write(secrets.token_urlsafe(64))
            try:
                os.link(written, path)  # whole or not at all: of processes starting together, one key wins
            except FileExistsError:
                pass
            finally:
                os.unlink(written)
        except OSError:
            return fallback
    try:
        return path.read_text().strip() or fallback
    except OSError:
        return fallback


def redis_caches(redis_url: str) -> dict:
    """CACHES: Django's Redis cache on REDIS_URL (where the sessions live), its keys under `cache:`."""
    return {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": redis_url,
            "KEY_PREFIX": "cache",
            "OPTIONS": {"socket_timeout": 2, "socket_connect_timeout": 2},
        }
    }


def celery_broker_url(redis_url: str) -> str:
    """Kombu and Celery spell a Unix-socket Redis as redis+socket:///path?virtual_host=N."""
    parts = urlsplit(redis_url)
    if parts.scheme != "unix":
        return redis_url
    db = _redis_db(parts)
    return f"redis+socket://{parts.path}?virtual_host={db}"
