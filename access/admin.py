from django.contrib import admin

from access.models import Elevation


@admin.register(Elevation)
class ElevationAdmin(admin.ModelAdmin):
    """Read-only: the trail of cross-trader access (admin requests by staff, service jobs)."""

    list_display = ["at", "actor", "reason", "pid"]
    list_filter = ["actor"]
    search_fields = ["reason", "actor"]
    date_hierarchy = "at"

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False
