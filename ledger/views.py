"""Trader pages of the ledger. Pages read through selectors only."""

from django.contrib.auth.decorators import login_required
from django.shortcuts import render

from ledger import selectors


@login_required
def home(request):
    deployments = selectors.deployment_list(user=request.user)
    return render(request, "ledger/home.html", {"deployments": deployments})
