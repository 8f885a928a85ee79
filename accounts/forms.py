"""Login forms through the password-guessing brake (the trader's login page and the admin's)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from django import forms
from django.contrib.admin.forms import AdminAuthenticationForm
from django.contrib.auth.forms import AuthenticationForm

from accounts import services

if TYPE_CHECKING:
    _FormBase = AuthenticationForm
else:
    _FormBase = object  # a mixin: the form class supplies AuthenticationForm


class BrakedLoginMixin(_FormBase):
    """AuthenticationForm.clean with the brake in front: while the username or the client is slowed or
    locked, the password is not checked and the form says how long to wait (`refusal` is set)."""

    refusal = None

    def clean(self):
        username = self.cleaned_data.get("username")
        password = self.cleaned_data.get("password")
        if username is not None and password:
            try:
                self.user_cache = services.password_login(request=self.request, username=username, password=password)
            except services.LoginRefused as refused:
                self.refusal = refused.refusal
                raise forms.ValidationError(refused.refusal.message, code="login_braked") from None
            if self.user_cache is None:
                raise self.get_invalid_login_error()
            self.confirm_login_allowed(self.user_cache)
        return self.cleaned_data


class BrakedAuthenticationForm(BrakedLoginMixin, AuthenticationForm):
    pass


class BrakedAdminAuthenticationForm(BrakedLoginMixin, AdminAuthenticationForm):
    pass
