from django.urls import reverse

from tests.factories import DeploymentFactory


def test_it_sends_an_anonymous_visitor_to_the_login_page(client, db):
    response = client.get("/")
    assert response.status_code == 302
    assert response["Location"] == f"{reverse('login')}?next=/"


def test_it_lists_the_traders_own_deployments_only(client, owner, other):
    DeploymentFactory(skill_version__skill__owner=owner, skill_version__skill__name="My breakout")
    DeploymentFactory(skill_version__skill__owner=other, skill_version__skill__name="Their scalper")
    client.force_login(owner)
    response = client.get("/")
    assert response.status_code == 200
    assert b"My breakout" in response.content
    assert b"Their scalper" not in response.content


def test_it_shows_where_to_start_when_there_are_no_deployments(client, owner):
    client.force_login(owner)
    content = client.get("/").content.decode()
    assert "No deployments yet" in content
    assert reverse("api-docs") in content


def test_it_serves_the_login_page_admin_and_api_docs(client, db):
    assert client.get(reverse("login")).status_code == 200
    assert client.get("/admin/login/").status_code == 200
    docs = client.get("/api/docs/")
    assert docs.status_code == 200
    assert b"cdn" not in docs.content.lower()  # Swagger UI comes from our static files
    schema = client.get("/api/schema/")
    assert schema.status_code == 200
    assert b"/api/v1/deployments/{deployment_id}/" in schema.content


def test_money_on_the_home_page_has_thousands_separators_and_cents(client, owner):
    from decimal import Decimal

    from ledger.models import Deployment

    deployment = DeploymentFactory(skill_version__skill__owner=owner)
    Deployment.objects.filter(pk=deployment.pk).update(day_start_equity_usd=Decimal("10000"))
    client.force_login(owner)
    content = client.get("/").content.decode()
    assert '<td class="num">$10,000.00</td>' in content
    assert "$10000" not in content
