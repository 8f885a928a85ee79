from django.apps import AppConfig

from access.row_security import RowSecurity


class LedgerConfig(AppConfig):
    name = "ledger"
    verbose_name = "Ledger: skills, deployments, snapshots"
    # Runner tokens are found by their key's hash before their trader is known (access/row_security.py).
    row_security = RowSecurity(key_lookup=("RunnerToken",))
