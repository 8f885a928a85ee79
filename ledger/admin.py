from django.contrib import admin

from access.admin import DEPLOYMENT_FILTER, OWNER_FILTER
from ledger.models import DecisionSnapshot, Deployment, Skill, SkillVersion, TradeHistory
from memorysite.numbers import format_usd


def _usd(value) -> str:
    """Money in a staff list: to the cent with thousands separators (the column sorts by the stored value)."""
    return "—" if value is None else format_usd(value)


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
    list_filter = [OWNER_FILTER, "created_at"]
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
    list_filter = [OWNER_FILTER, "memory_enabled", "reflection_cadence", "manual_enabled", "created_at"]
    search_fields = ["skill__name", "owner__username", "strategy_text"]
    list_select_related = ["skill", "owner"]

    def has_change_permission(self, request, obj=None):
        return False  # immutable: a change is a new version

    def has_add_permission(self, request):
        return False

    def has_delete_permission(self, request, obj=None):
        return False  # trades and snapshots name their version: the history stays whole


@admin.register(Deployment)
class DeploymentAdmin(admin.ModelAdmin):
    list_display = ["id", "skill_version", "owner", "mode", "status", "day_start_equity", "created_at"]
    list_filter = [OWNER_FILTER, "mode", "status", "created_at"]
    search_fields = ["=id", "skill_version__skill__name", "owner__username"]
    list_select_related = ["skill_version__skill", "owner"]
    raw_id_fields = ["owner", "skill_version"]

    @admin.display(description="day-start equity", ordering="day_start_equity_usd")
    def day_start_equity(self, deployment: Deployment) -> str:
        return _usd(deployment.day_start_equity_usd)


@admin.register(DecisionSnapshot)
class DecisionSnapshotAdmin(admin.ModelAdmin):
    list_display = ["tick_at", "deployment", "owner", "equity", "engine_kind", "engine_rule"]
    list_filter = [OWNER_FILTER, DEPLOYMENT_FILTER, "engine_kind", "deployment__mode"]
    search_fields = ["=deployment__id", "owner__username", "engine_rule"]
    list_select_related = ["deployment__skill_version__skill", "owner"]
    date_hierarchy = "tick_at"
    readonly_fields = [f.name for f in DecisionSnapshot._meta.fields]

    ordering = ["-tick_at", "-id"]

    def has_add_permission(self, request):
        return False  # snapshots come from runners through the tick API

    def has_change_permission(self, request, obj=None):
        return False  # read-only: staff view it

    def has_delete_permission(self, request, obj=None):
        return False  # what the agent saw and decided: trades and citations point at it

    @admin.display(description="equity", ordering="equity_usd")
    def equity(self, snapshot: DecisionSnapshot) -> str:
        return _usd(snapshot.equity_usd)


@admin.register(TradeHistory)
class TradeHistoryAdmin(admin.ModelAdmin):
    list_display = [
        "entry_tick_at", "exit_tick_at", "symbol", "side", "status", "deployment", "owner", "entry_size",
        "realized_pnl", "mfe", "mae", "entry_regime_tag", "exit_reason",
    ]  # fmt: skip
    list_filter = [OWNER_FILTER, DEPLOYMENT_FILTER, "status", "side", "entry_regime_tag", "exit_reason"]
    ordering = ["-entry_tick_at", "-id"]  # newest first, as the trader's journal
    search_fields = ["=deployment__id", "symbol", "owner__username", "entry_reason", "exit_reason"]
    list_select_related = ["deployment__skill_version__skill", "owner"]
    date_hierarchy = "entry_tick_at"
    readonly_fields = [f.name for f in TradeHistory._meta.fields]

    def has_add_permission(self, request):
        return False  # trades are materialized from ticks (backfill_trade_history rebuilds them)

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False  # rebuilt from the ticks only (backfill_trade_history), never deleted by hand

    @admin.display(description="entry size", ordering="entry_size_usd")
    def entry_size(self, trade: TradeHistory) -> str:
        return _usd(trade.entry_size_usd)

    @admin.display(description="realized PnL", ordering="realized_pnl_usd")
    def realized_pnl(self, trade: TradeHistory) -> str:
        return _usd(trade.realized_pnl_usd)

    @admin.display(description="MFE", ordering="mfe_usd")
    def mfe(self, trade: TradeHistory) -> str:
        return _usd(trade.mfe_usd)

    @admin.display(description="MAE", ordering="mae_usd")
    def mae(self, trade: TradeHistory) -> str:
        return _usd(trade.mae_usd)
