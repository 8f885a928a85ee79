"""Staff curation of lessons: every write goes through reflection.services.

Editing an active note's text saves a new active revision (the old one is superseded, both kept);
"promote to skill scope" makes a skill-scoped copy every deployment of the version without its own
note then sees; "retire" takes a note out of the prompt.
"""

from __future__ import annotations

from django.contrib import admin, messages
from django.contrib.admin import helpers
from django.core.exceptions import ValidationError
from django.http import HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils.html import format_html, format_html_join

from access.admin import OWNER_FILTER
from reflection import selectors, services
from reflection.models import NoteStatus, ReflectionNote

_FIELDS = [
    "lessons_text", "status", "skill", "skill_version", "deployment", "source", "revises", "author",
    "generated_at", "window_start", "window_end", "trades_considered", "model_used",
    "input_tokens", "output_tokens", "cache_read_input_tokens",
    "cache_creation_input_tokens", "cost_usd", "content_hash", "status_changed_at", "status_changed_by",
    "owner",
]  # fmt: skip
_COMPUTED = ["ab_figures", "trade_window"]
PREVIEW_CHARS = 80


def _usd(value) -> str:
    return "—" if value is None else f"{'-' if value < 0 else ''}${abs(value):,.2f}"


def _messages_of(exc: ValidationError) -> str:
    return "; ".join(message for messages_ in exc.message_dict.values() for message in messages_)


@admin.register(ReflectionNote)
class ReflectionNoteAdmin(admin.ModelAdmin):
    list_display = [
        "content_hash", "status", "owner", "scope", "skill", "text_preview", "source", "generated_at",
        "trades_considered",
    ]  # fmt: skip
    list_filter = [
        "status",
        OWNER_FILTER,
        "source",
        ("skill", admin.RelatedOnlyFieldListFilter),
        ("deployment", admin.RelatedOnlyFieldListFilter),
        "model_used",
    ]
    search_fields = ["=content_hash", "=deployment__id", "skill__name", "owner__username", "lessons_text"]
    list_select_related = ["skill", "deployment", "author", "owner"]
    date_hierarchy = "generated_at"
    fields = [*_FIELDS, *_COMPUTED]
    actions = ["promote_to_skill_scope", "retire"]

    def has_add_permission(self, request):
        return False  # notes come from reflection runs; staff revise, promote or retire them

    def has_delete_permission(self, request, obj=None):
        return False  # superseded and retired notes are the audit trail

    def get_readonly_fields(self, request, obj=None):
        editable = obj is not None and obj.status == NoteStatus.ACTIVE
        return [*(_FIELDS[1:] if editable else _FIELDS), *_COMPUTED]

    @admin.display(description="lessons (start)")
    def text_preview(self, note: ReflectionNote) -> str:
        text = " ".join(note.lessons_text.split())
        return text if len(text) <= PREVIEW_CHARS else text[: PREVIEW_CHARS - 1].rstrip() + "…"

    @admin.display(description="scope")
    def scope(self, note: ReflectionNote) -> str:
        return f"deployment #{note.deployment_id}" if note.deployment_id else f"skill v{note.skill_version}"

    @admin.display(description="A/B figures (closed trades of this skill)")
    def ab_figures(self, note: ReflectionNote):
        ab = selectors.lessons_ab(skill=note.skill)
        rows = [(f"this text ({note.content_hash})", self._figures(ab, note.content_hash))]
        rows.append(("no lessons", ab.no_lessons))
        return format_html(
            "<table><tr><th></th><th>closed trades</th><th>avg realized PnL</th><th>win rate</th></tr>{}</table>",
            format_html_join(
                "",
                "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
                (
                    (
                        label,
                        figures.n_closed,
                        _usd(figures.avg_realized_pnl_usd),
                        "—" if figures.win_rate is None else f"{figures.win_rate:.1%}",
                    )
                    for label, figures in rows
                ),
            ),
        )

    @staticmethod
    def _figures(ab: selectors.LessonsAB, content_hash: str) -> selectors.TradeFigures:
        for revision in ab.revisions:
            if revision.content_hash == content_hash:
                return revision.figures
        return selectors.TradeFigures(0, None, None)

    @admin.display(description="trade window (the trades this note distilled)")
    def trade_window(self, note: ReflectionNote):
        trades = selectors.window_trades(note=note)
        if not trades:
            return "—"
        return format_html(
            "<table><tr><th>exit</th><th>symbol</th><th>side</th><th>size</th><th>realized PnL</th>"
            "<th>regime</th><th>entry reason</th></tr>{}</table>",
            format_html_join(
                "",
                '<tr><td><a href="{}">{}</a></td><td>{}</td><td>{}</td><td>{}</td><td>{}</td>'
                "<td>{}</td><td>{}</td></tr>",
                (
                    (
                        reverse("admin:ledger_tradehistory_change", args=[trade.pk]),
                        trade.exit_tick_at.strftime("%Y-%m-%d %H:%M"),
                        trade.symbol,
                        trade.side,
                        _usd(trade.entry_size_usd),
                        _usd(trade.realized_pnl_usd),
                        trade.entry_regime_tag or "unclassified",
                        trade.entry_reason,
                    )
                    for trade in trades
                ),
            ),
        )

    def save_model(self, request, obj, form, change):
        """An edit of the lessons text is a new revision, never an in-place update."""
        if "lessons_text" not in form.changed_data:
            request._revised_note = None
            return
        current = ReflectionNote.objects.get(pk=obj.pk)
        request._revised_note = services.note_revise(
            note=current, lessons_text=form.cleaned_data["lessons_text"], by=request.user
        )

    def response_change(self, request, obj):
        revised = getattr(request, "_revised_note", None)
        if revised is None:
            return super().response_change(request, obj)
        self.message_user(
            request,
            f"Saved as a new active revision ({revised.content_hash}); the previous one is superseded.",
            messages.SUCCESS,
        )
        return HttpResponseRedirect(reverse("admin:reflection_reflectionnote_change", args=[revised.pk]))

    @admin.action(description="Promote to skill scope (all deployments of the version without their own note)")
    def promote_to_skill_scope(self, request, queryset):
        self._each(request, queryset, services.note_promote, "promoted to skill scope")

    @admin.action(description="Retire (take out of the prompt, keep for audit)…")
    def retire(self, request, queryset):
        """Asks first, on a page naming every note and what retiring does; "Yes, retire" posts back here."""
        if request.POST.get("confirmed") != "yes":
            context = {
                **self.admin_site.each_context(request),
                "title": "Retire these lessons?",
                "opts": self.model._meta,
                "notes": queryset.select_related("owner", "skill", "deployment").order_by("generated_at"),
                "action_checkbox_name": helpers.ACTION_CHECKBOX_NAME,
            }
            return TemplateResponse(request, "admin/reflection/reflectionnote/retire_confirmation.html", context)
        self._each(request, queryset, services.note_retire, "retired")

    def _each(self, request, queryset, service, done: str) -> None:
        for note in queryset.order_by("generated_at"):
            try:
                service(note=note, by=request.user)
            except ValidationError as exc:
                self.message_user(request, f"{note.content_hash}: {_messages_of(exc)}", messages.ERROR)
            else:
                self.message_user(request, f"{note.content_hash}: {done}", messages.SUCCESS)
