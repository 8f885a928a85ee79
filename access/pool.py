"""What a pooled connection must not carry from one borrower to the next (no Django imports:
settings import this)."""

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from psycopg import Connection

# The transaction-local settings row-level security reads (access/scope.py sets them).
SCOPE_SETTINGS = ("app.owner_id", "app.elevated", "app.runner_key", "app.scope_seal")


def reset_scope(connection: "Connection[Any]") -> None:
    """psycopg_pool's `reset` hook, run when a connection goes back to the pool."""
    connection.execute("; ".join(f"RESET {name}" for name in SCOPE_SETTINGS))
