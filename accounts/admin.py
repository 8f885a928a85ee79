"""Staff: unlock a username held by the password-guessing brake; see and revoke account tokens."""

from __future__ import annotations

from django.contrib import admin, messages
from django.contrib.auth import get_user_model
from django.contrib.auth.admin import UserAdmin
from django.utils import timezone
from redis.exceptions import RedisError

from access.admin import OWNER_FILTER, ReadOnlyAdmin
from accounts import services
from accounts.forms import BrakedAdminAuthenticationForm
from accounts.models import AccountToken
from memorysite.numbers import format_count

admin.site.login_form = BrakedAdminAuthenticationForm  # the admin's login is braked like the trader's

User = get_user_model()
admin.site.unregister(User)


@admin.register(User)
class BrakedUserAdmin(UserAdmin):
    list_display = [*UserAdmin.list_display, "login_lock"]
    actions = ["unlock_login"]

    @admin.display(description="login brake")
    def login_lock(self, user) -> str:
        try:
            refused = services.login_lock(username=user.get_username())
        except RedisError:
            return "unknown (Redis unreachable)"
        return refused.message if refused is not None else "—"

    @admin.action(description="Unlock login (forget failed attempts of these usernames)")
    def unlock_login(self, request, queryset):
        for user in queryset:
            services.login_unlock(username=user.get_username())
        self.message_user(request, f"Unlocked {queryset.count()} username(s).", messages.SUCCESS)


@admin.register(AccountToken)
class AccountTokenAdmin(ReadOnlyAdmin):
    list_display = ["name", "owner", "key_prefix", "created_at", "last_used_at", "expires_at", "revoked_at"]
    list_filter = [OWNER_FILTER, "revoked_at"]
    search_fields = ["name", "owner__username", "key_prefix"]
    actions = ["revoke"]

    @admin.action(description="Revoke the selected account tokens")
    def revoke(self, request, queryset):
        now = timezone.now()
        for token in queryset:
            services.account_token_revoke(token=token, now=now)
        self.message_user(request, f"Revoked {format_count(queryset.count(), 'token')}.", messages.SUCCESS)
