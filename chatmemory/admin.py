"""Staff views of chat memory and the market data the coach reads.

- Market events: listed, filtered and editable (market data, the same for every trader; bulk loads
  go through ``manage.py import_events``).
- Bars: read-only (``manage.py import_bars`` loads them).
- User facts: read-only. Staff never rewrite a trader's facts; the only changes are the archive and
  un-archive actions, which go through ``chatmemory.services`` and are recorded in the admin log
  (who, when, which fact).
"""

from __future__ import annotations

from django.contrib import admin, messages
from django.core.exceptions import ValidationError
from django.utils import timezone

from access.admin import OWNER_FILTER
from chatmemory import services
from chatmemory.models import ArchivedReason, Bar, MarketEvent, UserFact

# Staff archive a fact on the trader's behalf (a support request): the seed's reasons have no
# staff-specific one, so the trader's own "deleted" reason is recorded, plus the admin log entry.
STAFF_ARCHIVE_REASON = ArchivedReason.USER_DELETED


class ImportanceFilter(admin.SimpleListFilter):
    title = "importance"
    parameter_name = "importance_band"
    BANDS = {"high": (0.8, None), "medium": (0.5, 0.8), "low": (None, 0.5)}

    def lookups(self, request, model_admin):
        return [("high", "high (≥ 0.8)"), ("medium", "medium (0.5 – 0.8)"), ("low", "low (< 0.5)")]

    def queryset(self, request, queryset):
        band = self.BANDS.get(self.value() or "")
        if band is None:
            return queryset
        low, high = band
        if low is not None:
            queryset = queryset.filter(importance__gte=low)
        if high is not None:
            queryset = queryset.filter(importance__lt=high)
        return queryset


class WhenFilter(admin.SimpleListFilter):
    title = "when"
    parameter_name = "when"

    def lookups(self, request, model_admin):
        return [("upcoming", "upcoming"), ("past", "past")]

    def queryset(self, request, queryset):
        if self.value() == "upcoming":
            return queryset.filter(scheduled_at__gte=timezone.now())
        if self.value() == "past":
            return queryset.filter(scheduled_at__lt=timezone.now())
        return queryset


@admin.register(MarketEvent)
class MarketEventAdmin(admin.ModelAdmin):
    list_display = ["scheduled_at", "kind", "title", "symbol_list", "importance"]
    list_filter = ["kind", ImportanceFilter, WhenFilter, "scheduled_at"]
    search_fields = ["title", "symbols"]
    date_hierarchy = "scheduled_at"
    ordering = ["-scheduled_at"]
    readonly_fields = ["created_at"]

    @admin.display(description="symbols")
    def symbol_list(self, event: MarketEvent) -> str:
        return ", ".join(event.symbols) or "market-wide"


@admin.register(Bar)
class BarAdmin(admin.ModelAdmin):
    list_display = ["ts", "symbol", "timeframe", "open", "high", "low", "close", "volume"]
    list_filter = ["symbol", "timeframe"]
    search_fields = ["=symbol"]
    date_hierarchy = "ts"
    ordering = ["symbol", "timeframe", "-ts"]
    show_full_result_count = False  # the table is large; skip the unfiltered count

    def has_add_permission(self, request):
        return False  # bars come from manage.py import_bars

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


class ArchivedFilter(admin.SimpleListFilter):
    title = "archived"
    parameter_name = "archived"

    def lookups(self, request, model_admin):
        return [("no", "active"), ("yes", "archived")]

    def queryset(self, request, queryset):
        if self.value() in ("yes", "no"):
            return queryset.filter(archived_at__isnull=self.value() == "no")
        return queryset


def _messages_of(exc: ValidationError) -> str:
    return "; ".join(message for messages_ in exc.message_dict.values() for message in messages_)


@admin.register(UserFact)
class UserFactAdmin(admin.ModelAdmin):
    list_display = ["short_fact", "owner", "topic", "source", "confidence", "last_referenced_at", "archived_at"]
    list_filter = [OWNER_FILTER, "source", "confidence", ArchivedFilter, "archived_reason"]
    search_fields = ["fact", "owner__username"]
    list_select_related = ["owner"]
    date_hierarchy = "created_at"
    fields = [
        "fact", "owner", "topic", "source", "confidence", "skill", "last_referenced_at",
        "created_at", "updated_at", "archived_at", "archived_reason",
    ]  # fmt: skip
    readonly_fields = fields
    actions = ["archive", "unarchive"]

    def has_add_permission(self, request):
        return False  # facts come from the trader (profile page) or the coach (remember)

    def has_change_permission(self, request, obj=None):
        return False  # the trader owns the wording: staff may only archive or un-archive

    def has_delete_permission(self, request, obj=None):
        return False  # hard delete ("forget me") is the trader's, from the profile page

    @admin.display(description="fact")
    def short_fact(self, fact: UserFact) -> str:
        return fact.fact if len(fact.fact) <= 80 else fact.fact[:79] + "…"

    @admin.action(description="Archive (out of the coach's prompt; kept, the trader sees it under Archived)")
    def archive(self, request, queryset):
        self._each(
            request,
            queryset,
            lambda fact: services.fact_archive(fact=fact, reason=STAFF_ARCHIVE_REASON),
            f"archived by staff (reason {STAFF_ARCHIVE_REASON.value})",
        )

    @admin.action(description="Un-archive (back among the trader's active facts)")
    def unarchive(self, request, queryset):
        self._each(request, queryset, lambda fact: services.fact_unarchive(fact=fact), "un-archived by staff")

    def _each(self, request, queryset, service, done: str) -> None:
        for fact in queryset.select_related("owner").order_by("created_at"):
            label = f"{fact.owner.username}: {fact}"
            try:
                service(fact)
            except ValidationError as exc:
                self.message_user(request, f"{label}: {_messages_of(exc)}", messages.ERROR)
            else:
                self.log_change(request, fact, done)
                self.message_user(request, f"{label}: {done}", messages.SUCCESS)
