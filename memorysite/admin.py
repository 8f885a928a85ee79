"""Admin plumbing every app shares."""

from django.contrib import admin


class ReadOnlyAdmin(admin.ModelAdmin):
    """Rows written by agents, runners or services: staff read them in admin, never edit them there."""

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False
