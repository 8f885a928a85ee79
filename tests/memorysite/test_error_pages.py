"""App-styled 404 and 500 pages when DEBUG is off, the favicon, the logged-out notice, and no "Log in" link
on the login page itself."""

from __future__ import annotations

import pytest
from django.contrib.staticfiles import finders
from django.test import Client, override_settings
from django.urls import reverse

from tests.factories import PASSWORD, DeploymentFactory, UserFactory

PRODUCTION_PAGES = override_settings(DEBUG=False, ROOT_URLCONF="tests.memorysite.error_urls")


@PRODUCTION_PAGES
def test_an_unknown_page_is_the_apps_404(db):
    response = Client().get("/no-such-page/")
    assert response.status_code == 404
    content = response.content.decode()
    assert '<section class="card error-page" id="not-found">' in content
    assert "There is nothing at <code" in content and "/no-such-page/" in content
    assert 'href="/static/css/app.css"' in content


@PRODUCTION_PAGES
def test_another_traders_deployment_is_the_same_404(db):
    deployment = DeploymentFactory()
    client = Client()
    client.force_login(UserFactory())
    response = client.get(reverse("deployment-trades", args=[deployment.pk]))
    assert response.status_code == 404
    assert 'id="not-found"' in response.content.decode()


@PRODUCTION_PAGES
def test_a_failing_view_is_the_apps_500_without_the_traceback(db, caplog):
    client = Client(raise_request_exception=False)
    client.force_login(UserFactory())
    response = client.get("/test-only/fail/")
    assert response.status_code == 500
    content = response.content.decode()
    assert '<section class="card error-page" id="server-error">' in content
    assert "Something went wrong on our side" in content
    assert "a bug in a view" not in content and "RuntimeError" not in content
    assert 'href="/static/css/app.css"' in content


def test_the_favicon_is_linked_and_favicon_ico_is_not_a_404(client, db):
    page = client.get(reverse("login")).content.decode()
    assert 'rel="icon" href="/static/favicon.svg"' in page
    answer = client.get("/favicon.ico")
    assert (answer.status_code, answer["Location"]) == (301, "/static/favicon.ico")
    icon = finders.find("favicon.ico")
    with open(icon, "rb") as handle:
        assert handle.read(4) == b"\x00\x00\x01\x00"  # an ICO header
    assert finders.find("favicon.svg")


def test_logging_out_lands_on_the_login_page_saying_so(client, db):
    user = UserFactory()
    assert client.login(username=user.username, password=PASSWORD)
    response = client.post(reverse("logout"), follow=True)
    assert response.redirect_chain == [(reverse("login"), 302)]
    content = response.content.decode()
    assert '<li class="info">You are logged out.</li>' in content
    assert client.get(reverse("login")).content.decode().count("You are logged out.") == 0  # shown once


@pytest.mark.parametrize("logged_in", [False, True])
def test_the_login_page_has_no_log_in_link_but_other_pages_do(client, db, logged_in):
    login_page = client.get(reverse("login")).content.decode()
    assert f'<a href="{reverse("login")}">Log in</a>' not in login_page
    if logged_in:
        client.force_login(UserFactory())
        assert "Log out" in client.get(reverse("home")).content.decode()
    else:
        other_page = client.get("/no-such-page/").content.decode()  # the 404 page, anonymous
        assert f'<a href="{reverse("login")}">Log in</a>' in other_page
