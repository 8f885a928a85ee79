"""Trader pages of accounts: login (through the brake), password change, API tokens."""

from __future__ import annotations

import datetime as dt

from django.contrib import messages
from django.contrib.auth import views as auth_views
from django.core.exceptions import ValidationError
from django.shortcuts import redirect, render
from django.urls import reverse, reverse_lazy
from django.utils import timezone
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods, require_POST

from accounts import selectors, services
from accounts.forms import BrakedAuthenticationForm
from memorysite.numbers import format_count
from memorysite.pages import (
    bad_request,
    new_key_shown_once,
    new_key_then_redirect,
    rules_broken,
    trader_required,
)

EXPIRES_AT_FORMAT = "must be a date and time, e.g. 2026-12-31T18:00 (UTC)"
CHANGED_NOTICE = "Password changed."
TOKENS_REVOKED = "Password changed. {tokens} revoked: create new ones below for your scripts."


class LoginView(auth_views.LoginView):
    template_name = "accounts/login.html"
    form_class = BrakedAuthenticationForm
    redirect_authenticated_user = True

    def form_invalid(self, form):
        response = super().form_invalid(form)
        if form.refusal is not None:  # slowed or locked: say so in the status too
            response.status_code = 429
            response["Retry-After"] = str(form.refusal.wait_seconds)
        return response


LOGGED_OUT = "You are logged out."


class LogoutView(auth_views.LogoutView):
    """Django's logout (POST only), and the login page it lands on says so."""

    def post(self, request, *args, **kwargs):
        response = super().post(request, *args, **kwargs)  # flushes the session: the notice goes after
        messages.info(request, LOGGED_OUT)
        return response


class PasswordChangeView(auth_views.PasswordChangeView):
    """Django's password change; every account token of the trader is revoked with the old password
    (runner tokens are the deployments' keys and stay)."""

    template_name = "accounts/password_change.html"
    success_url = reverse_lazy("account-tokens")

    def form_valid(self, form):
        response = super().form_valid(form)
        count = services.account_tokens_revoke_all(owner=self.request.user, now=timezone.now())
        revoked = format_count(count, "account token was", "account tokens were")
        messages.success(self.request, TOKENS_REVOKED.format(tokens=revoked) if count else CHANGED_NOTICE)
        return response


def _expires_at(raw: str) -> dt.datetime | None:
    """The page's `datetime-local` value, read as UTC; blank: no expiry."""
    if not raw.strip():
        return None
    try:
        parsed = dt.datetime.fromisoformat(raw.strip())
    except ValueError:
        raise ValidationError({"expires_at": [EXPIRES_AT_FORMAT]}) from None
    return parsed.replace(tzinfo=dt.UTC) if parsed.tzinfo is None else parsed.astimezone(dt.UTC)


@trader_required
@never_cache  # the answer to a create holds the key: no cache may keep it
@require_http_methods(["GET", "POST"])
def account_tokens(request):
    """The trader's account tokens; a POST creates one and redirects here, where its key is shown once."""
    if request.method == "POST":
        name = request.POST.get("name", "").strip()
        back = {"back_url": reverse("account-tokens"), "back_label": "API tokens"}
        if not name:
            return bad_request(request, "name: must not be blank", **back)
        try:
            expires_at = _expires_at(request.POST.get("expires_at", ""))
            token, key = services.account_token_create(
                owner=request.user, name=name, expires_at=expires_at, now=timezone.now()
            )
        except ValidationError as exc:
            return bad_request(request, rules_broken(exc), **back)
        return new_key_then_redirect(request, reverse("account-tokens"), name=token.name, key=key)
    created = new_key_shown_once(request)
    context = {"tokens": selectors.account_token_list(user=request.user), "created": created, "now": timezone.now()}
    return render(request, "accounts/tokens.html", context)


@trader_required
@require_POST
def account_token_revoke(request, token_id: int):
    token = selectors.account_token_get(user=request.user, token_id=token_id)
    services.account_token_revoke(token=token, now=timezone.now())
    return redirect("account-tokens")
