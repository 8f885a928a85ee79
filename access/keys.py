"""API keys are stored as their sha256 only (pure: stdlib)."""

import hashlib
import secrets
from dataclasses import dataclass

KEY_PREFIX_SHOWN = 8  # a key's first characters kept in clear, to tell tokens apart


@dataclass(frozen=True)
class NewKey:
    key: str  # shown once, never stored
    shown_prefix: str
    hash: str


def new_key(prefix: str) -> NewKey:
    """A new random key starting with `prefix` (`rt_`, `at_`), with what its row stores."""
    key = prefix + secrets.token_urlsafe(32)
    return NewKey(key=key, shown_prefix=key[:KEY_PREFIX_SHOWN], hash=key_hash(key))


def key_hash(key: str) -> str:
    """What a token's row stores instead of its key (runner and account tokens alike)."""
    return hashlib.sha256(key.encode()).hexdigest()
