"""HTMX pages of chat memory: /profile/facts/ (review, edit and delete what the coach knows),
/profile/chat-preview/ (the chat system prompt as a turn would send it) and /profile/chat/ (talk to the
coach). Pages read through selectors and write through services only.

Every write is a POST. Answered to htmx, a write re-renders the facts body for the view the trader is
looking at (the filters of the page's current URL); a form with errors answers only itself (the add
form, or the fact's row), retargeted, so nothing else moves. Without htmx, a write redirects back to
the page (303) and a form with errors is rendered as a page.
"""

from __future__ import annotations

import contextlib
import json
from dataclasses import dataclass
from typing import cast
from urllib.parse import urlencode, urlsplit

from django import forms
from django.core.exceptions import ValidationError
from django.db import transaction
from django.http import HttpResponseRedirect, QueryDict
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_http_methods, require_POST
from django.views.decorators.vary import vary_on_headers
from django_htmx.http import push_url, replace_url, reswap, retarget

from access import scope
from access.middleware import without_transaction
from chatmemory import chat, selectors, services
from chatmemory.facts import FACT_MAX_CHARS, FACT_MIN_CHARS, FACTS_IN_PROMPT, FactError, clean_fact
from chatmemory.models import ArchivedReason, FactConfidence, FactSource
from chatmemory.prompt import MODES
from memorysite.pages import trader_required, wants_partial
from memorysite.text import estimate_tokens

# -- /profile/facts/ ------------------------------------------------------------------------------------------


class FactFilterForm(forms.Form):
    """The page's view: active or archived facts, optionally of one topic. A value that is not a choice
    (a stale or edited URL, a topic whose last fact was deleted) means "all"."""

    archived = forms.BooleanField(required=False)
    topic = forms.ChoiceField(required=False)

    def __init__(self, data, *, topics: list[str]):
        super().__init__(data)
        cast(forms.ChoiceField, self.fields["topic"]).choices = [
            ("", "all topics"),
            *((topic, topic) for topic in topics),
        ]

    def filters(self) -> Filters:
        self.is_valid()
        return Filters(archived=bool(self.cleaned_data.get("archived")), topic=self.cleaned_data.get("topic") or "")


@dataclass(frozen=True)
class Filters:
    archived: bool = False
    topic: str = ""

    @property
    def url(self) -> str:
        """The page's canonical URL: only what is set."""
        query = {}
        if self.archived:
            query["archived"] = "1"
        if self.topic:
            query["topic"] = self.topic
        url = reverse("profile-facts")
        return f"{url}?{urlencode(query)}" if query else url


class FactAddForm(forms.Form):
    """Raw input: the rules (length, control and bidi characters, topic shape) are the service's."""

    fact = forms.CharField(required=False, strip=False, widget=forms.Textarea)
    topic = forms.CharField(required=False, strip=False)
    confidence = forms.ChoiceField(choices=FactConfidence.choices, initial=FactConfidence.ASSERTED)
    # Set by the "Add it anyway" button of the near-duplicate warning.
    add_anyway = forms.BooleanField(required=False)


class FactEditForm(forms.Form):
    fact = forms.CharField(required=False, strip=False, widget=forms.Textarea)
    topic = forms.CharField(required=False, strip=False)


def _add_service_errors(form: forms.Form, exc: ValidationError) -> None:
    """The service's errors, keyed by field, onto the form (a field the form lacks → a form error)."""
    if not hasattr(exc, "error_dict"):
        form.add_error(None, exc)
        return
    for field, errors in exc.message_dict.items():
        form.add_error(field if field in form.fields else None, errors)


def _current_filters(request, topics: list[str]) -> Filters:
    """The view the trader is looking at: the query of the page's current URL (htmx sends it), else of
    the referring page; either only when it is the facts page."""
    current = request.htmx.current_url if request.htmx else request.headers.get("Referer")
    query = ""
    if current:
        parts = urlsplit(current)
        if parts.path == reverse("profile-facts"):
            query = parts.query
    return FactFilterForm(QueryDict(query), topics=topics).filters()


def _facts_context(request, filters: Filters | None = None, *, topics: list[str] | None = None, **extra) -> dict:
    """Everything the facts body shows; a fixed number of queries however many facts there are."""
    user = request.user
    if topics is None:
        topics = selectors.fact_topics(user=user)
    if filters is None:
        filters = _current_filters(request, topics)
    elif filters.topic and filters.topic not in topics:
        filters = Filters(archived=filters.archived)
    facts = list(selectors.fact_list(user=user, archived=filters.archived, topic=filters.topic or None))
    context = {
        "filters": filters,
        "page_url": reverse("profile-facts"),
        "topics": topics,
        "facts": facts,
        "prompt_ids": {fact.pk for fact in selectors.facts_for_prompt(user=user)},
        "counts": selectors.fact_counts(user=user),
        "facts_in_prompt": FACTS_IN_PROMPT,
        "fact_min_chars": FACT_MIN_CHARS,
        "fact_max_chars": FACT_MAX_CHARS,
        "add_form": FactAddForm(),
        **extra,
    }
    return context


def _written(request, notice: str, *, level: str = "ok", filters: Filters | None = None):
    """A write's answer: the facts body (htmx) or a redirect back to the page."""
    if not request.htmx:
        if filters is None:
            filters = _current_filters(request, selectors.fact_topics(user=request.user))
        return HttpResponseRedirect(filters.url, status=303)
    context = _facts_context(request, filters, notice={"text": notice, "level": level})
    response = render(request, "chatmemory/_facts_body.html", context)
    response = retarget(response, "#facts-body")
    response = reswap(response, "innerHTML")
    return replace_url(response, context["filters"].url)


def _filters_showing(request, topic: str | None) -> Filters:
    """The active view, keeping the topic filter only when the fact just written has that topic."""
    current = _current_filters(request, selectors.fact_topics(user=request.user))
    return Filters(archived=False, topic=current.topic if current.topic == (topic or "") else "")


@trader_required
@require_GET
@vary_on_headers("HX-Request")  # the same URL answers a partial to htmx and a page otherwise
def profile_facts(request):
    topics = selectors.fact_topics(user=request.user)
    filters = FactFilterForm(request.GET, topics=topics).filters()
    context = _facts_context(request, filters, topics=topics)
    if wants_partial(request):
        return push_url(render(request, "chatmemory/_facts_body.html", context), filters.url)
    return render(request, "chatmemory/facts.html", context)


@trader_required
@require_POST
def profile_fact_add(request):
    form = FactAddForm(request.POST)
    alike: list = []
    if form.is_valid():
        data = form.cleaned_data
        if not data["add_anyway"]:
            # A (near) repeat of an active fact: warn, keep the input and offer to edit the one there
            # (both would take prompt slots). Text that breaks a rule goes on to the service, which names it.
            with contextlib.suppress(FactError):
                alike = selectors.facts_like(user=request.user, text=clean_fact(data["fact"]))
        if not alike:
            try:
                fact = services.fact_create(
                    owner=request.user,
                    source=FactSource.PROFILE,
                    fact=data["fact"],
                    topic=data["topic"],
                    confidence=data["confidence"],
                )
            except ValidationError as exc:
                _add_service_errors(form, exc)
            else:
                return _written(request, "Fact added.", filters=_filters_showing(request, fact.topic))
    if request.htmx:
        context = {"add_form": form, "alike": alike, "fact_min_chars": FACT_MIN_CHARS, "fact_max_chars": FACT_MAX_CHARS}
        response = render(request, "chatmemory/_fact_add.html", context)
        return reswap(retarget(response, "#fact-add"), "outerHTML")
    return render(request, "chatmemory/facts.html", _facts_context(request, add_form=form, alike=alike))


@trader_required
@require_GET
@vary_on_headers("HX-Request")
def profile_fact(request, fact_id):
    """One fact's row (the edit form's Cancel); without htmx, the page at that fact."""
    fact = selectors.fact_get(user=request.user, fact_id=fact_id)
    if not request.htmx:
        return redirect(f"{reverse('profile-facts')}{'?archived=1' if fact.archived else ''}#fact-{fact.pk}")
    prompt_ids = {f.pk for f in selectors.facts_for_prompt(user=request.user)}
    return render(request, "chatmemory/_fact.html", {"fact": fact, "prompt_ids": prompt_ids})


@trader_required
@require_http_methods(["GET", "POST"])
@vary_on_headers("HX-Request")
def profile_fact_edit(request, fact_id):
    """GET: the row as an edit form. POST: save the text and topic in place; errors stay in the row."""
    fact = selectors.fact_get(user=request.user, fact_id=fact_id)
    if request.method == "GET":
        form = FactEditForm(initial={"fact": fact.fact, "topic": fact.topic or ""})
    else:
        form = FactEditForm(request.POST)
        if form.is_valid():
            try:
                services.fact_update(fact, fact=form.cleaned_data["fact"], topic=form.cleaned_data["topic"])
            except ValidationError as exc:
                _add_service_errors(form, exc)
            else:
                return _written(request, "Fact saved.", filters=_filters_showing(request, fact.topic))
    context = {
        "fact": fact,
        "form": form,
        "topics": selectors.fact_topics(user=request.user),
        "fact_max_chars": FACT_MAX_CHARS,
    }
    if request.htmx:
        response = render(request, "chatmemory/_fact_edit.html", context)
        return reswap(retarget(response, f"#fact-{fact.pk}"), "outerHTML")
    return render(request, "chatmemory/fact_edit.html", context)


def _set_confidence(request, fact_id, confidence: str, notice: str):
    fact = selectors.fact_get(user=request.user, fact_id=fact_id)
    services.fact_update(fact, confidence=confidence)
    return _written(request, notice)


@trader_required
@require_POST
def profile_fact_promote(request, fact_id):
    return _set_confidence(request, fact_id, FactConfidence.ASSERTED, "Promoted to asserted.")


@trader_required
@require_POST
def profile_fact_demote(request, fact_id):
    return _set_confidence(request, fact_id, FactConfidence.INFERRED, "Demoted to inferred.")


def _conflict(request, message: str):
    """A write the fact's state refuses (a stale page in another tab): the current view with the reason.
    htmx only swaps 2xx answers, so it gets a 200; a plain form post gets the page with a 409."""
    context = _facts_context(request, notice={"text": message, "level": "error"})
    if request.htmx:
        response = render(request, "chatmemory/_facts_body.html", context)
        return replace_url(reswap(retarget(response, "#facts-body"), "innerHTML"), context["filters"].url)
    return render(request, "chatmemory/facts.html", context, status=409)


@trader_required
@require_POST
def profile_fact_archive(request, fact_id):
    fact = selectors.fact_get(user=request.user, fact_id=fact_id)
    try:
        services.fact_archive(fact=fact, reason=ArchivedReason.USER_DELETED)
    except ValidationError as exc:
        return _conflict(request, " ".join(exc.messages))
    return _written(request, "Fact archived: it is out of the coach's prompt. Find it under “Archived”.")


@trader_required
@require_POST
def profile_fact_unarchive(request, fact_id):
    fact = selectors.fact_get(user=request.user, fact_id=fact_id)
    try:
        services.fact_unarchive(fact=fact)
    except ValidationError as exc:
        return _conflict(request, " ".join(exc.messages))
    return _written(request, "Fact restored: it is active again.")


@trader_required
@require_POST
def profile_fact_delete(request, fact_id):
    fact = selectors.fact_get(user=request.user, fact_id=fact_id)
    services.fact_delete(fact=fact)  # active or archived: the page asked for confirmation first
    return _written(request, "Fact deleted for good.")


# -- /profile/chat-preview/ -------------------------------------------------------------------------------------

DEFAULT_MODE = "coach"
SEGMENT_LABELS = {
    "persona": "Persona",
    "tier": "Tier addendum",
    "facts": "What I know about you",
    "mode": "Mode addendum",
    "trust": "Trust rules",
    "focus": "Focus",
}
SEGMENT_EMPTY = {
    "facts": "Suppressed: you have no active facts, so the prompt has no facts block.",
    "focus": "Empty here: in a chat it lists what you have open (a skill, a deployment).",
}


class PreviewForm(forms.Form):
    mode = forms.ChoiceField(choices=[(mode, mode) for mode in MODES], required=False)

    def chosen_mode(self) -> str:
        """The chosen mode; a blank or unknown one (a stale or edited URL) is the default."""
        self.is_valid()
        return self.cleaned_data.get("mode") or DEFAULT_MODE


def _preview_url(mode: str) -> str:
    url = reverse("chat-preview")
    return url if mode == DEFAULT_MODE else f"{url}?{urlencode({'mode': mode})}"


@trader_required
@require_GET
@vary_on_headers("HX-Request")
def chat_preview(request):
    mode = PreviewForm(request.GET).chosen_mode()
    # A preview bumps no fact's last_referenced_at (a chat turn that answers does).
    system = chat.chat_system(user=request.user, mode=mode)
    text = system.segments.text
    segments = [
        {
            "name": name,
            "label": SEGMENT_LABELS.get(name, name.title()),
            "text": value,
            "tokens": estimate_tokens(value),
            "empty": SEGMENT_EMPTY.get(name, "Empty."),
        }
        for name, value in system.segments.as_dict().items()
    ]
    context = {
        "mode": mode,
        "modes": MODES,
        "page_url": reverse("chat-preview"),
        "segments": segments,
        "text": text,
        "tokens": estimate_tokens(text),
        "chars": len(text),
        "fact_count": len(system.fact_ids),
        "facts_in_prompt": FACTS_IN_PROMPT,
    }
    if wants_partial(request):
        return push_url(render(request, "chatmemory/_chat_preview_body.html", context), _preview_url(mode))
    return render(request, "chatmemory/chat_preview.html", context)


# -- /profile/chat/: the coach -----------------------------------------------------------------------------------
#
# The conversation lives in the trader's session (the chat API is stateless: each turn sends the whole
# conversation). A turn waits on the model for seconds to minutes, so the page runs without a request
# transaction (access.middleware.without_transaction): its own reads are short transactions in the trader's
# scope, and chat.chat_turn opens its own around each read and tool call, never one across a model call.

CHAT_SESSION_KEY = "coach_chat"
CHAT_KEPT_MESSAGES = 40  # the oldest messages leave the conversation (and the session) past this
CHAT_MESSAGE_MAX = 20_000  # as the API's ChatMessage.content
TOOL_INPUT_CHARS = 160
TOOL_RESULT_CHARS = 600
MODE_HELP = {
    "coach": "Reviews how your agents trade: it fetches your trades, lessons and event exposure before answering.",
    "authoring": "Helps you write a skill: entries, exits, sizing and avoid rules, without rewriting it unasked.",
    "ops": "A brief status of your running deployments: what runs, what changed, what needs you.",
}
MESSAGE_BLANK = "Write a message for the coach."
CHAT_FAILED = "The coach could not answer: the model could not be reached ({detail}). Your message is kept; try again."


class ChatForm(forms.Form):
    message = forms.CharField(
        max_length=CHAT_MESSAGE_MAX,
        widget=forms.Textarea(attrs={"rows": 3}),
        error_messages={
            "required": MESSAGE_BLANK,
            "max_length": f"At most {CHAT_MESSAGE_MAX:,} characters (this one has %(show_value)d).",
        },
    )
    mode = forms.ChoiceField(
        choices=[(mode, mode) for mode in MODES],
        initial=DEFAULT_MODE,
        error_messages={"invalid_choice": f"Pick one of the modes: {', '.join(MODES)}."},
    )


def _compact_json(value, limit: int) -> str:
    text = json.dumps(value, ensure_ascii=False, separators=(", ", ": "), default=str)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _tool_call_entry(call: chat.ToolCall) -> dict:
    """A tool call as the conversation keeps it: name, input and result cut short, or the error."""
    return {
        "name": call.name,
        "input": _compact_json(call.input, TOOL_INPUT_CHARS),
        "error": call.error,
        "result": _compact_json(call.result, TOOL_RESULT_CHARS) if call.error is None else None,
    }


def _conversation(request) -> list[dict]:
    entries = request.session.get(CHAT_SESSION_KEY)
    return entries if isinstance(entries, list) else []


def _api_messages(conversation: list[dict], message: str) -> list[dict]:
    """The conversation as the Messages API takes it: the text of each turn (tool rounds are inside a turn)."""
    messages = [
        {"role": entry["role"], "content": entry["content"]}
        for entry in conversation
        if entry.get("role") in {"user", "assistant"} and entry.get("content")
    ]
    return [*messages, {"role": "user", "content": message}]


def _chat_context(request, *, form: ChatForm, conversation: list[dict], error: str = "") -> dict:
    last_answer = next((entry for entry in reversed(conversation) if entry.get("role") == "assistant"), None)
    chosen_mode = form["mode"].value() if form["mode"].value() in MODES else DEFAULT_MODE  # a bad one: the default
    with transaction.atomic():  # a short read in the trader's scope (the page has no request transaction)
        upcoming = chat.chat_system(user=request.user, mode=chosen_mode)
    return {
        "form": form,
        "modes": [{"value": mode, "help": MODE_HELP[mode]} for mode in MODES],
        "chosen_mode": chosen_mode,
        "conversation": conversation,
        "last_answer": last_answer,
        "upcoming_facts": upcoming.fact_lines,
        "facts_in_prompt": FACTS_IN_PROMPT,
        "kept": CHAT_KEPT_MESSAGES,
        "available": chat.chat_available(),
        "unavailable": chat.CHAT_UNAVAILABLE,
        "error": error,
        "page_url": reverse("coach-chat"),
    }


def _render_chat(request, context: dict, *, status: int = 200):
    """The page, or to htmx its body; the callers answer htmx 200 even for an error, shown in the body
    (as the facts page does: the browser logs no failed request, the message is next to the field)."""
    template = "chatmemory/_coach_body.html" if wants_partial(request) else "chatmemory/coach.html"
    return render(request, template, context, status=status)


@without_transaction  # a turn waits on the model: no transaction may stay open meanwhile
@trader_required
@never_cache
@require_http_methods(["GET", "POST"])
def coach_chat(request):
    """The coach: the conversation with its tool calls, the facts each answer was given, a message box."""
    with scope.bound(scope.owner_scope_of(request.user)):
        conversation = _conversation(request)
        if request.method == "GET":
            return _render_chat(request, _chat_context(request, form=ChatForm(), conversation=conversation))
        form = ChatForm(request.POST)
        if not form.is_valid():
            context = _chat_context(request, form=form, conversation=conversation)
            return _render_chat(request, context, status=200 if wants_partial(request) else 400)
        if not chat.chat_available():
            context = _chat_context(request, form=form, conversation=conversation)
            return _render_chat(request, context, status=200 if wants_partial(request) else 503)
        message, mode = form.cleaned_data["message"], form.cleaned_data["mode"]
        try:
            turn = chat.chat_turn(user=request.user, messages=_api_messages(conversation, message), mode=mode)
        except chat.ChatUnavailable:
            context = _chat_context(request, form=form, conversation=conversation)
            return _render_chat(request, context, status=200 if wants_partial(request) else 503)
        except chat.ChatFailed as exc:
            context = _chat_context(request, form=form, conversation=conversation, error=CHAT_FAILED.format(detail=exc))
            return _render_chat(request, context, status=200 if wants_partial(request) else 502)
        conversation = [
            *conversation,
            {"role": "user", "content": message, "mode": mode},
            {
                "role": "assistant",
                "content": turn.reply,
                "mode": mode,
                "tool_calls": [_tool_call_entry(call) for call in turn.tool_calls],
                "facts": [
                    {"ref": line.ref, "fact": line.fact, "topic": line.topic, "inferred": line.inferred}
                    for line in turn.facts
                ],
                "model": turn.model,
            },
        ][-CHAT_KEPT_MESSAGES:]
        request.session[CHAT_SESSION_KEY] = conversation
        if not wants_partial(request):
            return redirect("coach-chat")
        fresh = ChatForm(initial={"mode": mode})
        return _render_chat(request, _chat_context(request, form=fresh, conversation=conversation))


@trader_required
@require_POST
def coach_chat_clear(request):
    """Start a new conversation: the one in the session is dropped (nothing else changes)."""
    request.session.pop(CHAT_SESSION_KEY, None)
    return redirect("coach-chat")
