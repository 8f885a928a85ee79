"""Signals the ledger sends; it knows nothing of who listens (reflection does)."""

from django.dispatch import Signal

# Sent on commit after a materialization batch closed trades: deployment_id=int, count=int (trades
# closed by the batch), through=datetime (the batch's last tick: what it materialized up to).
trades_closed = Signal()

# Sent on commit after a materialization batch opened trades: deployment_id=int, count=int.
trades_opened = Signal()

# Sent by a simulation that lets memory keep up tick by tick (`manage.py simulate --reflect`), right
# after it materialized the tick at `through` and before it posts the next: deployment_id=int,
# through=datetime. Listeners catch up synchronously (reflection runs now when due).
keep_up = Signal()
