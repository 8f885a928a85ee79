"""HTML forms of skills and deployments, read through the API's own serializers and services.

A page and the API refuse the same input with the same words: the form's fields become the body the
API would get (checkboxes as true/false, a blank model override as null, the browser's CRLF as LF),
the API's input serializer validates it, and the service's own errors (a taken name, a missing
version) are filed under their field the same way. There is no second set of rules here.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import partial

from django.core.exceptions import ValidationError
from rest_framework import serializers

from ledger import models, services
from ledger.models import Skill, SkillVersion
from ledger.serializers import DeploymentCreateInput, SkillCreateInput, SkillVersionInput
from memorysite.api import flatten_errors

CHECKBOXES = frozenset({"memory_enabled", "manual_enabled"})
TEXTAREAS = frozenset({"strategy_text", "avoid_rules"})
NULL_WHEN_BLANK = frozenset({"reflection_model_override"})  # blank: the service's REFLECTION_MODEL, as null is
VERSION_FIELDS: tuple[str, ...] = services.VERSION_FIELDS  # the same fields as SkillVersionInput
# The bounds the form states beside each field (the serializer enforces them).
VERSION_LIMITS = {
    "recent_trades_k": (models.RECENT_TRADES_K_MIN, models.RECENT_TRADES_K_MAX),
    "reflection_every_n_trades": (models.REFLECTION_EVERY_N_MIN, models.REFLECTION_EVERY_N_MAX),
    "bars_window": (models.BARS_WINDOW_MIN, models.BARS_WINDOW_MAX),
    "manual_k": (models.MANUAL_K_MIN, models.MANUAL_K_MAX),
    "manual_token_cap": (models.MANUAL_TOKEN_CAP_MIN, models.MANUAL_TOKEN_CAP_MAX),
}


@dataclass
class FormInput:
    """What the trader typed (to show again), the errors by field, and the row written when there were none."""

    values: dict[str, object]
    errors: dict[str, list[str]] = field(default_factory=dict)
    saved: object | None = None

    @property
    def non_field_errors(self) -> list[str]:
        return self.errors.get("non_field_errors", [])


def version_values(version: SkillVersion | None) -> dict[str, object]:
    """A version's settings as the form shows them (the defaults of a new skill when None)."""
    if version is None:
        defaults = {name: f.default for name, f in SkillVersionInput().fields.items() if not f.required}
        defaults["strategy_text"] = ""
        return {name: "" if value is None else value for name, value in defaults.items()}
    values = {name: getattr(version, name) for name in VERSION_FIELDS}
    values["reflection_model_override"] = version.reflection_model_override or ""
    return values


def _body(post, names) -> tuple[dict[str, object], dict[str, object]]:
    """(the API body the form stands for, the values to show again)."""
    body: dict[str, object] = {}
    shown: dict[str, object] = {}
    for name in names:
        if name in CHECKBOXES:  # an unticked box sends nothing
            body[name] = shown[name] = name in post
            continue
        value = post.get(name, "")
        if name in TEXTAREAS:
            value = value.replace("\r\n", "\n")  # the browser sends CRLF; the trader typed line breaks
        shown[name] = value
        body[name] = None if name in NULL_WHEN_BLANK and not value.strip() else value
    return body, shown


def _errors(exc: ValidationError) -> dict[str, list[str]]:
    return exc.message_dict if hasattr(exc, "error_dict") else {"non_field_errors": exc.messages}


def _validated_save(shown: dict, serializer_class, body: dict, save) -> FormInput:
    """The form's body validated by the API's own serializer, then saved by the API's own service; either
    one's errors kept per field, beside what the trader typed."""
    result = FormInput(values=shown)
    data = serializer_class(data=body)
    if not data.is_valid():
        result.errors = flatten_errors(data.errors)
        return result
    try:
        result.saved = save(**data.validated_data)
    except ValidationError as exc:
        result.errors = _errors(exc)
    return result


def skill_create_from_form(*, owner, post) -> FormInput:
    """A new skill and its version 1 (services.skill_create), validated as POST /api/v1/skills/ is."""
    body, shown = _body(post, ("name", *VERSION_FIELDS))
    return _validated_save(shown, SkillCreateInput, body, partial(services.skill_create, owner=owner))


def skill_version_from_form(*, skill: Skill, post) -> FormInput:
    """The skill's next version (services.skill_version_create), validated as POST …/versions/ is."""
    body, shown = _body(post, VERSION_FIELDS)
    return _validated_save(shown, SkillVersionInput, body, partial(services.skill_version_create, skill=skill))


def deployment_create_from_form(*, owner, skill: Skill, post) -> FormInput:
    """A deployment of one version of the skill (services.deployment_create), validated as POST
    /api/v1/deployments/ is. The skill comes from the page's URL, already known to be the trader's."""
    version = post.get("version", "").strip()
    shown = {"version": version, "mode": post.get("mode", "")}
    body = {"skill_id": skill.pk, "version": version or None, "mode": shown["mode"]}
    return _validated_save(shown, DeploymentCreateInput, body, partial(services.deployment_create, owner=owner))


# -- how the pages lay the fields out --------------------------------------------------------------

_FIELD_LAYOUT: tuple[tuple[str, str, str, str], ...] = (
    # (name, kind, label, hint)
    ("name", "text", "Name", "one line, at most 100 characters, unique among your skills"),
    ("strategy_text", "textarea", "Strategy", f"what the agent does; at most {models.STRATEGY_TEXT_MAX:,} characters"),
    ("avoid_rules", "textarea", "Avoid rules", f"one rule per line; at most {models.AVOID_RULES_MAX:,} characters"),
    ("memory_enabled", "checkbox", "Memory on", "recent trades, positions, similar situations and the last decision"),
    ("recent_trades_k", "number", "Recent trades shown (K)", "{0}–{1}"),
    ("reflection_cadence", "select", "Reflection", "when lessons are rewritten"),
    ("reflection_every_n_trades", "number", "Reflect every N closed trades", "{0}–{1}; for “every N closed trades”"),
    ("reflection_model_override", "text", "Reflection model", "blank: the service's default; e.g. claude-sonnet-5"),
    ("bars_window", "number", "Bars window", "{0}–{1} bars per symbol"),
    ("manual_enabled", "checkbox", "Manual section on", "your manual and playbooks: the chunks nearest the tick"),
    ("manual_k", "number", "Manual chunks (at most)", "{0}–{1}"),
    ("manual_token_cap", "number", "Manual section token cap", "{0}–{1} estimated tokens"),
)


def form_fields(values: dict[str, object], errors: dict[str, list[str]], *, names) -> list[dict[str, object]]:
    """The fields to render, in order: each with its value as typed and its own errors."""
    shown = []
    for name, kind, label, hint in _FIELD_LAYOUT:
        if name not in names:
            continue
        limits = VERSION_LIMITS.get(name)
        shown.append(
            {
                "name": name,
                "kind": kind,
                "label": label,
                "hint": hint.format(*limits) if isinstance(limits, tuple) else hint,
                "value": values.get(name, ""),
                "errors": errors.get(name, []),
                "choices": models.ReflectionCadence.choices if kind == "select" else (),
            }
        )
    return shown


def avoid_rules_errors(text: str) -> list[str]:
    """What the API would say of these avoid rules (SkillVersionInput's own field), or nothing."""
    try:
        SkillVersionInput().fields["avoid_rules"].run_validation(text)
    except serializers.ValidationError as exc:
        return [str(message) for message in exc.detail]
    return []


def skill_version_from_changes(*, base: SkillVersion, changes: dict[str, object]) -> FormInput:
    """The skill's next version: ``base``'s settings with ``changes`` (API field names, values as a form sends
    them) in place, validated as POST …/versions/ is (services.skill_version_create numbers it latest + 1)."""
    body: dict[str, object] = {name: getattr(base, name) for name in VERSION_FIELDS}
    body.update(changes)
    if isinstance(body.get("avoid_rules"), str):
        body["avoid_rules"] = str(body["avoid_rules"]).replace("\r\n", "\n")
    result = FormInput(values=dict(body))
    data = SkillVersionInput(data=body)
    if not data.is_valid():
        result.errors = flatten_errors(data.errors)
        return result
    try:
        result.saved = services.skill_version_create(skill=base.skill, **data.validated_data)
    except ValidationError as exc:
        result.errors = _errors(exc)
    return result
