"""Delete the account: a confirmation, then every row of the trader in every table is gone and the tokens stop."""

import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from psycopg import sql
from rest_framework.test import APIClient

from access import policies
from access.models import Elevation
from tests.dataops.fill import trader_with_everything

pytestmark = pytest.mark.django_db


def _counts() -> dict[str, int]:
    """Rows of every owned and child table row security knows (the test body is elevated: every trader's)."""
    tables, _ = policies.classify()
    with connection.cursor() as cursor:
        found = {}
        for owned in tables:
            cursor.execute(
                sql.SQL("SELECT count(*) FROM {}").format(sql.Identifier(owned.table)).as_string(cursor.connection)
            )
            found[owned.table] = cursor.fetchone()[0]
        return found


def _api(key: str) -> APIClient:
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    return api


def test_it_deletes_every_row_of_the_trader_in_every_table_and_nothing_of_another(client):
    trader_with_everything("other", marker="OTHER")
    before = _counts()
    doomed = trader_with_everything("doomed", marker="DOOMED")
    with_doomed = _counts()
    # The fill reaches every table row security knows: a new owned table fails here until it is filled (and so
    # until its rows are shown to go with the account).
    assert [table for table in before if with_doomed[table] <= before[table]] == []
    runner_url = f"/api/v1/deployments/{doomed.deployment.pk}/context/"
    assert _api(doomed.account_key).get("/api/v1/auth/tokens/").status_code == 200
    assert _api(doomed.runner_key).get(runner_url).status_code == 200

    client.force_login(doomed.trader)
    page = client.get("/profile/delete/")
    assert page.status_code == 200 and "Your username, to confirm" in page.content.decode()
    refused = client.post("/profile/delete/", {"username": "Doomed"})
    assert refused.status_code == 400
    assert "username: type your username exactly to confirm" in refused.content.decode()
    assert 'value="Doomed"' in refused.content.decode()  # the input kept
    assert _counts() == with_doomed

    done = client.post("/profile/delete/", {"username": "doomed"})
    assert done.status_code == 200 and "The account doomed and all its data are gone" in done.content.decode()
    assert _counts() == before
    assert not get_user_model().objects.filter(username="doomed").exists()  # the user row is deleted, not deactivated
    assert get_user_model().objects.filter(username="other").exists()
    assert Elevation.objects.filter(reason__startswith="dataops.account_erase", actor="doomed").count() == 1

    assert _api(doomed.account_key).get("/api/v1/auth/tokens/").status_code == 401
    assert _api(doomed.runner_key).get(runner_url).status_code == 401
    assert client.get("/profile/data/").status_code == 302  # the session is gone


def test_an_anonymous_visitor_is_sent_to_log_in(client):
    response = client.get("/profile/delete/")
    assert response.status_code == 302 and "/accounts/login/" in response["Location"]
    assert client.post("/profile/delete/", {"username": "x"}).status_code == 302
