"""API keys are stored as their sha256 only (pure: stdlib)."""

import hashlib


def key_hash(key: str) -> str:
    """What a token's row stores instead of its key (runner and account tokens alike)."""
    return hashlib.sha256(key.encode()).hexdigest()
