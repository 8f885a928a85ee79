"""Signals the ledger sends; it knows nothing of who listens (reflection, recall)."""

from django.dispatch import Signal

# Sent on commit after a materialization batch closed trades: deployment_id=int, count=int (trades
# closed by the batch), through=datetime (the batch's last tick: what it materialized up to).
trades_closed = Signal()

# Sent inside a materialization batch's transaction, after its trade rows are written and before it commits:
# deployment=Deployment, opened=[(TradeHistory, OpenTrade, Tick)] (each trade the batch opened, its state at
# open and the tick that opened it, in tick order), closed=[TradeHistory] (each trade it closed). A receiver
# writes in the batch's transaction, so what it writes exists exactly when the trades do (a redelivered batch
# finds the cursor moved and sends nothing); an error it raises rolls the batch back.
trades_materialized = Signal()

# Sent by a simulation that lets memory keep up tick by tick (`manage.py simulate --reflect`), right
# after it materialized the tick at `through` and before it posts the next: deployment_id=int,
# through=datetime. Listeners catch up synchronously (reflection runs now when due).
keep_up = Signal()
