"""The chat coach's tools (ADR-0020): JSON-schema definitions and owner-scoped handlers.

One registry serves the Anthropic tool-use loop (``/api/v1/chat/``) and the REST surface for
external agents (``/api/v1/chat/tools/{name}/``). Each tool validates its input with a strict
serializer (unknown fields, wrong types and out-of-range values are refused, naming the field),
then runs for one trader: another trader's skill, deployment or fact is "not found", exactly
like one that does not exist.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal

from django.core.exceptions import ValidationError as DjangoValidationError
from rest_framework import serializers

from chatmemory import selectors as fact_selectors
from chatmemory import services as fact_services
from chatmemory.events import upcoming_events
from chatmemory.facts import FACT_MAX_CHARS, TOPIC_MAX_CHARS
from chatmemory.models import ArchivedReason, EventKind, FactConfidence, FactSource
from chatmemory.performance import DailyPnl, summarize
from chatmemory.tool_errors import ToolInputError, ToolNotFound, ToolObjectNotFound
from ledger import selectors as ledger_selectors
from memorysite.api import StrictSerializer, bounded_int, choice, flatten_errors, text
from memorysite.text import strip_invisible_json
from reflection import selectors as reflection_selectors

MAX_TOOLS = 16  # ADR-0020's ceiling for the chat registry
RECENT_TRADES = 30
MAX_DEPLOYMENTS = 20


@dataclass(frozen=True)
class Tool:
    name: str
    description: str
    input_schema: dict
    serializer: type[serializers.Serializer]
    handler: Callable[..., dict]

    def definition(self) -> dict:
        """The tool as the Anthropic Messages API takes it."""
        return {"name": self.name, "description": self.description, "input_schema": self.input_schema}


def _usd(value: Decimal | None) -> float | None:
    return None if value is None else float(round(value, 2))


def _time(value: dt.datetime | None) -> str | None:
    return None if value is None else value.astimezone(dt.UTC).isoformat().replace("+00:00", "Z")


def _schema(serializer: type[serializers.Serializer], properties: dict, required: tuple[str, ...] = ()) -> dict:
    """A tool's JSON-schema input: the types and limits given here, each property's description the help_text of
    the input serializer's field (one text for the coach, REST and MCP clients; a field without one is an error)."""
    fields = serializer().fields
    described = {}
    for name, schema in properties.items():
        help_text = fields[name].help_text
        if not help_text:
            raise RuntimeError(f"{serializer.__name__}.{name} has no help_text: a tool's input describes every field")
        described[name] = {**schema, "description": str(help_text)}
    return {"type": "object", "properties": described, "required": list(required), "additionalProperties": False}


# -- trading memory: rows as the coach reads them ------------------------------------------------------


def _trade_row(trade) -> dict:
    return {
        "deployment_id": trade.deployment_id,
        "symbol": trade.symbol,
        "side": trade.side,
        "entry_tick_at": _time(trade.entry_tick_at),
        "exit_tick_at": _time(trade.exit_tick_at),
        "entry_price": float(trade.entry_price),
        "exit_price": float(trade.exit_price),
        "entry_size_usd": _usd(trade.entry_size_usd),
        "realized_pnl_usd": _usd(trade.realized_pnl_usd),
        "fees_usd": _usd(trade.fees_usd),
        "mfe_usd": _usd(trade.mfe_usd),
        "mae_usd": _usd(trade.mae_usd),
        "holding_minutes": float(trade.holding_minutes),
        "regime": trade.entry_regime_tag,
        "entry_reason": trade.entry_reason,
        "exit_reason": trade.exit_reason,
    }


def _lessons_row(note) -> dict:
    return {
        "deployment_id": note.deployment_id,
        "skill_version": note.skill_version,
        "lessons_text": note.lessons_text,
        "window_start": _time(note.window_start),
        "window_end": _time(note.window_end),
        "trades_considered": note.trades_considered,
        "generated_at": _time(note.generated_at),
        "content_hash": note.content_hash,
    }


def _summary(skill) -> dict:
    summary = summarize([DailyPnl(*row) for row in ledger_selectors.daily_pnl_rows(skill=skill)])
    return {
        "closed_trades": summary.n_closed,
        "realized_pnl_usd": _usd(summary.realized_pnl_usd),
        "win_rate": None if summary.win_rate is None else round(summary.win_rate, 4),
        "sharpe": None if summary.sharpe is None else round(summary.sharpe, 3),
        "max_drawdown_usd": _usd(summary.max_drawdown_usd),
        "first_day": summary.first_day.isoformat() if summary.first_day else None,
        "last_day": summary.last_day.isoformat() if summary.last_day else None,
        "definitions": "PnL before fees; win rate = PnL > 0; Sharpe of daily PnL x sqrt(365); "
        "drawdown of cumulative PnL at day ends",
    }


def _recent_trades(*, skill=None, deployment=None) -> list[dict]:
    trades = ledger_selectors.recent_closed_trades(limit=RECENT_TRADES, skill=skill, deployment=deployment)
    return [_trade_row(trade) for trade in trades]


# -- get_skill_performance --------------------------------------------------------------------------

PERFORMANCE_DETAILS = ("summary", "trades", "lessons", "full")


class SkillPerformanceInput(StrictSerializer):
    skill_id = bounded_int(1, help_text="The skill's id (`skill_id` in `get_my_deployments`, `id` in `list_skills`).")
    detail = choice(
        PERFORMANCE_DETAILS,
        required=False,
        default="summary",
        help_text="What to return: `summary` (the default), `trades`, `lessons` or `full` (all three).",
    )


def get_skill_performance(user, *, skill_id: int, detail: str) -> dict:
    skill = ledger_selectors.skill_find(user=user, skill_id=skill_id)
    if skill is None:
        raise ToolObjectNotFound("skill_id", "skill")
    result: dict = {"skill_id": skill.pk, "name": skill.name}
    if detail in ("summary", "full"):
        result["summary"] = _summary(skill)
    if detail in ("trades", "full"):
        result["trades"] = _recent_trades(skill=skill)
    if detail in ("lessons", "full"):
        result["lessons"] = [_lessons_row(note) for note in reflection_selectors.active_skill_notes(skill=skill)]
    return result


# -- get_my_deployments -----------------------------------------------------------------------------

DEPLOYMENT_DETAILS = ("list", "trades", "lessons", "full")


class MyDeploymentsInput(StrictSerializer):
    deployment_id = bounded_int(1, required=False, help_text="Only this deployment; omitted: the 20 most recent.")
    detail = choice(
        DEPLOYMENT_DETAILS,
        required=False,
        default="list",
        help_text="What to return: `list` (the default), `trades`, `lessons` or `full` (all three).",
    )


def get_my_deployments(user, *, detail: str, deployment_id: int | None = None) -> dict:
    deployments = ledger_selectors.deployment_list(user=user)
    if deployment_id is not None:
        deployments = deployments.filter(pk=deployment_id)
        if not deployments.exists():
            raise ToolObjectNotFound("deployment_id", "deployment")
    listed = list(deployments[:MAX_DEPLOYMENTS])
    ids = [d.pk for d in listed]
    totals = ledger_selectors.pnl_totals(user=user, deployment_ids=ids)
    open_counts = ledger_selectors.open_trade_counts(user=user, deployment_ids=ids)
    rows = []
    for deployment in listed:
        total = totals.get(deployment.pk)
        n_closed = total.n_closed if total else 0
        row = {
            "deployment_id": deployment.pk,
            "skill_id": deployment.skill_version.skill_id,
            "skill": deployment.skill_version.skill.name,
            "skill_version": deployment.skill_version.version,
            "mode": deployment.mode,
            "status": deployment.status,
            "latest_tick_at": _time(deployment.latest_tick_at),
            "closed_trades": n_closed,
            "realized_pnl_usd": _usd(total.realized_pnl_usd if total else Decimal(0)),
            "win_rate": round(total.n_wins / n_closed, 4) if total and n_closed else None,
            "open_positions": open_counts.get(deployment.pk, 0),
        }
        if detail in ("trades", "full"):
            row["trades"] = _recent_trades(deployment=deployment)
        if detail in ("lessons", "full"):
            note = reflection_selectors.active_note(deployment=deployment)
            row["lessons"] = _lessons_row(note) if note else None
        rows.append(row)
    return {"deployments": rows, "truncated": deployments.count() > len(listed)}


# -- get_upcoming_events ------------------------------------------------------------------------------


class UpcomingEventsInput(StrictSerializer):
    lookaheadHours = bounded_int(
        1, 72, required=False, default=24, help_text="How many hours ahead to look, from now (1-72, default 24)."
    )
    types = serializers.ListField(
        child=choice(EventKind.values),
        required=False,
        max_length=len(EventKind.values),
        help_text="Only these kinds of event; omitted: every kind.",
    )
    symbols = serializers.ListField(
        child=text(max_length=32),
        required=False,
        max_length=50,
        help_text="Only events on these symbols (at most 50); omitted: every symbol.",
    )
    minImportance = serializers.FloatField(
        min_value=0,
        max_value=1,
        required=False,
        default=0.4,
        help_text="Leave out events less important than this (0 = minor .. 1 = market-moving; default 0.4).",
    )
    deploymentId = bounded_int(
        1,
        required=False,
        help_text="One of your deployments: adds `your_exposure` for its open positions.",
    )


def get_upcoming_events(user, **params) -> dict:
    return upcoming_events(user=user, **params)


# -- remember / forget --------------------------------------------------------------------------------


class RememberInput(StrictSerializer):
    fact = serializers.CharField(
        max_length=FACT_MAX_CHARS + 1000,
        trim_whitespace=False,
        help_text=f"The fact in one sentence about the trader (4-{FACT_MAX_CHARS} characters).",
    )
    topic = serializers.CharField(
        max_length=TOPIC_MAX_CHARS + 100,
        required=False,
        allow_null=True,
        help_text="What it is about, e.g. risk, symbols; omitted: none.",
    )
    confidence = choice(
        FactConfidence.values,
        required=False,
        default=FactConfidence.INFERRED,
        help_text="`asserted` when the trader said it, `inferred` (the default) when you concluded it.",
    )


def remember(user, *, fact: str, confidence: str, topic: str | None = None) -> dict:
    try:
        row = fact_services.fact_create(
            owner=user, fact=fact, topic=topic, confidence=confidence, source=FactSource.CHAT
        )
    except DjangoValidationError as exc:
        raise ToolInputError(exc.message_dict) from exc
    return {"id": str(row.pk)}


class ForgetInput(StrictSerializer):
    fact_id = text(max_length=36, help_text="The fact's id, or the 8-character reference shown as (fact …).")
    reason = choice(
        ArchivedReason.values,
        required=False,
        default=ArchivedReason.AGENT_FORGET,
        help_text="Why it goes: `user_deleted`, `user_corrected` (the trader said it is wrong) or `agent_forget` "
        "(the default: you judged it outdated).",
    )


def forget(user, *, fact_id: str, reason: str) -> dict:
    row = fact_selectors.fact_by_ref(user=user, ref=fact_id)
    if row is None:
        raise ToolObjectNotFound("fact_id", "fact")
    try:
        fact_services.fact_archive(fact=row, reason=reason)
    except DjangoValidationError as exc:
        raise ToolInputError(exc.message_dict) from exc
    return {"id": str(row.pk), "archived": True}


# -- the registry ------------------------------------------------------------------------------------

_DETAIL = {"type": "string"}

TOOLS: dict[str, Tool] = {
    tool.name: tool
    for tool in (
        Tool(
            "get_skill_performance",
            "Performance of one of the trader's skills across its deployments. detail: summary (default: realized "
            "PnL, Sharpe, max drawdown, win rate), trades (last 30 closed trades with entry, exit, PnL, MFE/MAE, "
            "regime tag, reasons), lessons (active lessons text with its window and trades considered), full (all).",
            _schema(
                SkillPerformanceInput,
                {
                    "skill_id": {"type": "integer", "minimum": 1},
                    "detail": {**_DETAIL, "enum": list(PERFORMANCE_DETAILS), "default": "summary"},
                },
                ("skill_id",),
            ),
            SkillPerformanceInput,
            get_skill_performance,
        ),
        Tool(
            "get_my_deployments",
            "The trader's deployments (most recent 20; one with deployment_id). detail: list (default: status, "
            "mode, PnL, open positions), trades (plus each one's last 30 closed trades), lessons (plus the active "
            "lessons), full (all).",
            _schema(
                MyDeploymentsInput,
                {
                    "deployment_id": {"type": "integer", "minimum": 1},
                    "detail": {**_DETAIL, "enum": list(DEPLOYMENT_DETAILS), "default": "list"},
                },
            ),
            MyDeploymentsInput,
            get_my_deployments,
        ),
        Tool(
            "get_upcoming_events",
            "Scheduled market events (CPI, FOMC, NFP, earnings, token unlocks...) in the next hours. With "
            "deploymentId, adds your_exposure: for each open position and upcoming event on its symbol, how many "
            "similar past events there are and the median absolute and worst signed price move around them "
            "(negative = bad for the position's direction; null medians with fewer than 3 past events).",
            _schema(
                UpcomingEventsInput,
                {
                    "lookaheadHours": {"type": "integer", "minimum": 1, "maximum": 72, "default": 24},
                    "types": {"type": "array", "items": {"type": "string", "enum": EventKind.values}},
                    "symbols": {"type": "array", "items": {"type": "string", "maxLength": 32}, "maxItems": 50},
                    "minImportance": {"type": "number", "minimum": 0, "maximum": 1, "default": 0.4},
                    "deploymentId": {"type": "integer", "minimum": 1},
                },
            ),
            UpcomingEventsInput,
            get_upcoming_events,
        ),
        Tool(
            "remember",
            "Remember a durable fact about the trader (preferences, risk tolerance, goals, recurring constraints). "
            "Returns its id. Not for ephemeral information.",
            _schema(
                RememberInput,
                {
                    "fact": {"type": "string", "minLength": 4, "maxLength": FACT_MAX_CHARS},
                    "topic": {"type": "string", "maxLength": TOPIC_MAX_CHARS},
                    "confidence": {"type": "string", "enum": FactConfidence.values, "default": "inferred"},
                },
                ("fact",),
            ),
            RememberInput,
            remember,
        ),
        Tool(
            "forget",
            "Archive a fact about the trader that is wrong or outdated, by the reference shown after it in "
            "'What I know about you' (fact 1a2b3c4d) or its full id.",
            _schema(
                ForgetInput,
                {
                    "fact_id": {"type": "string"},
                    "reason": {"type": "string", "enum": ArchivedReason.values, "default": "agent_forget"},
                },
                ("fact_id",),
            ),
            ForgetInput,
            forget,
        ),
    )
}
if len(TOOLS) > MAX_TOOLS:
    raise RuntimeError(f"the chat registry holds {len(TOOLS)} tools; ADR-0020 caps it at {MAX_TOOLS}")


def tool_definitions() -> list[dict]:
    return [tool.definition() for tool in TOOLS.values()]


def call_tool(user, name: str, raw_input) -> dict:
    """Validate `raw_input` for tool `name` and run it for `user`.

    Raises ToolNotFound for an unknown name and ToolInputError naming the fields for bad input
    (including another trader's object, reported as not found); nothing is written then. The result
    goes to an agent (the coach, REST, MCP): its text carries no invisible characters."""
    tool = TOOLS.get(name)
    if tool is None:
        raise ToolNotFound(name)
    if not isinstance(raw_input, dict):
        raise ToolInputError({"input": ["must be a JSON object"]})
    serializer = tool.serializer(data=raw_input)
    if not serializer.is_valid():
        raise ToolInputError(flatten_errors(serializer.errors))
    return strip_invisible_json(tool.handler(user, **serializer.validated_data))
