"""Pages of dataops: the trader's own data — export it, or delete the account."""

from __future__ import annotations

from django import forms
from django.contrib.auth import logout
from django.http import StreamingHttpResponse
from django.shortcuts import render
from django.utils import timezone
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_http_methods

from access.middleware import without_transaction
from dataops import services
from dataops.export import export_zip
from memorysite.pages import trader_required


def export_response(user) -> StreamingHttpResponse:
    """The zip as a download, streamed: each batch is read in its own short transaction (dataops.export)."""
    now = timezone.now()
    name = f"memory-{user.get_username()}-{now:%Y%m%dT%H%M%SZ}.zip"
    response = StreamingHttpResponse(
        export_zip(user_id=user.pk, username=user.get_username(), exported_at=now.isoformat(timespec="seconds")),
        content_type="application/zip",
    )
    response["Content-Disposition"] = f'attachment; filename="{name}"'
    response["Cache-Control"] = "no-store"
    return response


@trader_required
@require_GET
def profile_data(request):
    """The trader's data: the export link and the way to delete the account."""
    return render(request, "dataops/data.html")


@without_transaction  # streamed after the view returns: no request transaction may wait on the client
@trader_required
@never_cache
@require_GET
def profile_data_export(request):
    return export_response(request.user)


class AccountDeleteForm(forms.Form):
    username = forms.CharField(label="Your username, to confirm", max_length=150, strip=False)

    def __init__(self, *args, user, **kwargs):
        super().__init__(*args, **kwargs)
        self.user = user

    def clean_username(self):
        typed = self.cleaned_data["username"]
        if typed != self.user.get_username():
            raise forms.ValidationError(f"username: {services.CONFIRMATION_MISMATCH}")
        return typed


@trader_required
@never_cache
@require_http_methods(["GET", "POST"])
def account_delete(request):
    """A confirmation page (type the username), then the account and every row of it are gone."""
    if request.method == "GET":
        return render(request, "dataops/delete.html", {"form": AccountDeleteForm(user=request.user)})
    form = AccountDeleteForm(request.POST, user=request.user)
    if not form.is_valid():
        return render(request, "dataops/delete.html", {"form": form}, status=400)
    username = request.user.get_username()
    services.account_erase(user=request.user)
    logout(request)
    return render(request, "dataops/deleted.html", {"username": username})
