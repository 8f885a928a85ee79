"""Staff views of research memory: experiments and hypotheses are read-only; capability requests move along
their lifecycle only through the admin actions, which call research.services.request_review and report each
request's outcome (a refused transition changes nothing)."""

from __future__ import annotations

import datetime as dt

import pytest
from django.contrib.messages import get_messages
from django.urls import reverse
from django.utils import timezone

from research import services
from research.models import CapabilityRequest, Experiment, Hypothesis

T0 = dt.datetime(2025, 12, 27, tzinfo=dt.UTC)
CONTEXT = {"indicators": ["RSI"], "timeframe": "1h", "symbol": "EURUSD", "zigzag_threshold": 0.015}
CHANGELIST = "admin:research_capabilityrequest_changelist"


@pytest.fixture
def recorded(owner, other):
    """The owner's experiment with two hypotheses and three capability requests (req_001..003); the other
    trader's own req_001."""
    experiment = services.experiment_record(
        owner=owner,
        experiment_id="exp_v15_rsi",
        strategy_name="v15_rsi_zigzag_1_5",
        context=CONTEXT,
        results={"test_accuracy": 0.642, "val_accuracy": 0.654},
        assessment=services.assessment_from_fields(
            {
                "verdict": "strong_signal",
                "observations": ["RSI solo achieves 64.2% test accuracy on 1h EURUSD"],
                "hypotheses": [{"text": "Adding a trend indicator might improve"}, {"text": "Other timeframes"}],
                "capability_requests": ["5m data aligned with 1h bars", "LSTM architecture option", "Tick data"],
            }
        ),
        timestamp=T0,
    ).experiment
    services.experiment_record(
        owner=other,
        experiment_id="exp_other",
        strategy_name="someone_else",
        context={**CONTEXT, "symbol": "USDJPY"},
        results={},
        assessment=services.assessment_from_fields({"verdict": "no_signal", "capability_requests": ["GPU time"]}),
        timestamp=T0,
    )
    return experiment


def request_of(user, request_id: str) -> CapabilityRequest:
    return CapabilityRequest.objects.get(owner=user, request_id=request_id)


def act(staff_client, action: str, *requests: CapabilityRequest):
    response = staff_client.post(
        reverse(CHANGELIST),
        {"action": action, "_selected_action": [str(item.pk) for item in requests]},
        follow=True,
    )
    assert response.status_code == 200
    return [(message.level_tag, message.message) for message in get_messages(response.wsgi_request)]


class TestExperimentsAndHypotheses:
    @pytest.mark.parametrize(
        ("model", "query", "count"),
        [
            ("experiment", {}, 2),
            ("experiment", {"q": "exp_v15_rsi"}, 1),
            ("experiment", {"q": "someone_else"}, 1),
            ("experiment", {"verdict__exact": "no_signal"}, 1),
            ("experiment", {"timeframe__exact": "1h"}, 2),
            ("experiment", {"symbol__exact": "USDJPY"}, 1),
            ("hypothesis", {}, 2),
            ("hypothesis", {"q": "trend indicator"}, 1),
            ("hypothesis", {"status__exact": "untested"}, 2),
            ("hypothesis", {"status__exact": "validated"}, 0),
            ("capabilityrequest", {}, 4),
            ("capabilityrequest", {"q": "LSTM"}, 1),
            ("capabilityrequest", {"status__exact": "pending"}, 4),
        ],
    )
    def test_every_model_has_a_searchable_filterable_changelist(self, staff_client, recorded, model, query, count):
        response = staff_client.get(reverse(f"admin:research_{model}_changelist"), query)
        assert response.status_code == 200
        assert response.context["cl"].result_count == count

    def test_an_experiment_is_shown_read_only_and_cannot_be_added_or_deleted(self, staff_client, recorded):
        url = reverse("admin:research_experiment_change", args=[recorded.pk])
        response = staff_client.get(url)
        assert response.status_code == 200
        content = response.content.decode()
        assert "RSI solo achieves 64.2% test accuracy on 1h EURUSD" in content
        assert "&quot;zigzag_threshold&quot;: 0.015" in content  # the context, pretty-printed
        assert 'name="_save"' not in content and 'name="strategy_name"' not in content
        staff_client.post(url, {"strategy_name": "renamed"})
        recorded.refresh_from_db()
        assert recorded.strategy_name == "v15_rsi_zigzag_1_5"
        assert staff_client.get(reverse("admin:research_experiment_add")).status_code == 403
        assert staff_client.get(reverse("admin:research_experiment_delete", args=[recorded.pk])).status_code == 403

    def test_a_hypothesis_is_shown_read_only_with_its_tested_by(self, staff_client, owner, recorded):
        services.experiment_record(
            owner=owner,
            experiment_id="exp_rsi_di",
            strategy_name="rsi_di",
            context={**CONTEXT, "indicators": ["RSI", "DI"]},
            results={},
            assessment=services.assessment_from_fields({"verdict": "strong_signal"}),
            tests_hypotheses=["H_001"],
        )
        hypothesis = Hypothesis.objects.get(owner=owner, hypothesis_id="H_001")
        url = reverse("admin:research_hypothesis_change", args=[hypothesis.pk])
        content = staff_client.get(url).content.decode()
        assert "exp_rsi_di" in content and "validated" in content
        assert 'name="_save"' not in content and 'name="status"' not in content
        staff_client.post(url, {"status": "refuted", "text": "changed"})
        hypothesis.refresh_from_db()
        assert (hypothesis.status, hypothesis.text) == ("validated", "Adding a trend indicator might improve")
        assert staff_client.get(reverse("admin:research_hypothesis_add")).status_code == 403

    def test_a_trader_without_staff_rights_cannot_enter_the_research_admin(self, client, owner, recorded):
        client.force_login(owner)
        response = client.get(reverse("admin:research_experiment_changelist"))
        assert response.status_code == 302
        assert response["Location"].startswith(reverse("admin:login"))


class TestRequestActions:
    def test_approve_moves_pending_requests_and_reports_each(self, staff_client, curator, owner, recorded):
        first, second = request_of(owner, "req_001"), request_of(owner, "req_002")
        assert act(staff_client, "approve", first, second) == [
            ("success", "req_001 (owner): approved"),
            ("success", "req_002 (owner): approved"),
        ]
        for item in (first, second):
            item.refresh_from_db()
            assert (item.status, item.reviewed_by, item.implemented) == ("approved", curator, None)
        assert request_of(owner, "req_003").status == "pending"

    def test_implementing_a_pending_request_is_refused_with_a_message_and_changes_nothing(
        self, staff_client, owner, recorded
    ):
        pending = request_of(owner, "req_001")
        messages = act(staff_client, "mark_implemented", pending)
        assert messages == [("error", "req_001 (owner): a request that is pending cannot become implemented")]
        pending.refresh_from_db()
        assert (pending.status, pending.reviewed_by, pending.implemented) == ("pending", None, None)

    def test_mark_implemented_dates_an_approved_request_today(self, staff_client, curator, owner, recorded):
        item = request_of(owner, "req_001")
        services.request_review(request=item, status="approved", by=curator)
        assert act(staff_client, "mark_implemented", item) == [("success", "req_001 (owner): implemented")]
        item.refresh_from_db()
        assert (item.status, item.implemented, item.reviewed_by) == ("implemented", timezone.now().date(), curator)

    def test_reject_works_from_pending_and_approved_but_not_after_implementation(
        self, staff_client, curator, owner, other, recorded
    ):
        pending, approved, implemented = (request_of(owner, f"req_00{n}") for n in (1, 2, 3))
        services.request_review(request=approved, status="approved", by=curator)
        services.request_review(request=implemented, status="approved", by=curator)
        services.request_review(request=implemented, status="implemented", by=curator, today=dt.date(2026, 1, 5))
        foreign = request_of(other, "req_001")
        assert act(staff_client, "reject", pending, approved, implemented, foreign) == [
            ("success", "req_001 (other): rejected"),
            ("success", "req_001 (owner): rejected"),
            ("success", "req_002 (owner): rejected"),
            ("error", "req_003 (owner): a request that is implemented cannot become rejected"),
        ]
        assert [request_of(owner, f"req_00{n}").status for n in (1, 2, 3)] == ["rejected", "rejected", "implemented"]
        implemented.refresh_from_db()
        assert implemented.implemented == dt.date(2026, 1, 5)

    def test_a_rejected_request_cannot_be_approved_again(self, staff_client, curator, owner, recorded):
        item = request_of(owner, "req_001")
        services.request_review(request=item, status="rejected", by=curator)
        assert act(staff_client, "approve", item) == [
            ("error", "req_001 (owner): a request that is rejected cannot become approved")
        ]
        assert request_of(owner, "req_001").status == "rejected"

    def test_a_request_is_shown_read_only(self, staff_client, owner, recorded):
        item = request_of(owner, "req_001")
        url = reverse("admin:research_capabilityrequest_change", args=[item.pk])
        content = staff_client.get(url).content.decode()
        assert "5m data aligned with 1h bars" in content
        assert 'name="_save"' not in content and 'name="status"' not in content
        staff_client.post(url, {"status": "implemented"})
        assert request_of(owner, "req_001").status == "pending"
        assert staff_client.get(reverse("admin:research_capabilityrequest_add")).status_code == 403
        assert staff_client.get(reverse("admin:research_capabilityrequest_delete", args=[item.pk])).status_code == 403

    def test_the_changelist_offers_the_three_review_actions(self, staff_client, recorded):
        content = staff_client.get(reverse(CHANGELIST)).content.decode()
        for action in ("approve", "mark_implemented", "reject"):
            assert f'<option value="{action}">' in content
        assert 'value="delete_selected"' not in content
        assert Experiment.objects.count() == 2
