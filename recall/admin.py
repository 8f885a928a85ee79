"""Staff side of recall: global playbooks and runbooks (documents no trader owns, read by every
search), the index with a reindex action (seed §6 ``memory.reindex``), and read-only views of the
agents' journal writes, edit proposals and trade situations. Every write goes through recall.services."""

from __future__ import annotations

from django import forms
from django.contrib import admin, messages
from django.core.exceptions import ValidationError
from django.http import HttpResponseRedirect
from django.urls import reverse

from access.admin import DEPLOYMENT_FILTER, OWNER_FILTER, ReadOnlyAdmin
from memorysite.numbers import format_count
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
    list_filter = ["source", ("owner", admin.EmptyFieldListFilter), OWNER_FILTER, DEPLOYMENT_FILTER]
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

    def response_add(self, request, obj, post_url_continue=None):
        """After adding a global document, land on it (its version, chunks and index state), not on the list."""
        if "_addanother" in request.POST or "_popup" in request.POST:
            return super().response_add(request, obj, post_url_continue)
        self.message_user(request, f"Added the global {obj.source} {obj.path}.", messages.SUCCESS)
        return HttpResponseRedirect(reverse("admin:recall_document_change", args=[obj.pk]))

    @admin.action(description="Reindex: chunk again and re-embed every chunk")
    def reindex(self, request, queryset):
        count = 0
        for document in queryset:
            services.document_reindex(document=document)
            count += 1
        self.message_user(request, f"{format_count(count, 'document')} queued for re-embedding", messages.SUCCESS)


@admin.register(JournalEntry)
class JournalEntryAdmin(ReadOnlyAdmin):
    list_display = ["created_at", "owner", "deployment", "kind", "run_id"]
    list_filter = [OWNER_FILTER, DEPLOYMENT_FILTER, "kind"]
    search_fields = ["run_id", "content", "owner__username"]


@admin.register(EditProposal)
class EditProposalAdmin(ReadOnlyAdmin):
    list_display = ["created_at", "owner", "document", "status", "run_id"]
    list_filter = [OWNER_FILTER, "status"]
    search_fields = ["run_id", "reason", "document__path"]


@admin.register(TradeSituation)
class TradeSituationAdmin(ReadOnlyAdmin):
    list_display = ["entry_tick_at", "owner", "symbol", "side", "outcome"]
    list_filter = [OWNER_FILTER, DEPLOYMENT_FILTER, "side"]
    search_fields = ["symbol", "summary"]
