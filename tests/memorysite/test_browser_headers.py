"""Every response carries the Content-Security-Policy and Permissions-Policy (memorysite/browser.py)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.conf import settings

CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; font-src 'self'; "
    "connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)
PERMISSIONS = (
    "accelerometer=(), camera=(), geolocation=(), gyroscope=(), magnetometer=(), microphone=(), payment=(), usb=()"
)


@pytest.mark.parametrize(
    "path", ["/accounts/login/", "/", "/recall/", "/admin/login/", "/api/docs/", "/api/v1/skills/"]
)
def test_it_sends_the_policies_on_pages_admin_docs_and_the_api(client, owner, path):
    client.force_login(owner)
    response = client.get(path)
    assert response.status_code in (200, 302), (path, response.status_code)  # the login page sends a trader home
    assert response["Content-Security-Policy"] == settings.CONTENT_SECURITY_POLICY == CSP
    assert response["Permissions-Policy"] == settings.PERMISSIONS_POLICY == PERMISSIONS


def test_no_template_has_an_inline_script_style_or_handler():
    for template in Path(settings.BASE_DIR, "templates").rglob("*.html"):
        markup = re.sub(r"\{#.*?#\}", "", template.read_text(), flags=re.S)  # template comments render nothing
        assert not re.search(r"<script(?![^>]*\bsrc=)(?![^>]*application/json)", markup), template
        assert not re.search(r"<style|\sstyle=|\shx-on|\son[a-z]+=", markup), template
