"""Helpers every trader page shares."""

from functools import wraps
from urllib.parse import urlencode

from django.conf import settings
from django.contrib.auth.decorators import login_required
from django.shortcuts import redirect, render, resolve_url
from django.templatetags.static import static
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


def favicon(request):
    """/favicon.ico, which browsers and tools ask for whatever the page links: the static icon."""
    return redirect(static("favicon.ico"), permanent=True)


_NEW_KEY = "new_key_shown_once"


def new_key_then_redirect(request, url: str, *, name: str, key: str):
    """After creating a token on a page: the key goes to the next GET of `url` (post/redirect/get), so
    a reload neither creates a second token nor shows the key again."""
    request.session[_NEW_KEY] = {"name": name, "key": key}
    return redirect(url)


def new_key_shown_once(request) -> dict | None:
    """The key a create just made ({name, key}), taken out of the session: shown on this answer only."""
    return request.session.pop(_NEW_KEY, None)


def rules_broken(exc) -> str:
    """A Django ValidationError as one line for a page's 400: `field: rule; field: rule`."""
    return "; ".join(f"{field}: {', '.join(rules)}" for field, rules in exc.message_dict.items())


def wants_partial(request) -> bool:
    """Whether to answer with the fragment htmx swaps rather than the whole page. A history-restore
    request (back button, cache miss) replaces the whole body, so it needs the page."""
    return bool(request.htmx) and not request.htmx.history_restore_request


def bad_request(request, message: str, *, back_url: str, back_label: str):
    """A page's 400 for a bad query parameter: the message names the parameter and the rule. To htmx,
    the message alone, which base.html's responseHandling swaps in where the answer was asked for."""
    context = {"message": message, "back_url": back_url, "back_label": back_label}
    if wants_partial(request):
        response = render(request, "_bad_request.html", context, status=400)
        response["HX-Push-Url"] = "false"
        return response
    return render(request, "bad_request.html", context, status=400)
