"""HTMX page of agentcontext: /deployments/{id}/preview/ — what the agent sees. Pages read through selectors only."""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import urlencode

from django.contrib import messages
from django.http import QueryDict
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST
from django.views.decorators.vary import vary_on_headers
from django_htmx.http import push_url

from agentcontext import preview as preview_lib
from agentcontext.formatting import RECENT_TRADES_K_MAX, RECENT_TRADES_K_MIN
from agentcontext.manual import ManualSettings
from agentcontext.selectors import deployment_context, manual_settings
from ledger import forms as ledger_forms
from ledger import selectors as ledger_selectors
from ledger import services as ledger_services
from ledger.models import MANUAL_K_MAX, MANUAL_K_MIN, MANUAL_TOKEN_CAP_MAX, MANUAL_TOKEN_CAP_MIN
from memorysite.pages import trader_required, wants_partial

K_PARAM = "recent_trades_k"
MEMORY_PARAM = "memory"
PLACEHOLDER_PARAM = "placeholder"
MANUAL_PARAM = "manual"
MANUAL_K_PARAM = "manual_k"
MANUAL_CAP_PARAM = "manual_cap"
AVOID_PARAM = "avoid_rules"  # the edited avoid rules, one a line; absent: the skill version's
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
BAD_MANUAL = (
    "Invalid query parameter “manual”: {value!r} is not “on” or “off”."
    " Leave it empty for the skill version's own ({saved})."
)
BAD_MANUAL_K = (
    "Invalid query parameter “manual_k”: {value!r} is not a whole number from "
    f"{MANUAL_K_MIN} to {MANUAL_K_MAX}. Leave it empty for the skill version's own ({{saved}})."
)
BAD_MANUAL_CAP = (
    "Invalid query parameter “manual_cap”: {value!r} is not a whole number from "
    f"{MANUAL_TOKEN_CAP_MIN} to {MANUAL_TOKEN_CAP_MAX}. Leave it empty for the skill version's own ({{saved}})."
)
BAD_AVOID = "Invalid “avoid_rules”: {rule}."
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
    manual: ManualSettings
    avoid_rules: str  # as edited (LF line breaks); the prompt's leash is avoid_rule_list

    @property
    def avoid_rule_list(self) -> list[str]:
        return _rule_list(self.avoid_rules)


def _rule_list(text: str) -> list[str]:
    """One rule a line, blank lines dropped: as ledger.models.SkillVersion.avoid_rule_list reads its text."""
    return [line.strip() for line in text.splitlines() if line.strip()]


class BadParameters(ValueError):
    def __init__(self, messages: list[str]):
        super().__init__(" ".join(messages))
        self.messages = messages


def _whole_number(query: QueryDict, name: str, low: int, high: int, saved: int, message: str, errors: list) -> int:
    raw = query.get(name, "").strip()
    if not raw:
        return saved
    if _WHOLE_NUMBER.fullmatch(raw) and low <= int(raw) <= high:
        return int(raw)
    errors.append(message.format(value=query.get(name), saved=saved))
    return saved


def _on_off(query: QueryDict, name: str, saved: bool, message: str, errors: list) -> bool:
    raw = query.get(name, "").strip()
    if not raw:
        return saved
    if raw in (ON, OFF):
        return raw == ON
    errors.append(message.format(value=query.get(name), saved=ON if saved else OFF))
    return saved


def _parse_settings(
    query: QueryDict, *, saved_k: int, saved_memory: bool, saved_manual: ManualSettings, saved_avoid: str
) -> PreviewSettings:
    """The settings from the query string; an empty or missing value means the saved one (or "show"). The avoid
    rules are the exception: present, even empty, they are the edited rules (an empty box is no rules)."""
    errors: list[str] = []
    avoid = query[AVOID_PARAM].replace("\r\n", "\n") if AVOID_PARAM in query else saved_avoid
    for rule in ledger_forms.avoid_rules_errors(avoid):
        errors.append(BAD_AVOID.format(rule=rule))
    k = _whole_number(query, K_PARAM, RECENT_TRADES_K_MIN, RECENT_TRADES_K_MAX, saved_k, BAD_K, errors)
    memory = _on_off(query, MEMORY_PARAM, saved_memory, BAD_MEMORY, errors)
    manual = ManualSettings(
        enabled=_on_off(query, MANUAL_PARAM, saved_manual.enabled, BAD_MANUAL, errors),
        k=_whole_number(query, MANUAL_K_PARAM, MANUAL_K_MIN, MANUAL_K_MAX, saved_manual.k, BAD_MANUAL_K, errors),
        token_cap=_whole_number(
            query,
            MANUAL_CAP_PARAM,
            MANUAL_TOKEN_CAP_MIN,
            MANUAL_TOKEN_CAP_MAX,
            saved_manual.token_cap,
            BAD_MANUAL_CAP,
            errors,
        ),
    )
    show_placeholder = True
    raw_placeholder = query.get(PLACEHOLDER_PARAM, "").strip()
    if raw_placeholder:
        if raw_placeholder in (SHOW, HIDE):
            show_placeholder = raw_placeholder == SHOW
        else:
            errors.append(BAD_PLACEHOLDER.format(value=query.get(PLACEHOLDER_PARAM)))
    if errors:
        raise BadParameters(errors)
    return PreviewSettings(
        recent_trades_k=k, memory_enabled=memory, show_placeholder=show_placeholder, manual=manual, avoid_rules=avoid
    )


def _is_saved(
    settings: PreviewSettings, *, saved_k: int, saved_memory: bool, saved_manual: ManualSettings, saved_avoid: str
) -> bool:
    return (
        settings.recent_trades_k == saved_k
        and settings.memory_enabled == saved_memory
        and settings.manual == saved_manual
        and settings.avoid_rule_list == _rule_list(saved_avoid)
    )


def _page_url(
    deployment_id: int,
    settings: PreviewSettings,
    *,
    saved_k: int,
    saved_memory: bool,
    saved_manual: ManualSettings,
    saved_avoid: str,
) -> str:
    """The page's canonical URL: only the settings that differ from the saved ones (and the default view)."""
    query: dict[str, object] = {}
    if settings.recent_trades_k != saved_k:
        query[K_PARAM] = settings.recent_trades_k
    if settings.memory_enabled != saved_memory:
        query[MEMORY_PARAM] = ON if settings.memory_enabled else OFF
    if settings.manual.enabled != saved_manual.enabled:
        query[MANUAL_PARAM] = ON if settings.manual.enabled else OFF
    if settings.manual.k != saved_manual.k:
        query[MANUAL_K_PARAM] = settings.manual.k
    if settings.manual.token_cap != saved_manual.token_cap:
        query[MANUAL_CAP_PARAM] = settings.manual.token_cap
    if settings.avoid_rule_list != _rule_list(saved_avoid):
        query[AVOID_PARAM] = settings.avoid_rules
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
    skill version's), the manual section's ``manual`` (``on``/``off``), ``manual_k`` (1..10) and
    ``manual_cap`` (50..2000 tokens), each defaulting to the skill version's, and ``placeholder``
    (``show``/``hide``, default ``show``). An invalid value is a 400 naming the parameter. With the saved
    settings the memory block comes from ``deployment_context`` itself, the API's own selector.

    Degraded sections (``agentcontext.degrade``: a read that failed or ran past the section timeout) are
    shown as such, each in its place and listed above the parts, as the API's ``degraded`` names them.

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
    return _preview_response(request, deployment, request.GET, partial=wants_partial(request))


def _saved_settings(skill_version) -> dict:
    return {
        "saved_k": skill_version.recent_trades_k,
        "saved_memory": skill_version.memory_enabled,
        "saved_manual": manual_settings(skill_version),
        "saved_avoid": skill_version.avoid_rules,
    }


def _preview_response(request, deployment, query: QueryDict, *, partial: bool, save_errors: dict | None = None):
    """The preview page (or its body, to htmx) for the settings in ``query``; ``save_errors``: what the API's
    rules said of the last "save as a new version" (by preview parameter), shown under each control."""
    skill_version = deployment.skill_version
    saved = _saved_settings(skill_version)
    htmx_partial = partial
    context = {
        "deployment": deployment,
        "skill_version": skill_version,
        "k_min": RECENT_TRADES_K_MIN,
        "k_max": RECENT_TRADES_K_MAX,
        "manual_k_min": MANUAL_K_MIN,
        "manual_k_max": MANUAL_K_MAX,
        "manual_cap_min": MANUAL_TOKEN_CAP_MIN,
        "manual_cap_max": MANUAL_TOKEN_CAP_MAX,
        "form_url": reverse("deployment-preview", args=[deployment.pk]),
        "save_url": reverse("deployment-preview-save", args=[deployment.pk]),
        "api_url": reverse("api-context", args=[deployment.pk]),
        "save_errors": save_errors or {},
    }
    try:
        settings = _parse_settings(query, **saved)
    except BadParameters as exc:
        context.update(
            error=str(exc),
            values={
                name: query.get(name, "")
                for name in (K_PARAM, MEMORY_PARAM, PLACEHOLDER_PARAM, MANUAL_PARAM, MANUAL_K_PARAM, MANUAL_CAP_PARAM)
            },
            avoid_rules=query.get(AVOID_PARAM, skill_version.avoid_rules),
            has_lessons=bool(deployment.active_lessons_hash),
        )
        template = "agentcontext/_preview_body.html" if htmx_partial else "agentcontext/preview.html"
        response = render(request, template, context, status=400)
        if htmx_partial:
            response["HX-Push-Url"] = "false"
        return response

    ledger_services.materialize_if_behind(deployment)
    what_if = not _is_saved(settings, **saved)
    if not what_if:
        read = deployment_context(deployment=deployment)
    else:
        read = deployment_context(
            deployment=deployment,
            recent_trades_k=settings.recent_trades_k,
            memory_enabled=settings.memory_enabled,
            manual=settings.manual,
            avoid_rules=settings.avoid_rule_list,
        )
    segments = read.segments
    preview = preview_lib.build_preview(
        segments=segments,
        context=read.memory,
        memory_enabled=settings.memory_enabled,
        show_placeholder=settings.show_placeholder,
        manual_enabled=settings.manual.enabled,
        manual_cap=settings.manual.token_cap,
        degraded=read.degraded,
    )
    comparison = None
    if what_if:  # before (the saved settings, what the runner gets now) beside after (these)
        before_read = deployment_context(deployment=deployment)
        before = preview_lib.build_preview(
            segments=before_read.segments,
            context=before_read.memory,
            memory_enabled=skill_version.memory_enabled,
            show_placeholder=settings.show_placeholder,
            manual_enabled=skill_version.manual_enabled,
            manual_cap=skill_version.manual_token_cap,
            degraded=before_read.degraded,
        )
        comparison = preview_lib.compare(before, preview)
        latest = ledger_selectors.skill_latest_version(skill=skill_version.skill)
        context["next_version"] = (latest.version if latest else skill_version.version) + 1
    context.update(
        settings=settings,
        values={
            K_PARAM: str(settings.recent_trades_k),
            MEMORY_PARAM: ON if settings.memory_enabled else OFF,
            PLACEHOLDER_PARAM: SHOW if settings.show_placeholder else HIDE,
            MANUAL_PARAM: ON if settings.manual.enabled else OFF,
            MANUAL_K_PARAM: str(settings.manual.k),
            MANUAL_CAP_PARAM: str(settings.manual.token_cap),
        },
        avoid_rules=settings.avoid_rules,
        has_lessons=segments.lessons is not None,
        what_if=what_if,
        preview=preview,
        budget=preview.budget,
        comparison=comparison,
        memory_off=preview_lib.memory_off(preview) if not settings.memory_enabled else None,
    )
    if htmx_partial:
        response = render(request, "agentcontext/_preview_body.html", context)
        return push_url(response, _page_url(deployment.pk, settings, **saved))
    return render(request, "agentcontext/preview.html", context)


# The preview's parameters, by the API field of a skill version each one sets.
_SAVED_FIELDS = {
    K_PARAM: "recent_trades_k",
    MEMORY_PARAM: "memory_enabled",
    MANUAL_PARAM: "manual_enabled",
    MANUAL_K_PARAM: "manual_k",
    MANUAL_CAP_PARAM: "manual_token_cap",
    AVOID_PARAM: "avoid_rules",
}
VERSION_SAVED = (
    "Saved {name} v{version} from the preview of deployment #{id}, which still runs v{running}:"
    " deploy v{version} to use it."
)


@trader_required
@require_POST
def deployment_preview_save(request, deployment_id: int):
    """The what-if settings of the preview as the skill's next version (the deployment's version, with these
    settings in place), validated by the API's own serializer and saved by its service; errors go back under
    the preview's controls, the settings as they were."""
    deployment = ledger_selectors.deployment_get(user=request.user, deployment_id=deployment_id)
    changes = {field: request.POST[param] for param, field in _SAVED_FIELDS.items() if param in request.POST}
    result = ledger_forms.skill_version_from_changes(base=deployment.skill_version, changes=changes)
    if result.saved is None:
        by_param = {param: result.errors[field] for param, field in _SAVED_FIELDS.items() if field in result.errors}
        other = [
            f"{field}: {', '.join(rules)}"
            for field, rules in result.errors.items()
            if field not in _SAVED_FIELDS.values()
        ]
        if other:
            by_param["non_field_errors"] = other
        return _preview_response(request, deployment, request.POST, partial=False, save_errors=by_param)
    skill = deployment.skill_version.skill
    messages.success(
        request,
        VERSION_SAVED.format(
            name=skill.name, version=result.saved.version, id=deployment.pk, running=deployment.skill_version.version
        ),
    )
    return redirect("skill", skill_id=skill.pk)
