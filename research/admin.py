"""Staff views of research memory. Experiments and hypotheses are the trader's research: staff read them,
never edit them. Capability requests are what staff act on: approve, mark implemented or reject, each
through research.services.request_review (which refuses a transition the lifecycle does not allow)."""

from __future__ import annotations

import json

from django.contrib import admin, messages
from django.core.exceptions import ValidationError
from django.utils.html import format_html

from access.admin import OWNER_FILTER, ReadOnlyAdmin
from research import services
from research.models import CapabilityRequest, Experiment, Hypothesis


def _messages_of(exc: ValidationError) -> str:
    return "; ".join(message for messages_ in exc.message_dict.values() for message in messages_)


def _pretty_json(value) -> str:
    return format_html("<pre>{}</pre>", json.dumps(value, indent=2, ensure_ascii=False, sort_keys=True))


@admin.register(Experiment)
class ExperimentAdmin(ReadOnlyAdmin):
    list_display = ["experiment_id", "owner", "timestamp", "strategy_name", "verdict", "timeframe", "symbol"]
    list_filter = [OWNER_FILTER, "verdict", "timeframe", "symbol"]
    search_fields = ["=experiment_id", "strategy_name", "owner__username"]
    list_select_related = ["owner"]
    date_hierarchy = "timestamp"
    fields = [
        "experiment_id", "owner", "timestamp", "strategy_name", "source", "verdict", "indicators", "timeframe",
        "symbol", "context_json", "results_json", "observations", "limitations", "context_fingerprint",
        "repeat_reason", "created_at",
    ]  # fmt: skip
    readonly_fields = fields

    @admin.display(description="context")
    def context_json(self, experiment: Experiment):
        return _pretty_json(experiment.context)

    @admin.display(description="results")
    def results_json(self, experiment: Experiment):
        return _pretty_json(experiment.results)


@admin.register(Hypothesis)
class HypothesisAdmin(ReadOnlyAdmin):
    list_display = ["hypothesis_id", "owner", "short_text", "status", "source_experiment", "created"]
    list_filter = [OWNER_FILTER, "status"]
    search_fields = ["=hypothesis_id", "text", "=source_experiment__experiment_id", "owner__username"]
    list_select_related = ["owner", "source_experiment"]
    fields = ["hypothesis_id", "owner", "text", "rationale", "status", "source_experiment", "tested_by_ids", "created"]
    readonly_fields = fields

    @admin.display(description="text")
    def short_text(self, hypothesis: Hypothesis) -> str:
        return hypothesis.text if len(hypothesis.text) <= 80 else f"{hypothesis.text[:79]}…"

    @admin.display(description="tested by")
    def tested_by_ids(self, hypothesis: Hypothesis) -> str:
        return ", ".join(experiment.experiment_id for experiment in hypothesis.tested_by.all()) or "—"


@admin.register(CapabilityRequest)
class CapabilityRequestAdmin(admin.ModelAdmin):
    list_display = ["request_id", "owner", "short_capability", "status", "requested_by", "requested", "implemented"]
    list_filter = [OWNER_FILTER, "status"]
    search_fields = ["=request_id", "capability", "rationale", "=requested_by__experiment_id", "owner__username"]
    list_select_related = ["owner", "requested_by"]
    fields = [
        "request_id", "owner", "capability", "rationale", "requested_by", "requested", "status", "implemented",
        "reviewed_by",
    ]  # fmt: skip
    readonly_fields = fields
    actions = ["approve", "mark_implemented", "reject"]

    def has_add_permission(self, request):
        return False  # requests come from the agent's assessments

    def has_change_permission(self, request, obj=None):
        # The list's actions need the change permission; a request itself is never edited in a form.
        return obj is None and super().has_change_permission(request)

    def has_delete_permission(self, request, obj=None):
        return False  # a rejected request stays on record

    @admin.display(description="capability")
    def short_capability(self, item: CapabilityRequest) -> str:
        return item.capability if len(item.capability) <= 80 else f"{item.capability[:79]}…"

    @admin.action(description="Approve selected requests", permissions=["change"])
    def approve(self, request, queryset):
        self._review(request, queryset, "approved")

    @admin.action(description="Mark selected requests implemented (today)", permissions=["change"])
    def mark_implemented(self, request, queryset):
        self._review(request, queryset, "implemented")

    @admin.action(description="Reject selected requests", permissions=["change"])
    def reject(self, request, queryset):
        self._review(request, queryset, "rejected")

    def _review(self, request, queryset, status: str) -> None:
        for item in queryset.select_related("owner").order_by("owner__username", "request_id"):
            label = f"{item.request_id} ({item.owner.username})"
            try:
                services.request_review(request=item, status=status, by=request.user)
            except ValidationError as exc:
                self.message_user(request, f"{label}: {_messages_of(exc)}", messages.ERROR)
            else:
                self.message_user(request, f"{label}: {status}", messages.SUCCESS)
