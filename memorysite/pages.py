"""Helpers every trader page shares."""

from functools import wraps
from urllib.parse import urlencode

from django.conf import settings
from django.contrib.auth.decorators import login_required
from django.shortcuts import render, resolve_url
from django_htmx.http import HttpResponseClientRedirect


def trader_required(view):
    """login_required that also works for htmx requests.

    A plain redirect would be followed by htmx and the login page swapped into a fragment of the
    page; instead an expired session gets HX-Redirect to the login page, returning to the page
    the trader was on (not the partial's URL).
    """
    page_view = login_required(view)

    @wraps(view)
    def wrapped(request, *args, **kwargs):
        if request.htmx and not request.user.is_authenticated:
            back_to = request.htmx.current_url_abs_path or request.get_full_path()
            return HttpResponseClientRedirect(f"{resolve_url(settings.LOGIN_URL)}?{urlencode({'next': back_to})}")
        return page_view(request, *args, **kwargs)

    return wrapped


def bad_request(request, message: str, *, back_url: str, back_label: str):
    """A page's 400 for a bad query parameter: the message names the parameter and the rule."""
    context = {"message": message, "back_url": back_url, "back_label": back_label}
    return render(request, "bad_request.html", context, status=400)
