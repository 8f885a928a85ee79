from django.contrib import admin

from access.models import Elevation

# List filters for rows that belong to a trader: only the traders (deployments) that have rows are offered.
OWNER_FILTER = ("owner", admin.RelatedOnlyFieldListFilter)
DEPLOYMENT_FILTER = ("deployment", admin.RelatedOnlyFieldListFilter)


class ReadOnlyAdmin(admin.ModelAdmin):
    """Rows written by agents, runners or services: staff read them in admin, never edit them there.
    The admin base every app shares; it lives in the bottom layer so every app can stand on it."""

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


@admin.register(Elevation)
class ElevationAdmin(ReadOnlyAdmin):
    """The trail of cross-trader access (admin requests by staff, service jobs, maintenance commands)."""

    list_display = ["at", "actor", "reason", "pid"]
    list_filter = ["actor"]
    search_fields = ["reason", "actor"]
    date_hierarchy = "at"
