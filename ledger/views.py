"""Trader pages of the ledger. Pages read through selectors only."""

from typing import cast
from urllib.parse import urlencode

from django import forms
from django.core.exceptions import ValidationError
from django.core.paginator import Paginator
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods, require_POST
from django.views.decorators.vary import vary_on_headers
from django_htmx.http import push_url

from ledger import selectors, services
from ledger.models import TradeStatus
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


@trader_required
def home(request):
    deployments = selectors.deployment_list(user=request.user)
    return render(request, "ledger/home.html", {"deployments": deployments})


class TradeFilterForm(forms.Form):
    """The journal's filters; choices come from the deployment's own trades. Blank means "all"."""

    status = forms.ChoiceField(required=False, choices=[("", "all"), *TradeStatus.choices])
    symbol = forms.ChoiceField(required=False)
    regime = forms.ChoiceField(required=False)

    def __init__(self, data, *, choices: selectors.TradeJournalChoices):
        super().__init__(data)
        cast(forms.ChoiceField, self.fields["symbol"]).choices = [
            ("", "all symbols"),
            *((s, s) for s in choices.symbols),
        ]
        regimes = [*choices.regime_tags, selectors.UNCLASSIFIED]
        cast(forms.ChoiceField, self.fields["regime"]).choices = [("", "all regimes"), *((tag, tag) for tag in regimes)]

    def filters(self) -> dict[str, str]:
        """The valid filter values; a value that is not a choice (a stale or edited URL) means "all"."""
        self.is_valid()
        return {name: self.cleaned_data.get(name, "") for name in self.fields}


def _journal_url(deployment_id: int, filters: dict[str, str], page: int = 1) -> str:
    """The journal's canonical URL: only the filters that are set, and the page past the first."""
    query = {name: value for name, value in filters.items() if value}
    if page > 1:
        query["page"] = page
    url = reverse("deployment-trades", args=[deployment_id])
    return f"{url}?{urlencode(query)}" if query else url


def _why(searches, count) -> dict | None:
    """The entry tick's searches as the journal shows them: at most WHY_QUERIES_SHOWN queries with their
    first WHY_RESULTS_SHOWN citations each; entries not in the recorded shape are skipped."""
    shown = []
    for search in searches if isinstance(searches, list) else []:
        if not isinstance(search, dict) or not isinstance(search.get("query"), str):
            continue
        results = search.get("results") if isinstance(search.get("results"), list) else []
        citations = [result for result in results if isinstance(result, dict)]
        shown.append(
            {
                "query": search["query"],
                "results": citations[:WHY_RESULTS_SHOWN],
                "more": max(0, len(citations) - WHY_RESULTS_SHOWN),
            }
        )
    if not shown:
        return None
    total = count if isinstance(count, int) else len(shown)
    return {"searches": shown, "more": max(0, total - len(shown))}


@trader_required
@vary_on_headers("HX-Request")  # the same URL answers a partial to htmx and a page otherwise
def deployment_trades(request, deployment_id: int):
    deployment = selectors.deployment_get(user=request.user, deployment_id=deployment_id)
    services.materialize_if_behind(deployment)
    form = TradeFilterForm(request.GET, choices=selectors.trade_journal_choices(deployment=deployment))
    filters = form.filters()
    trades = selectors.trade_journal_list(
        deployment=deployment,
        status=filters["status"],
        symbol=filters["symbol"],
        regime_tag=filters["regime"],
        searches_shown=WHY_QUERIES_SHOWN,
    )
    page = Paginator(trades, JOURNAL_PAGE_SIZE).get_page(request.GET.get("page"))
    for trade in page:
        trade.why = _why(trade.entry_searches, trade.entry_search_count)
    context = {
        "deployment": deployment,
        "form": form,
        "filters": filters,
        "page": page,
        "newer_url": _journal_url(deployment.pk, filters, page.previous_page_number()) if page.has_previous() else None,
        "older_url": _journal_url(deployment.pk, filters, page.next_page_number()) if page.has_next() else None,
    }
    if wants_partial(request):
        response = render(request, "ledger/_trade_rows.html", context)
        return push_url(response, _journal_url(deployment.pk, filters, page.number))

    summary = selectors.trade_journal_summary(deployment=deployment)
    by_regime = selectors.trade_pnl_by_regime(deployment=deployment)
    cumulative = selectors.trade_cumulative_pnl(deployment=deployment)
    context["summary"] = summary
    context["chart_data"] = {
        "cumulative": [[int(exit_at.timestamp() * 1000), float(pnl)] for exit_at, pnl in cumulative],
        "by_regime": [
            {"tag": row.regime_tag or selectors.UNCLASSIFIED, "trades": row.trades, "pnl": float(row.realized_pnl_usd)}
            for row in by_regime
        ],
    }
    return render(request, "ledger/trades.html", context)


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
