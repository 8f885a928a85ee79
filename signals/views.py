"""HTMX pages of analyst memory: /markets/ (the trader's markets) and /markets/{id}/ (each agent's signal
timeline, its chart with the evolution events, and the memory text it gets next time). Pages read through
selectors only."""

from __future__ import annotations

from collections import defaultdict
from decimal import Decimal
from typing import cast
from urllib.parse import urlencode

from django import forms
from django.core.paginator import Paginator
from django.shortcuts import render
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.vary import vary_on_headers
from django_htmx.http import push_url

from memorysite.numbers import format_percent, format_points
from memorysite.pages import bad_request, trader_required, wants_partial
from signals import selectors, services
from signals.memory import CONFIDENCE_CHANGE, DEFAULT_LIMIT, PROBABILITY_SHIFT, format_memory_context
from signals.models import AgentSignal, SignalEvolutionEvent

MARKETS_PAGE_SIZE = 50
BAD_AGENT = (
    "Invalid query parameter “agent”: {value!r} is not an agent with signals on this market."
    " Use one of {choices}, or leave it empty for all agents."
)


@trader_required
def market_list(request):
    page = Paginator(selectors.market_list_with_counts(user=request.user), MARKETS_PAGE_SIZE).get_page(
        request.GET.get("page")
    )
    context = {
        "page": page,
        "newer_url": _list_url(page.previous_page_number()) if page.has_previous() else None,
        "older_url": _list_url(page.next_page_number()) if page.has_next() else None,
    }
    return render(request, "signals/markets.html", context)


def _list_url(page: int) -> str:
    url = reverse("markets")
    return f"{url}?{urlencode({'page': page})}" if page > 1 else url


class AgentFilterForm(forms.Form):
    """The market page's agent filter; choices are the agents with signals on the market. Blank means all."""

    agent = forms.ChoiceField(required=False)

    def __init__(self, data, *, agents: list[str]):
        super().__init__(data)
        self.agents = agents
        cast(forms.ChoiceField, self.fields["agent"]).choices = [("", "all agents"), *((name, name) for name in agents)]

    def error_message(self) -> str:
        choices = ", ".join(self.agents) or "(none yet)"
        return BAD_AGENT.format(value=self.data.get("agent", ""), choices=choices)


def _page_url(market_id: int, agent: str) -> str:
    """The page's canonical URL: the agent only when one is chosen."""
    url = reverse("market", args=[market_id])
    return f"{url}?{urlencode({'agent': agent})}" if agent else url


def _percent(value: Decimal) -> float:
    return round(float(value) * 100, 2)


def _percent_text(value: Decimal) -> str:
    """0.6250 → "62.5", 0.70 → "70": the stored value exactly, without trailing zeros."""
    return f"{(value * 100).normalize():f}"


CHANGE_LABELS = {PROBABILITY_SHIFT: "Fair probability", CONFIDENCE_CHANGE: "Confidence"}


def _event_shown(event: SignalEvolutionEvent) -> dict:
    """An evolution event as the page says it: a change of a percentage from → to, in percentage points
    ("Fair probability 55% → 70% (+15 pp)"). The stored description is the API's, and stays."""
    text = event.description
    if event.type in CHANGE_LABELS:
        before, after = event.previous_value, event.current_value
        change = f"{format_percent(before)} → {format_percent(after)} ({format_points(before, after)})"
        text = f"{CHANGE_LABELS[event.type]} {change}"
    return {"type": event.type, "label": event.get_type_display(), "text": text}


def _chart_point(signal: AgentSignal, events: list[dict]) -> dict:
    """One point of the agent's chart (static/js/charts.js, "signal-lines"): percentages 0–100."""
    return {
        "t": int(signal.created_at.timestamp() * 1000),
        "p": _percent(signal.fair_probability),
        "c": _percent(signal.confidence),
        "direction": signal.direction,
        "events": [{"type": event["type"], "description": event["text"]} for event in events],
    }


@trader_required
@vary_on_headers("HX-Request")  # the same URL answers a partial to htmx and a page otherwise
def market_detail(request, market_id: int):
    market = selectors.market_get(user=request.user, market_id=market_id)
    timeline = selectors.signal_timeline(market=market)  # agent name → signals, oldest first
    form = AgentFilterForm(request.GET, agents=sorted(timeline))
    if not form.is_valid():
        return bad_request(request, form.error_message(), back_url=request.path, back_label="Show all agents")
    agent = form.cleaned_data["agent"]
    names = [agent] if agent else sorted(timeline)

    events_by_signal: dict = defaultdict(list)
    for event in reversed(selectors.evolution_list(market=market, agent=agent or None)):  # oldest first
        events_by_signal[event.signal_id].append(_event_shown(event))

    # What each agent is given the next time it analyses this market: the API's default options.
    memories, degraded = {}, None
    if names:
        outcome = services.memory_for_agents(market=market, agent_names=names, limit=DEFAULT_LIMIT)
        now = timezone.now()
        memories = {name: format_memory_context(memory, now=now) for name, memory in outcome.memories.items()}
        if not outcome.success:
            degraded = outcome.error_type

    agents = []
    for name in names:
        signals = timeline[name]
        rows = [
            {
                "signal": signal,
                "probability_pct": _percent_text(signal.fair_probability),
                "confidence_pct": _percent_text(signal.confidence),
                "events": events_by_signal.get(signal.pk, []),
            }
            for signal in signals
        ]
        agents.append(
            {
                "name": name,
                "agent_type": signals[-1].agent_type,
                "rows": rows,
                "event_count": sum(len(row["events"]) for row in rows),
                "last_signal_at": signals[-1].created_at,
                "memory": memories.get(name),
            }
        )
    context = {
        "market": market,
        "form": form,
        "agent": agent,
        "page_url": reverse("market", args=[market.pk]),
        "agents": agents,
        "agent_count": len(timeline),
        "degraded": degraded,
        "memory_limit": DEFAULT_LIMIT,
        "chart_data": {
            entry["name"]: [_chart_point(row["signal"], row["events"]) for row in entry["rows"]] for entry in agents
        },
    }
    if wants_partial(request):
        response = render(request, "signals/_market_body.html", context)
        return push_url(response, _page_url(market.pk, agent))
    return render(request, "signals/market.html", context)
