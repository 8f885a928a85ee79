"""Trader pages of the ledger. Pages read through selectors only."""

import csv
import datetime as dt
import re
from collections.abc import Iterator
from decimal import Decimal
from typing import cast
from urllib.parse import urlencode

from django import forms
from django.contrib import messages
from django.core.exceptions import ValidationError
from django.core.paginator import Paginator
from django.http import StreamingHttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods, require_POST
from django.views.decorators.vary import vary_on_headers
from django_htmx.http import push_url

from access import scope
from access.middleware import without_transaction
from ledger import forms as forms_input
from ledger import liveness, selectors, services
from ledger.models import DeploymentMode, DeploymentStatus, TradeStatus
from memorysite.pages import (
    bad_request,
    new_key_shown_once,
    new_key_then_redirect,
    rules_broken,
    trader_required,
    wants_partial,
)

JOURNAL_PAGE_SIZE = 50
# "Why did you do this?": the searches (and their citations) the agent made on a trade's entry tick.
WHY_QUERIES_SHOWN = 3
WHY_RESULTS_SHOWN = 5
SORT_DEFAULT = selectors.JOURNAL_SORT_DEFAULT
# The direction a column sorts in when first clicked: names A→Z, numbers and times largest/newest first.
_SORT_FIRST_ASCENDING = {"symbol", "regime"}


@trader_required
def home(request):
    """The trader's deployments, each with its runner's state (ledger.liveness) and today's (UTC) PnL."""
    deployments = list(selectors.deployment_list(user=request.user))
    for deployment in deployments:
        services.materialize_if_behind(deployment)  # today's PnL reads the ledger: catch up as the journal does
    health = selectors.deployment_health(user=request.user, deployments=deployments, now=timezone.now())
    for deployment in deployments:
        deployment.health = health[deployment.pk]
        deployment.runner = _runner_text(deployment.health.liveness)
    context = {
        "deployments": deployments,
        "stale_after_intervals": liveness.STALE_AFTER_INTERVALS,
        "sample": liveness.SAMPLE,
        "min_grace": duration_text(liveness.MIN_GRACE),
        "lone_tick_grace": duration_text(liveness.LONE_TICK_GRACE),
    }
    return render(request, "ledger/home.html", context)


def duration_text(span: dt.timedelta) -> str:
    """A duration as a person says it, to the largest two units: "45 s", "4 min", "2 h 5 min", "3 d 4 h"."""
    seconds = int(span.total_seconds())
    if seconds < 60:
        return f"{seconds} s"
    minutes, hours, days = seconds // 60 % 60, seconds // 3600 % 24, seconds // 86400
    if days:
        return f"{days} d {hours} h" if hours else f"{days} d"
    if hours:
        return f"{hours} h {minutes} min" if minutes else f"{hours} h"
    return f"{minutes} min"


def _runner_text(state: liveness.Liveness) -> dict[str, str]:
    """The runner cell: a label, a short line under it, and the reason in a sentence (its title)."""
    if state.state == "no_ticks" or state.silent_for is None:
        return {"label": "no ticks yet", "short": "", "why": "The runner has not posted a tick."}
    ago = duration_text(state.silent_for)
    usual = duration_text(state.usual_interval) if state.usual_interval is not None else None
    if state.usual_interval is None:
        every = "1 tick so far"
    elif state.usual_interval < dt.timedelta(seconds=1):
        every = "ticks sent in one burst"  # a backfill or a demo: no usual interval to speak of
    else:
        every = f"every {usual}"
    if state.state == "alive":
        why = f"Last tick received {ago} ago; " + (f"usually every {usual}." if usual else "one tick so far.")
        return {"label": "alive", "short": f"{ago} ago · {every}", "why": why}
    stale = duration_text(state.stale_after) if state.stale_after is not None else ""
    times = liveness.STALE_AFTER_INTERVALS
    because = f" ({times} × its usual {usual})." if usual else " after a first tick."
    why = f"No tick for {ago}, more than {stale}{because}"
    return {"label": "quiet", "short": f"silent {ago} · {every}", "why": why}


class TradeFilterForm(forms.Form):
    """The journal's filters and sort; choices come from the deployment's own trades. Blank means "all"."""

    status = forms.ChoiceField(required=False, choices=[("", "all"), *TradeStatus.choices])
    symbol = forms.ChoiceField(required=False)
    regime = forms.ChoiceField(required=False)
    sort = forms.CharField(required=False)

    def __init__(self, data, *, choices: selectors.TradeJournalChoices):
        super().__init__(data)
        cast(forms.ChoiceField, self.fields["symbol"]).choices = [
            ("", "all symbols"),
            *((s, s) for s in choices.symbols),
        ]
        regimes = [*choices.regime_tags, selectors.UNCLASSIFIED]
        cast(forms.ChoiceField, self.fields["regime"]).choices = [("", "all regimes"), *((tag, tag) for tag in regimes)]

    def filters(self) -> dict[str, str]:
        """The valid filter values and sort key; a value that is not a choice (a stale or edited URL) means
        "all", and an unknown sort key the default order."""
        self.is_valid()
        values = {name: self.cleaned_data.get(name, "") for name in self.fields}
        values["sort"] = selectors.journal_sort_key(values["sort"])
        return values


def _selector_filters(filters: dict[str, str]) -> dict[str, str]:
    return {"status": filters["status"], "symbol": filters["symbol"], "regime_tag": filters["regime"]}


def _journal_query(filters: dict[str, str], page: int = 1) -> str:
    """The journal's canonical query: only the filters that are set, a sort other than the default, and
    the page past the first."""
    query: dict[str, str | int] = {
        name: value for name, value in filters.items() if value and not (name == "sort" and value == SORT_DEFAULT)
    }
    if page > 1:
        query["page"] = page
    return urlencode(query)


def _journal_url(deployment_id: int, filters: dict[str, str], page: int = 1) -> str:
    query = _journal_query(filters, page)
    url = reverse("deployment-trades", args=[deployment_id])
    return f"{url}?{query}" if query else url


def _sort_headers(deployment_id: int, filters: dict[str, str]) -> dict[str, dict]:
    """Per sortable column: the URL that sorts by it (the current column flips direction; the filters
    stay, the page goes back to the first) and its aria-sort."""
    current = filters["sort"]
    headers = {}
    for column in selectors.JOURNAL_SORT_COLUMNS:
        if current.removeprefix("-") == column:
            descending = current.startswith("-")
            next_sort = column if descending else f"-{column}"
            state = "descending" if descending else "ascending"
        else:
            next_sort = column if column in _SORT_FIRST_ASCENDING else f"-{column}"
            state = ""
        headers[column] = {"url": _journal_url(deployment_id, {**filters, "sort": next_sort}), "aria_sort": state}
    return headers


def _why(searches, count, *, results_shown: int = WHY_RESULTS_SHOWN) -> dict | None:
    """The entry tick's searches as the journal shows them: the queries given with their first
    `results_shown` citations each; entries not in the recorded shape are skipped."""
    shown = []
    for search in searches if isinstance(searches, list) else []:
        if not isinstance(search, dict) or not isinstance(search.get("query"), str):
            continue
        results = search.get("results") if isinstance(search.get("results"), list) else []
        citations = [result for result in results if isinstance(result, dict)]
        shown.append(
            {
                "query": search["query"],
                "results": citations[:results_shown],
                "more": max(0, len(citations) - results_shown),
            }
        )
    if not shown:
        return None
    total = count if isinstance(count, int) else len(shown)
    return {"searches": shown, "more": max(0, total - len(shown))}


@trader_required
@vary_on_headers("HX-Request")  # the same URL answers a partial to htmx and a page otherwise
def deployment_trades(request, deployment_id: int):
    """The journal. The filters drive everything below them (summary cards, both charts, the rows and the
    CSV link), so htmx swaps all of it (_journal_results.html) when a filter or the sort changes."""
    deployment = selectors.deployment_get(user=request.user, deployment_id=deployment_id)
    services.materialize_if_behind(deployment)
    form = TradeFilterForm(request.GET, choices=selectors.trade_journal_choices(deployment=deployment))
    filters = form.filters()
    narrowed = _selector_filters(filters)
    trades = selectors.trade_journal_list(
        deployment=deployment, **narrowed, sort=filters["sort"], searches_shown=WHY_QUERIES_SHOWN
    )
    page = Paginator(trades, JOURNAL_PAGE_SIZE).get_page(request.GET.get("page"))
    for trade in page:
        trade.why = _why(trade.entry_searches, trade.entry_search_count)
    by_regime = selectors.trade_pnl_by_regime(deployment=deployment, **narrowed)
    cumulative = selectors.trade_cumulative_pnl(deployment=deployment, **narrowed)
    export_query = _journal_query(filters)
    export_url = reverse("deployment-trades-csv", args=[deployment.pk])
    context = {
        "deployment": deployment,
        "form": form,
        "filters": filters,
        "filtered": any(filters[name] for name in ("status", "symbol", "regime")),
        "sort_headers": _sort_headers(deployment.pk, filters),
        "page": page,
        "newer_url": _journal_url(deployment.pk, filters, page.previous_page_number()) if page.has_previous() else None,
        "older_url": _journal_url(deployment.pk, filters, page.next_page_number()) if page.has_next() else None,
        "export_url": f"{export_url}?{export_query}" if export_query else export_url,
        "journal_here": _journal_url(deployment.pk, filters, page.number),  # a trade's detail links back here
        "summary": selectors.trade_journal_summary(deployment=deployment, **narrowed),
        "chart_data": {
            "cumulative": [[int(exit_at.timestamp() * 1000), float(pnl)] for exit_at, pnl in cumulative],
            "by_regime": [
                {
                    "tag": row.regime_tag or selectors.UNCLASSIFIED,
                    "trades": row.trades,
                    "pnl": float(row.realized_pnl_usd),
                }
                for row in by_regime
            ],
        },
    }
    if wants_partial(request):
        response = render(request, "ledger/_journal_results.html", context)
        return push_url(response, _journal_url(deployment.pk, filters, page.number))
    return render(request, "ledger/trades.html", context)


# -- trade detail ("why did you do this?") ---------------------------------------------------------

DETAIL_SEARCHES_SHOWN = 20
DETAIL_RESULTS_SHOWN = 10


def _tick_ops(snapshot, symbol: str) -> list[dict] | None:
    """The ops a tick applied to `symbol`'s trades (what opened or closed this one, a flip's other half,
    the mark-to-market update), each as {op, fields}; None when the tick is not materialized."""
    if snapshot is None or not isinstance(snapshot.materialized_ops, list):
        return None
    shown = []
    for op in snapshot.materialized_ops:
        if isinstance(op, dict) and op.get("symbol") == symbol:
            fields = {name: _plain_if_decimal(value) for name, value in op.items() if name not in {"op", "symbol"}}
            shown.append({"op": op.get("op", "?"), "fields": fields})
    return shown


_DECIMAL_TEXT = re.compile(r"-?\d+\.\d+")


def _plain_if_decimal(value):
    """An op's decimal field (stored as text at full scale, "100.000000000000") as a person reads it ("100")."""
    return _plain(Decimal(value)) if isinstance(value, str) and _DECIMAL_TEXT.fullmatch(value) else value


def _bars_summary(snapshot, symbol: str) -> dict | None:
    """The bars the entry tick carried for the trade's symbol: how many, first and last close, the change."""
    bars = snapshot.bars.get(symbol) if snapshot is not None and isinstance(snapshot.bars, dict) else None
    if not isinstance(bars, list) or not bars:
        return None
    closes = [bar.get("c") for bar in bars if isinstance(bar, dict)]
    try:
        first, last = Decimal(str(closes[0])), Decimal(str(closes[-1]))
    except (IndexError, ArithmeticError, ValueError):
        return {"count": len(bars)}
    change = (last - first) * 100 / first if first else None
    return {"count": len(bars), "first": _plain(first, places=8), "last": _plain(last, places=8), "change_pct": change}


@trader_required
def deployment_trade(request, deployment_id: int, trade_id):
    """One trade: what the agent saw and proposed on the tick that opened it, the recall searches it made
    (with their citations), and the ledger ops of the ticks that opened and closed it."""
    deployment = selectors.deployment_get(user=request.user, deployment_id=deployment_id)
    services.materialize_if_behind(deployment)
    trade = selectors.trade_get(deployment=deployment, trade_id=trade_id)
    entry, exit_ = trade.entry_snapshot, trade.exit_snapshot
    citations = entry.citations if entry is not None else None
    why = _why(
        citations[:DETAIL_SEARCHES_SHOWN] if isinstance(citations, list) else None,
        len(citations) if isinstance(citations, list) else None,
        results_shown=DETAIL_RESULTS_SHOWN,
    )
    context = {
        "deployment": deployment,
        "trade": trade,
        "entry": entry,
        "exit": exit_,
        "entry_action": entry.proposed_action
        if entry is not None and isinstance(entry.proposed_action, dict)
        else None,
        "entry_engine": entry.engine if entry is not None and isinstance(entry.engine, dict) else None,
        "exit_action": exit_.proposed_action if exit_ is not None and isinstance(exit_.proposed_action, dict) else None,
        "entry_ops": _tick_ops(entry, trade.symbol),
        "exit_ops": _tick_ops(exit_, trade.symbol),
        "bars": _bars_summary(entry, trade.symbol),
        "why": why,
        "served": selectors.served_context_before_entry(trade=trade),
        "journal_url": request.GET.get("back") if _is_journal_url(request.GET.get("back"), deployment.pk) else None,
    }
    return render(request, "ledger/trade.html", context)


def _is_journal_url(url: str | None, deployment_id: int) -> bool:
    """Whether `url` is this deployment's journal (a local path, any query): the detail's way back."""
    journal = reverse("deployment-trades", args=[deployment_id])
    return bool(url) and (url == journal or url.startswith(journal + "?"))


# -- CSV export ------------------------------------------------------------------------------------

EXPORT_CHUNK = 500  # trades read per short transaction while the CSV streams
EXPORT_COLUMNS = (
    "trade_id",
    "symbol",
    "side",
    "status",
    "entry_at_utc",
    "entry_price",
    "entry_size_usd",
    "entry_leverage",
    "exit_at_utc",
    "exit_price",
    "exit_price_carried",
    "realized_pnl_usd",
    "realized_pnl_pct",
    "open_pnl_usd",
    "fees_usd",
    "holding_minutes",
    "mfe_usd",
    "mae_usd",
    "regime_tag",
    "skill_version",
    "lessons_hash",
    "entry_reason",
    "exit_reason",
)
# A spreadsheet runs a cell starting with one of these as a formula: the agent writes the reasons.
_FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


class _Echo:
    """csv.writer's file: hands each written line back instead of buffering it."""

    def write(self, value: str) -> str:
        return value


def _plain(value: Decimal | None, places: int | None = None) -> str:
    """A number as a spreadsheet reads it: no exponent, no separators, no trailing zeros ("" for none)."""
    if value is None:
        return ""
    if places is not None:
        value = value.quantize(Decimal(1).scaleb(-places))
    text = format(value, "f")
    return text.rstrip("0").rstrip(".") if "." in text else text


def _utc(moment) -> str:
    return moment.astimezone(dt.UTC).isoformat().replace("+00:00", "Z") if moment else ""


def _text(value: str | None) -> str:
    value = value or ""
    return f"'{value}" if value.startswith(_FORMULA_STARTS) else value


def _export_row(trade) -> list[str]:
    return [
        str(trade.pk),
        _text(trade.symbol),
        trade.side,
        trade.status,
        _utc(trade.entry_tick_at),
        _plain(trade.entry_price),
        _plain(trade.entry_size_usd),
        _plain(trade.entry_leverage),
        _utc(trade.exit_tick_at),
        _plain(trade.exit_price),
        ("true" if trade.exit_price_carried else "false") if trade.exit_tick_at else "",
        _plain(trade.realized_pnl_usd),
        _plain(trade.realized_pnl_pct, places=4),
        _plain(trade.open_pnl_usd),
        _plain(trade.fees_usd),
        _plain(trade.holding_minutes),
        _plain(trade.mfe_usd),
        _plain(trade.mae_usd),
        _text(trade.entry_regime_tag),
        str(trade.skill_version),
        trade.entry_lessons_hash or "",
        _text(trade.entry_reason),
        _text(trade.exit_reason),
    ]


def _export_lines(user, trade_ids: list) -> Iterator[str]:
    """The CSV, a header then EXPORT_CHUNK trades at a time: each chunk is read in a short transaction of
    its own, in the trader's scope, so no transaction stays open while a slow client reads the file."""
    writer = csv.writer(_Echo())
    yield writer.writerow(EXPORT_COLUMNS)
    for start in range(0, len(trade_ids), EXPORT_CHUNK):
        with scope.owner_scope(user):
            rows = selectors.trade_export_rows(user=user, trade_ids=trade_ids[start : start + EXPORT_CHUNK])
        yield "".join(writer.writerow(_export_row(trade)) for trade in rows)


@without_transaction  # the answer streams after the view returns: it reads in transactions of its own
@trader_required
def deployment_trades_csv(request, deployment_id: int):
    """The journal's filtered trades as CSV, in the journal's order: times in UTC (ISO 8601), money and
    prices as plain decimals in USD, one header row."""
    with scope.owner_scope(request.user):
        deployment = selectors.deployment_get(user=request.user, deployment_id=deployment_id)
        services.materialize_if_behind(deployment)
        form = TradeFilterForm(request.GET, choices=selectors.trade_journal_choices(deployment=deployment))
        filters = form.filters()
        narrowed = _selector_filters(filters)
        trade_ids = selectors.trade_export_ids(deployment=deployment, **narrowed, sort=filters["sort"])
    response = StreamingHttpResponse(_export_lines(request.user, trade_ids), content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="deployment-{deployment.pk}-trades.csv"'
    return response


# -- runner tokens -------------------------------------------------------------------------------


@trader_required
@never_cache  # the answer to a create holds the key: no cache may keep it
@require_http_methods(["GET", "POST"])
def runner_tokens(request, deployment_id: int):
    """The deployment's runner tokens; a POST creates one and redirects here, where its key is shown once."""
    deployment = selectors.deployment_get(user=request.user, deployment_id=deployment_id)
    page = reverse("deployment-runner-tokens", args=[deployment.pk])
    if request.method == "POST":
        name = request.POST.get("name", "").strip()
        back = {"back_url": page, "back_label": "Runner tokens"}
        if not name:
            return bad_request(request, "name: must not be blank", **back)
        try:
            token, key = services.runner_token_create(deployment=deployment, name=name)
        except ValidationError as exc:
            return bad_request(request, rules_broken(exc), **back)
        return new_key_then_redirect(request, page, name=token.name, key=key)
    created = new_key_shown_once(request)
    tokens = selectors.runner_token_list(user=request.user, deployment=deployment)
    context = {"deployment": deployment, "tokens": tokens, "created": created}
    return render(request, "ledger/runner_tokens.html", context)


@trader_required
@require_POST
def runner_token_revoke(request, deployment_id: int, token_id: int):
    deployment = selectors.deployment_get(user=request.user, deployment_id=deployment_id)
    token = selectors.runner_token_get(user=request.user, deployment=deployment, token_id=token_id)
    services.runner_token_revoke(token=token, now=timezone.now())
    return redirect("deployment-runner-tokens", deployment_id=deployment.pk)


# -- skills and deployments: the API's writes, from the pages (ledger.forms) ---------------------

SKILL_CREATED = "Created skill {name} with its version 1."
VERSION_SAVED = "Saved {name} v{version}. Deployments keep the version they run; deploy v{version} to use it."
DEPLOYED = "Deployed {name} v{version} as deployment #{id} ({mode})."
PAUSED = "Paused deployment #{id}."
RESUMED = "Resumed deployment #{id}."


def _version_form_context(values: dict, errors: dict, *, with_name: bool) -> dict:
    names = ("name", *forms_input.VERSION_FIELDS) if with_name else forms_input.VERSION_FIELDS
    fields = forms_input.form_fields(values, errors, names=names)
    known = {name for name in names}
    other_errors = [f"{name}: {', '.join(rules)}" for name, rules in errors.items() if name not in known]
    return {"fields": fields, "other_errors": other_errors}


@trader_required
def skills(request):
    return render(request, "ledger/skills.html", {"skills": selectors.skill_list(user=request.user)})


@trader_required
@require_http_methods(["GET", "POST"])
def skill_new(request):
    """GET: an empty skill form (the API's defaults). POST: the skill and its version 1, or the form again
    with each error under its field and everything typed kept."""
    if request.method == "POST":
        result = forms_input.skill_create_from_form(owner=request.user, post=request.POST)
        if result.saved is not None:
            messages.success(request, SKILL_CREATED.format(name=result.saved.name))
            return redirect("skill", skill_id=result.saved.pk)
        values, errors = result.values, result.errors
    else:
        values, errors = {"name": "", **forms_input.version_values(None)}, {}
    context = {"skill": None, **_version_form_context(values, errors, with_name=True)}
    return render(request, "ledger/skill_form.html", context)


@trader_required
@require_http_methods(["GET", "POST"])
def skill_edit(request, skill_id: int):
    """GET: the latest version's settings to edit. POST: saved as the next version (never in place)."""
    skill = selectors.skill_get(user=request.user, skill_id=skill_id)
    latest = selectors.skill_latest_version(skill=skill)
    if request.method == "POST":
        result = forms_input.skill_version_from_form(skill=skill, post=request.POST)
        if result.saved is not None:
            messages.success(request, VERSION_SAVED.format(name=skill.name, version=result.saved.version))
            return redirect("skill", skill_id=skill.pk)
        values, errors = result.values, result.errors
    else:
        values, errors = forms_input.version_values(latest), {}
    context = {"skill": skill, "latest": latest, **_version_form_context(values, errors, with_name=False)}
    return render(request, "ledger/skill_form.html", context)


def _skill_page(request, skill, *, deploy_values: dict | None = None, deploy_errors: dict | None = None):
    versions = list(selectors.skill_version_list(user=request.user, skill_id=skill.pk))
    latest = versions[0] if versions else None
    context = {
        "skill": skill,
        "latest": latest,
        "versions": versions,
        "deployments": selectors.skill_deployments(user=request.user, skill=skill),
        "modes": DeploymentMode.choices,
        "deploy_values": deploy_values or {"version": latest.version if latest else "", "mode": DeploymentMode.SIM},
        "deploy_errors": deploy_errors or {},
    }
    return render(request, "ledger/skill.html", context)


@trader_required
def skill(request, skill_id: int):
    return _skill_page(request, selectors.skill_get(user=request.user, skill_id=skill_id))


@trader_required
@require_POST
def skill_deploy(request, skill_id: int):
    """A deployment of one of the skill's versions; errors go back under the deploy form's fields."""
    skill = selectors.skill_get(user=request.user, skill_id=skill_id)
    result = forms_input.deployment_create_from_form(owner=request.user, skill=skill, post=request.POST)
    if result.saved is None:
        return _skill_page(request, skill, deploy_values=result.values, deploy_errors=result.errors)
    deployment = result.saved
    version = deployment.skill_version.version
    messages.success(request, DEPLOYED.format(name=skill.name, version=version, id=deployment.pk, mode=deployment.mode))
    return redirect("skill", skill_id=skill.pk)


def _back(request, fallback: str) -> str:
    """Where a pause or resume returns: the page it was pressed on (only a path of this site)."""
    target = request.POST.get("next", "")
    safe = target.startswith("/") and url_has_allowed_host_and_scheme(target, allowed_hosts={request.get_host()})
    return target if safe else fallback


def _deployment_status_set(request, deployment_id: int, status: str, message: str):
    deployment = selectors.deployment_get(user=request.user, deployment_id=deployment_id)
    services.deployment_status_set(deployment=deployment, status=status)
    messages.success(request, message.format(id=deployment.pk))
    return redirect(_back(request, reverse("home")))


@trader_required
@require_POST
def deployment_pause(request, deployment_id: int):
    return _deployment_status_set(request, deployment_id, DeploymentStatus.STOPPED, PAUSED)


@trader_required
@require_POST
def deployment_resume(request, deployment_id: int):
    return _deployment_status_set(request, deployment_id, DeploymentStatus.RUNNING, RESUMED)
