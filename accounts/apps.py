from django.apps import AppConfig

from access.row_security import RowSecurity


class AccountsConfig(AppConfig):
    name = "accounts"
    verbose_name = "Accounts: API tokens and the password-guessing brake"
    # Account tokens are found by their key's hash before their trader is known (access/row_security.py).
    row_security = RowSecurity(key_lookup=("AccountToken",))
