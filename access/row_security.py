"""What an app declares of its tables' row-level security, beyond what access derives itself (pure).

An app's AppConfig carries `row_security = RowSecurity(...)`; access/policies.py installs (on every
`migrate`) and checks what the installed apps declare, and knows no app itself. Declaring one, even
empty, is what makes an app's tables ours: each is then owned (it has `owner`), a child (a required
foreign key to an owned table) or declared shared. A table of an app that declares nothing, Django's
authentication tables aside, fails the installer and the system check.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class DefinerFunction:
    """A SECURITY DEFINER function the app's queries call: it runs as the tables' owner, so it must
    apply the transaction's scope itself (see `access_scope_sealed()`). Installed after the policies;
    the app role may execute it, PUBLIC may not."""

    signature: str  # name(argument types), as GRANT and REVOKE name it
    sql: str  # CREATE OR REPLACE FUNCTION …


@dataclass(frozen=True)
class RowSecurity:
    """Model names (of the declaring app) for each extra; an empty declaration is a valid one."""

    # Tables with no trader, read and written by every scope (market data, an audit trail).
    shared: tuple[str, ...] = ()
    # Owned models whose rows with no owner (staff's) every trader may read, and none may write.
    global_read: tuple[str, ...] = ()
    # Models whose row is found by its `key_hash` before its trader is known (`app.runner_key`
    # holds the hash of the key being authenticated): API keys.
    key_lookup: tuple[str, ...] = ()
    # Tables the app role may insert into and read, never change: an audit trail.
    append_only: tuple[str, ...] = ()
    functions: tuple[DefinerFunction, ...] = ()
