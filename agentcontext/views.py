"""HTMX page of agentcontext: /deployments/{id}/preview/ — what the agent sees. Pages read through selectors only."""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import urlencode

from django.http import QueryDict
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.vary import vary_on_headers
from django_htmx.http import push_url

from agentcontext import preview as preview_lib
from agentcontext.formatting import RECENT_TRADES_K_MAX, RECENT_TRADES_K_MIN
from agentcontext.selectors import deployment_memory_context, deployment_memory_context_with, deployment_system_prompt
from ledger import selectors as ledger_selectors
from ledger import services as ledger_services
from memorysite.pages import trader_required, wants_partial

K_PARAM = "recent_trades_k"
MEMORY_PARAM = "memory"
PLACEHOLDER_PARAM = "placeholder"
ON, OFF = "on", "off"
SHOW, HIDE = "show", "hide"

BAD_K = (
    "Invalid query parameter “recent_trades_k”: {value!r} is not a whole number from "
    f"{RECENT_TRADES_K_MIN} to {RECENT_TRADES_K_MAX}. Leave it empty for the skill version's own ({{saved}})."
)
BAD_MEMORY = (
    "Invalid query parameter “memory”: {value!r} is not “on” or “off”."
    " Leave it empty for the skill version's own ({saved})."
)
BAD_PLACEHOLDER = (
    "Invalid query parameter “placeholder”: {value!r} is not “show” or “hide”. Leave it empty to show the placeholder."
)
_WHOLE_NUMBER = re.compile(r"[0-9]{1,6}")


@dataclass(frozen=True)
class PreviewSettings:
    """The "what if" settings of one preview; the saved skill version is never changed."""

    recent_trades_k: int
    memory_enabled: bool
    show_placeholder: bool


class BadParameters(ValueError):
    def __init__(self, messages: list[str]):
        super().__init__(" ".join(messages))
        self.messages = messages


def _parse_settings(query: QueryDict, *, saved_k: int, saved_memory: bool) -> PreviewSettings:
    """The settings from the query string; an empty or missing value means the saved one (or "show")."""
    errors = []
    k = saved_k
    raw_k = query.get(K_PARAM, "").strip()
    if raw_k:
        if _WHOLE_NUMBER.fullmatch(raw_k) and RECENT_TRADES_K_MIN <= int(raw_k) <= RECENT_TRADES_K_MAX:
            k = int(raw_k)
        else:
            errors.append(BAD_K.format(value=query.get(K_PARAM), saved=saved_k))
    memory = saved_memory
    raw_memory = query.get(MEMORY_PARAM, "").strip()
    if raw_memory:
        if raw_memory in (ON, OFF):
            memory = raw_memory == ON
        else:
            errors.append(BAD_MEMORY.format(value=query.get(MEMORY_PARAM), saved=ON if saved_memory else OFF))
    show_placeholder = True
    raw_placeholder = query.get(PLACEHOLDER_PARAM, "").strip()
    if raw_placeholder:
        if raw_placeholder in (SHOW, HIDE):
            show_placeholder = raw_placeholder == SHOW
        else:
            errors.append(BAD_PLACEHOLDER.format(value=query.get(PLACEHOLDER_PARAM)))
    if errors:
        raise BadParameters(errors)
    return PreviewSettings(recent_trades_k=k, memory_enabled=memory, show_placeholder=show_placeholder)


def _page_url(deployment_id: int, settings: PreviewSettings, *, saved_k: int, saved_memory: bool) -> str:
    """The page's canonical URL: only the settings that differ from the saved ones (and the default view)."""
    query = {}
    if settings.recent_trades_k != saved_k:
        query[K_PARAM] = settings.recent_trades_k
    if settings.memory_enabled != saved_memory:
        query[MEMORY_PARAM] = ON if settings.memory_enabled else OFF
    if not settings.show_placeholder:
        query[PLACEHOLDER_PARAM] = HIDE
    url = reverse("deployment-preview", args=[deployment_id])
    return f"{url}?{urlencode(query)}" if query else url


@trader_required
@vary_on_headers("HX-Request")  # the same URL answers a partial to htmx and a page otherwise
def deployment_preview(request, deployment_id: int):
    """What the trading agent sees on its next tick: the composed system prompt segments and the memory
    sections of the user message, exactly as ``GET /api/v1/deployments/{id}/context/`` returns them (the
    same selectors, after the same read-your-writes catch-up), each with its token estimate.

    Query parameters (all optional, "what if" only — the saved skill version is never changed):
    ``recent_trades_k`` (1..30, default the skill version's), ``memory`` (``on``/``off``, default the
    skill version's) and ``placeholder`` (``show``/``hide``, default ``show``). An invalid value is a
    400 naming the parameter. With the saved settings the memory block comes from
    ``deployment_memory_context`` itself, the API's own selector.

    Placeholder: with no active lessons note, the lessons slot shows a placeholder block by default
    (the seed: the preview "still demonstrates the slot"); ``placeholder=hide`` shows the runner's
    exact text. The placeholder is never sent, so it counts 0 tokens.

    Budget warning: the seed's "Token budget" bounds memory at "~1,100 tok of memory per tick" with
    the knobs cranked (recent_trades_k=30: +600 tokens of trade ledger; lessons at 2000 chars: +500).
    The page warns when the memory sections' total (the joined memory block, as the API's
    ``token_estimate.total``) plus the real lessons segment exceeds
    ``agentcontext.preview.MEMORY_TOKEN_BUDGET`` = 1,100 estimated tokens, and states both figures.
    """
    deployment = ledger_selectors.deployment_get(user=request.user, deployment_id=deployment_id)
    skill_version = deployment.skill_version
    saved = {"saved_k": skill_version.recent_trades_k, "saved_memory": skill_version.memory_enabled}
    htmx_partial = wants_partial(request)
    context = {
        "deployment": deployment,
        "skill_version": skill_version,
        "k_min": RECENT_TRADES_K_MIN,
        "k_max": RECENT_TRADES_K_MAX,
        "form_url": reverse("deployment-preview", args=[deployment.pk]),
        "api_url": reverse("api-context", args=[deployment.pk]),
    }
    try:
        settings = _parse_settings(request.GET, **saved)
    except BadParameters as exc:
        context.update(
            error=str(exc),
            values={name: request.GET.get(name, "") for name in (K_PARAM, MEMORY_PARAM, PLACEHOLDER_PARAM)},
            has_lessons=bool(deployment.active_lessons_hash),
        )
        template = "agentcontext/_preview_body.html" if htmx_partial else "agentcontext/preview.html"
        response = render(request, template, context, status=400)
        if htmx_partial:
            response["HX-Push-Url"] = "false"
        return response

    ledger_services.materialize_if_behind(deployment)
    if settings.recent_trades_k == saved["saved_k"] and settings.memory_enabled == saved["saved_memory"]:
        memory = deployment_memory_context(deployment=deployment)
    else:
        memory = deployment_memory_context_with(
            deployment=deployment, recent_trades_k=settings.recent_trades_k, memory_enabled=settings.memory_enabled
        )
    segments = deployment_system_prompt(deployment=deployment)
    preview = preview_lib.build_preview(
        segments=segments,
        context=memory,
        memory_enabled=settings.memory_enabled,
        show_placeholder=settings.show_placeholder,
    )
    context.update(
        settings=settings,
        values={
            K_PARAM: str(settings.recent_trades_k),
            MEMORY_PARAM: ON if settings.memory_enabled else OFF,
            PLACEHOLDER_PARAM: SHOW if settings.show_placeholder else HIDE,
        },
        has_lessons=segments.lessons is not None,
        what_if=settings.recent_trades_k != saved["saved_k"] or settings.memory_enabled != saved["saved_memory"],
        preview=preview,
        budget=preview.budget,
    )
    if htmx_partial:
        response = render(request, "agentcontext/_preview_body.html", context)
        return push_url(response, _page_url(deployment.pk, settings, **saved))
    return render(request, "agentcontext/preview.html", context)
