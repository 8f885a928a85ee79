"""Staff views of analyst memory: markets, signals, evolution events and the retrieval audit log."""

from django.contrib import admin

from access.admin import OWNER_FILTER, ReadOnlyAdmin
from signals import selectors, services
from signals.models import AgentSignal, Market, MemoryRetrievalAudit, MemorySettings, SignalEvolutionEvent


@admin.register(Market)
class MarketAdmin(ReadOnlyAdmin):
    list_display = ["id", "condition_id", "question", "owner", "created_at"]
    list_filter = [OWNER_FILTER]
    search_fields = ["=id", "condition_id", "question", "owner__username"]
    list_select_related = ["owner"]


@admin.register(AgentSignal)
class AgentSignalAdmin(ReadOnlyAdmin):
    list_display = ["created_at", "agent_name", "agent_type", "market", "direction", "fair_probability", "confidence"]
    list_filter = [OWNER_FILTER, "direction", "agent_type"]
    search_fields = ["agent_name", "=market__id", "market__condition_id", "owner__username"]
    list_select_related = ["market"]
    date_hierarchy = "created_at"


@admin.register(SignalEvolutionEvent)
class SignalEvolutionEventAdmin(ReadOnlyAdmin):
    list_display = ["timestamp", "agent_name", "market", "type", "magnitude", "description"]
    list_filter = [OWNER_FILTER, "type"]
    search_fields = ["agent_name", "=market__id", "owner__username"]
    list_select_related = ["market"]
    date_hierarchy = "timestamp"


@admin.register(MemoryRetrievalAudit)
class MemoryRetrievalAuditAdmin(ReadOnlyAdmin):
    list_display = [
        "created_at", "market", "success", "error_type", "agents_with_history", "retry_attempts",
        "invalid_rows_skipped", "duration_ms",
    ]  # fmt: skip
    list_filter = [OWNER_FILTER, "success", "error_type"]
    search_fields = ["=market__id", "owner__username", "error"]
    list_select_related = ["market"]
    date_hierarchy = "created_at"


@admin.register(MemorySettings)
class MemorySettingsAdmin(admin.ModelAdmin):
    """The switches of analyst memory (seed § Deployment): one row, which wins over the environment's values."""

    list_display = ["__str__", "enabled", "max_signals", "timeout_ms", "retries", "updated_at"]
    fields = ["enabled", "max_signals", "timeout_ms", "retries"]

    def has_add_permission(self, request):
        return super().has_add_permission(request) and not MemorySettings.objects.exists()

    def get_changeform_initial_data(self, request):
        now = selectors.switches_from_environment()  # a new row starts from what holds now
        return {"enabled": now.enabled, "max_signals": now.max_signals, "timeout_ms": now.timeout_ms,
                "retries": now.retries}  # fmt: skip

    def save_model(self, request, obj, form, change):
        services.memory_settings_save(row=obj)

    def delete_model(self, request, obj):
        services.memory_settings_delete()

    def delete_queryset(self, request, queryset):
        services.memory_settings_delete()
