"""Signals the ledger sends; it knows nothing of who listens (reflection does)."""

from django.dispatch import Signal

# Sent on commit after a materialization pass closed trades: deployment_id=int, count=int.
trades_closed = Signal()
