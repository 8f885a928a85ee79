"""Staff side of recall: global playbooks and runbooks (documents no trader owns, read by every
search), the index with a reindex action (seed §6 ``memory.reindex``), and read-only views of the
agents' journal writes, edit proposals and trade situations. Every write goes through recall.services."""

from __future__ import annotations

from django import forms
from django.contrib import admin, messages
from django.core.exceptions import ValidationError

from access.admin import ReadOnlyAdmin
from recall import services
from recall.models import (
    DOCUMENT_MAX_CHARS,
    PATH_MAX,
    Document,
    DocumentSource,
    EditProposal,
    JournalEntry,
    TradeSituation,
)
from recall.paths import clean_path

GLOBAL_SOURCES = [(DocumentSource.PLAYBOOK, "playbook"), (DocumentSource.RUNBOOK, "incident runbook")]


class GlobalDocumentForm(forms.ModelForm):
    path = forms.CharField(max_length=PATH_MAX, help_text="e.g. runbooks/metaapi-disconnect.md")
    source = forms.ChoiceField(choices=GLOBAL_SOURCES)
    content = forms.CharField(widget=forms.Textarea(attrs={"rows": 30, "cols": 100}), max_length=DOCUMENT_MAX_CHARS)

    class Meta:
        model = Document
        fields = ["path", "source", "content"]

    def clean_path(self):
        try:
            return clean_path(self.cleaned_data["path"])
        except ValidationError as error:
            raise forms.ValidationError(error.messages[0]) from error

    def _post_clean(self):
        pass  # the service validates and writes; the model's own checks would trip on unset fields


@admin.register(Document)
class DocumentAdmin(admin.ModelAdmin):
    list_display = ["path", "scope", "source", "version", "chunk_count", "indexed_at", "has_error", "updated_at"]
    list_filter = ["source", ("owner", admin.EmptyFieldListFilter)]
    search_fields = ["path", "owner__username"]
    actions = ["reindex"]
    form = GlobalDocumentForm
    readonly_fields = ["owner", "deployment", "version", "content_hash", "chunk_count", "indexed_at", "index_error"]

    @admin.display(description="scope")
    def scope(self, document: Document) -> str:
        if document.owner_id is None:
            return "global"
        return (
            f"{document.owner} · deployment {document.deployment_id}" if document.deployment_id else str(document.owner)
        )

    @admin.display(boolean=True, description="error")
    def has_error(self, document: Document) -> bool:
        return bool(document.index_error)

    def get_fields(self, request, obj=None):
        if obj is None:
            return ["path", "source", "content"]
        return ["path", "source", "content", *self.readonly_fields]

    def get_readonly_fields(self, request, obj=None):
        if obj is not None and obj.owner_id is not None:
            return ["path", "source", "content", *self.readonly_fields]  # traders' documents: read-only
        if obj is not None:
            return ["path", *self.readonly_fields]
        return []

    def save_model(self, request, obj, form, change):
        """Global documents are written through the service: chunked, embedded by the worker."""
        result = services.document_upsert(
            owner=None,
            path=obj.path if change else form.cleaned_data["path"],
            content=form.cleaned_data["content"],
            source=form.cleaned_data["source"],
        )
        obj.pk = result.document.pk
        obj.refresh_from_db()

    def save_form(self, request, form, change):
        form.save_m2m = lambda: None  # no many-to-many fields; save_model wrote the row through the service
        if change:
            return form.instance
        return Document(**{name: form.cleaned_data[name] for name in ("path", "source", "content")})

    @admin.action(description="Reindex: chunk again and re-embed every chunk")
    def reindex(self, request, queryset):
        count = 0
        for document in queryset:
            services.document_reindex(document=document)
            count += 1
        self.message_user(request, f"{count} documents queued for re-embedding", messages.SUCCESS)


@admin.register(JournalEntry)
class JournalEntryAdmin(ReadOnlyAdmin):
    list_display = ["created_at", "owner", "deployment", "kind", "run_id"]
    list_filter = ["kind"]
    search_fields = ["run_id", "content", "owner__username"]


@admin.register(EditProposal)
class EditProposalAdmin(ReadOnlyAdmin):
    list_display = ["created_at", "owner", "document", "status", "run_id"]
    list_filter = ["status"]
    search_fields = ["run_id", "reason", "document__path"]


@admin.register(TradeSituation)
class TradeSituationAdmin(ReadOnlyAdmin):
    list_display = ["entry_tick_at", "owner", "symbol", "side", "outcome"]
    list_filter = ["side"]
    search_fields = ["symbol", "summary"]
