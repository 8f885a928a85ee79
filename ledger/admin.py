from django.contrib import admin

from ledger.models import DecisionSnapshot, Deployment, Skill, SkillVersion, TradeHistory


class SkillVersionInline(admin.TabularInline):
    model = SkillVersion
    fields = [
        "version",
        "memory_enabled",
        "recent_trades_k",
        "reflection_cadence",
        "reflection_every_n_trades",
        "reflection_model_override",
        "manual_enabled",
        "manual_k",
        "manual_token_cap",
        "created_at",
    ]
    readonly_fields = fields
    extra = 0
    can_delete = False
    show_change_link = True

    def has_add_permission(self, request, obj=None):
        return False  # versions are created by services.skill_version_create, never edited in place


@admin.register(Skill)
class SkillAdmin(admin.ModelAdmin):
    list_display = ["name", "owner", "created_at"]
    list_filter = ["created_at"]
    search_fields = ["name", "owner__username"]
    list_select_related = ["owner"]
    raw_id_fields = ["owner"]
    inlines = [SkillVersionInline]

    def has_add_permission(self, request):
        return False  # a skill is born with its version 1 (services.skill_create), from the API


@admin.register(SkillVersion)
class SkillVersionAdmin(admin.ModelAdmin):
    list_display = [
        "skill",
        "version",
        "owner",
        "memory_enabled",
        "recent_trades_k",
        "reflection_cadence",
        "reflection_model_override",
        "manual_enabled",
        "manual_k",
        "manual_token_cap",
        "created_at",
    ]
    list_filter = ["memory_enabled", "reflection_cadence", "manual_enabled", "created_at"]
    search_fields = ["skill__name", "owner__username", "strategy_text"]
    list_select_related = ["skill", "owner"]

    def has_change_permission(self, request, obj=None):
        return False  # immutable: a change is a new version

    def has_add_permission(self, request):
        return False


@admin.register(Deployment)
class DeploymentAdmin(admin.ModelAdmin):
    list_display = ["id", "skill_version", "owner", "mode", "status", "day_start_equity_usd", "created_at"]
    list_filter = ["mode", "status", "created_at"]
    search_fields = ["=id", "skill_version__skill__name", "owner__username"]
    list_select_related = ["skill_version__skill", "owner"]
    raw_id_fields = ["owner", "skill_version"]


@admin.register(DecisionSnapshot)
class DecisionSnapshotAdmin(admin.ModelAdmin):
    list_display = ["tick_at", "deployment", "owner", "equity_usd", "engine_kind", "engine_rule"]
    list_filter = ["engine_kind", "deployment__mode"]
    search_fields = ["=deployment__id", "owner__username", "engine_rule"]
    list_select_related = ["deployment__skill_version__skill", "owner"]
    date_hierarchy = "tick_at"
    readonly_fields = [f.name for f in DecisionSnapshot._meta.fields]

    def has_add_permission(self, request):
        return False  # snapshots come from runners through the tick API


@admin.register(TradeHistory)
class TradeHistoryAdmin(admin.ModelAdmin):
    list_display = [
        "entry_tick_at", "symbol", "side", "status", "deployment", "owner", "entry_size_usd",
        "realized_pnl_usd", "mfe_usd", "mae_usd", "entry_regime_tag", "exit_reason",
    ]  # fmt: skip
    list_filter = ["status", "side", "entry_regime_tag", "exit_reason"]
    search_fields = ["=deployment__id", "symbol", "owner__username", "entry_reason", "exit_reason"]
    list_select_related = ["deployment__skill_version__skill", "owner"]
    date_hierarchy = "entry_tick_at"
    readonly_fields = [f.name for f in TradeHistory._meta.fields]

    def has_add_permission(self, request):
        return False  # trades are materialized from ticks (backfill_trade_history rebuilds them)

    def has_change_permission(self, request, obj=None):
        return False
