"""Trader pages of the ledger. Pages read through selectors only."""

from typing import cast
from urllib.parse import urlencode

from django import forms
from django.contrib import messages
from django.core.exceptions import ValidationError
from django.core.paginator import Paginator
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods, require_POST
from django.views.decorators.vary import vary_on_headers
from django_htmx.http import push_url

from ledger import forms as forms_input
from ledger import selectors, services
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


@trader_required
@require_POST
def deployment_pause(request, deployment_id: int):
    deployment = selectors.deployment_get(user=request.user, deployment_id=deployment_id)
    services.deployment_status_set(deployment=deployment, status=DeploymentStatus.STOPPED)
    messages.success(request, PAUSED.format(id=deployment.pk))
    return redirect(_back(request, reverse("home")))


@trader_required
@require_POST
def deployment_resume(request, deployment_id: int):
    deployment = selectors.deployment_get(user=request.user, deployment_id=deployment_id)
    services.deployment_status_set(deployment=deployment, status=DeploymentStatus.RUNNING)
    messages.success(request, RESUMED.format(id=deployment.pk))
    return redirect(_back(request, reverse("home")))
