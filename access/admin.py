from django.contrib import admin

from access.models import Elevation
from memorysite.admin import ReadOnlyAdmin


@admin.register(Elevation)
class ElevationAdmin(ReadOnlyAdmin):
    """The trail of cross-trader access (admin requests by staff, service jobs, maintenance commands)."""

    list_display = ["at", "actor", "reason", "pid"]
    list_filter = ["actor"]
    search_fields = ["reason", "actor"]
    date_hierarchy = "at"
