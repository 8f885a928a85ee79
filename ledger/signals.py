"""Signals the ledger sends; it knows nothing of who listens (reflection does)."""

from django.dispatch import Signal

# Sent on commit after a materialization batch closed trades: deployment_id=int, count=int (trades
# closed by the batch), through=datetime (the batch's last tick: what it materialized up to).
trades_closed = Signal()

# Sent on commit after a materialization batch opened trades: deployment_id=int, count=int.
trades_opened = Signal()
