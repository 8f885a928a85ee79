"""The research-memory API on the real database: duplicates, assessments, the hypothesis lifecycle,
the prompt context, owner isolation and bad input."""

from __future__ import annotations

import math

import pytest

from research.models import CapabilityRequest, Experiment, Hypothesis
from tests.openapi import assert_matches_schema

CONTEXT = {
    "indicators": ["RSI", "DI"],
    "indicator_params": {"RSI": {"period": 14}, "DI": {"period": 14}},
    "composition": "pair",
    "timeframe": "1h",
    "symbol": "EURUSD",
    "zigzag_threshold": 0.015,
    "nn_architecture": [32, 16],
    "training_epochs": 100,
    "data_range": "2015-2023",
}
RESULTS = {"test_accuracy": 0.648, "val_accuracy": 0.665, "val_test_gap": 0.017, "sharpe_ratio": 0.42,
           "total_trades": 847, "win_rate": 0.52}  # fmt: skip
MARKDOWN = """## Assessment

### Verdict
strong_signal

### Observations
- Combining RSI with DI improved test accuracy by 0.6pp vs RSI solo
- Val-test gap of 1.7pp suggests good generalization

### Hypotheses Generated
- H: Adding a third complementary indicator might help | Status: untested
- H: This approach might work on other forex pairs | Status: untested

### Limitations
- Only tested on EURUSD

### Capability Requests
- 5m data aligned with 1h bars
"""
URL = "/api/v1/research/experiments/"


def record(api, experiment_id, status=201, **overrides):
    body = {"id": experiment_id, "strategy_name": "rsi_di_v3", "context": CONTEXT, "results": RESULTS,
            "assessment_markdown": MARKDOWN, "timestamp": "2025-12-28T14:30:00Z", **overrides}  # fmt: skip
    response = api.post(URL, body, format="json")
    assert response.status_code == status, response.content
    assert_matches_schema(response)
    return response.json()


def test_recording_registers_the_assessments_hypotheses_and_requests(owner_api, owner):
    body = record(owner_api, "exp_20251228_001")
    assert body["experiment"]["assessment"]["verdict"] == "strong_signal"
    assert body["experiment"]["assessment"]["observations"][1] == "Val-test gap of 1.7pp suggests good generalization"
    assert [h["id"] for h in body["hypotheses_created"]] == ["H_001", "H_002"]
    assert body["hypotheses_created"][0]["source_experiment"] == "exp_20251228_001"
    assert [r["id"] for r in body["capability_requests_created"]] == ["req_001"]
    assert CapabilityRequest.objects.get(owner=owner).capability == "5m data aligned with 1h bars"


def test_a_duplicate_context_is_409_naming_the_prior_id_unless_repeated_with_a_reason(owner_api):
    record(owner_api, "exp_a")
    shuffled = {**CONTEXT, "indicators": ["di", "RSI"], "zigzag_threshold": 0.0150, "symbol": "eurusd",
                "indicator_params": {"DI": {"period": 14.0}, "RSI": {"period": 14}}}  # fmt: skip
    check = owner_api.post(f"{URL}check/", {"context": shuffled}, format="json")
    assert check.status_code == 200
    assert_matches_schema(check)
    assert [d["id"] for d in check.json()["duplicates"]] == ["exp_a"]
    conflict = owner_api.post(URL, {"id": "exp_b", "strategy_name": "s", "context": shuffled}, format="json")
    assert conflict.status_code == 409
    assert conflict.json()["duplicates"] == ["exp_a"] and "exp_a" in conflict.json()["detail"]
    assert not Experiment.objects.filter(experiment_id="exp_b").exists()
    missing_reason = owner_api.post(URL, {"id": "exp_b", "strategy_name": "s", "context": shuffled,
                                          "allow_repeat": True}, format="json")  # fmt: skip
    assert missing_reason.status_code == 400 and "repeat_reason" in missing_reason.json()["errors"]
    repeated = record(owner_api, "exp_b", context=shuffled, allow_repeat=True, repeat_reason="new seed")
    assert repeated["experiment"]["repeat_reason"] == "new seed"
    other_arch = owner_api.post(f"{URL}check/", {"context": {**CONTEXT, "nn_architecture": [16, 32]}}, format="json")
    assert other_arch.json()["duplicates"] == []


def test_the_same_id_twice_is_409(owner_api):
    record(owner_api, "exp_a")
    response = owner_api.post(URL, {"id": "exp_a", "strategy_name": "s", "context": {**CONTEXT, "symbol": "GBPUSD"}},
                              format="json")  # fmt: skip
    assert response.status_code == 409 and "already recorded" in response.json()["detail"]


@pytest.mark.parametrize(
    ("verdict", "status"),
    [("strong_signal", "validated"), ("no_signal", "refuted"), ("weak_signal", "inconclusive"),
     ("overfit", "inconclusive")],
)  # fmt: skip
def test_an_experiment_testing_a_hypothesis_moves_it_by_its_verdict(owner_api, verdict, status):
    record(owner_api, "exp_a")
    response = owner_api.post(
        URL,
        {"id": "exp_b", "strategy_name": "s", "context": {**CONTEXT, "indicators": ["RSI", "DI", "ADX"],
         "composition": "trio"}, "assessment": {"verdict": verdict, "observations": ["x"]},
         "tests_hypotheses": ["H_001"]},
        format="json",
    )  # fmt: skip
    assert response.status_code == 201, response.content
    [updated] = response.json()["hypotheses_updated"]
    assert (updated["id"], updated["status"], updated["tested_by"]) == ("H_001", status, ["exp_b"])
    hypotheses = owner_api.get("/api/v1/research/hypotheses/", {"status": status}).json()["results"]
    assert [h["id"] for h in hypotheses] == ["H_001"]


def test_testing_an_unknown_hypothesis_is_400_and_writes_nothing(owner_api):
    response = owner_api.post(
        URL, {"id": "exp_a", "strategy_name": "s", "context": CONTEXT, "tests_hypotheses": ["H_404"]}, format="json"
    )
    assert response.status_code == 400
    assert response.json()["errors"]["tests_hypotheses"] == ["no hypothesis H_404 among yours"]
    assert not Experiment.objects.exists()


@pytest.mark.parametrize(
    ("body", "field", "message"),
    [
        ({"assessment_markdown": "### Observations\n- something"}, "assessment_markdown", "Verdict"),
        ({"assessment_markdown": "### Verdict\namazing"}, "assessment_markdown", "Verdict"),
        ({"context": {**CONTEXT, "timeframe": "hourly"}}, "context.timeframe", ""),
        ({"context": {**CONTEXT, "indicators": []}}, "context.indicators", ""),
        ({"context": {**CONTEXT, "zigzag_threshold": 2}}, "context.zigzag_threshold", ""),
        ({"context": "RSI"}, "context", "JSON object"),
        ({"context": {**CONTEXT, "notes": "a\u0000b"}}, "context", "NUL characters"),
        ({"results": {"comment": {"\u0000": 1}}}, "results", "NUL characters"),
        ({"results": {"test_accuracy": 1.5}}, "results.test_accuracy", ""),
        ({"assessment": {"verdict": "great"}}, "assessment.verdict", "must be one of"),
        ({"id": "exp with spaces"}, "id", ""),
        ({"extra": 1}, "extra", "unknown field"),
    ],
)
def test_bad_experiments_are_400_naming_the_field_and_write_nothing(owner_api, body, field, message):
    payload = {"id": "exp_a", "strategy_name": "s", "context": CONTEXT, **body}
    response = owner_api.post(URL, payload, format="json")
    assert response.status_code == 400, response.content
    errors = response.json()["errors"]
    assert field in errors, errors
    assert any(message in text for text in errors[field]), errors
    assert not Experiment.objects.exists() and not Hypothesis.objects.exists()


def test_the_prompt_context_has_the_history_and_open_hypotheses_with_a_token_estimate(owner_api):
    record(owner_api, "exp_20251228_001")
    response = owner_api.get("/api/v1/research/context/", {"n": 15})
    assert response.status_code == 200
    assert_matches_schema(response)
    body = response.json()
    assert body["text"].startswith("## How to Use Your Experiment History\n\n- Each experiment below is an observation")
    assert "\n\n## Experiment History\n\n" in body["text"]
    assert "**exp_20251228_001** (2025-12-28)" in body["text"]
    assert "- Context: RSI + DI | 1h | EURUSD | zigzag 1.5% | NN [32,16]" in body["text"]
    assert "- Results: 64.8% test (66.5% val, 1.7pp gap) | Sharpe 0.42" in body["text"]
    assert "## Open Hypotheses" in body["text"] and "H_001" in body["text"]
    assert body["token_estimate"] > 0 and body["experiments_shown"] == 1
    assert owner_api.get("/api/v1/research/context/", {"n": 51}).status_code == 400


def test_owner_isolation(owner_api, other_api, anon_api):
    record(owner_api, "exp_a")
    assert other_api.get(f"{URL}exp_a/").status_code == 404
    assert other_api.get(URL).json()["count"] == 0
    assert other_api.post(f"{URL}check/", {"context": CONTEXT}, format="json").json()["duplicates"] == []
    assert (
        other_api.patch("/api/v1/research/hypotheses/H_001/", {"status": "testing"}, format="json").status_code == 404
    )
    assert "exp_a" not in other_api.get("/api/v1/research/context/").json()["text"]
    # the other trader records the same id and context: theirs, no conflict
    assert (
        other_api.post(URL, {"id": "exp_a", "strategy_name": "s", "context": CONTEXT}, format="json").status_code == 201
    )
    assert anon_api.get(URL).status_code == 401
    hypothesis = Hypothesis.objects.get(hypothesis_id="H_001")
    assert hypothesis.status == "untested"


def test_hypothesis_status_can_be_set_and_filters_validate(owner_api):
    record(owner_api, "exp_a")
    response = owner_api.patch("/api/v1/research/hypotheses/H_002/", {"status": "testing"}, format="json")
    assert response.status_code == 200 and response.json()["status"] == "testing"
    bad = owner_api.patch("/api/v1/research/hypotheses/H_002/", {"status": "maybe"}, format="json")
    assert bad.status_code == 400 and "status" in bad.json()["errors"]
    assert owner_api.get(URL, {"verdict": "amazing"}).status_code == 400
    assert owner_api.get(URL, {"indicator": "rsi"}).json()["count"] == 1
    assert owner_api.get(URL, {"timeframe": "4h"}).json()["count"] == 0


def test_an_overlong_item_in_markdown_is_400_naming_the_section(owner_api):
    markdown = "### Verdict\nweak_signal\n\n### Observations\n- " + "x" * 1001
    response = owner_api.post(URL, {"id": "exp_a", "strategy_name": "s", "context": CONTEXT,
                                    "assessment_markdown": markdown}, format="json")  # fmt: skip
    assert response.status_code == 400
    assert response.json()["errors"]["assessment_markdown"] == ["Observations: an item is longer than 1000 characters"]
    assert not Experiment.objects.exists()


def test_ids_continue_after_the_highest_and_the_context_counts_hidden_open_hypotheses(owner_api, owner):
    import datetime as dt

    for number in (1, 2, 9, 10, 25):
        Hypothesis.objects.create(owner=owner, hypothesis_id=f"H_{number:03d}", text=f"idea {number}",
                                  created=dt.date(2025, 12, number))  # fmt: skip
    for number in range(26, 46):
        Hypothesis.objects.create(owner=owner, hypothesis_id=f"H_{number}", text=f"idea {number}",
                                  created=dt.date(2026, 1, 1))  # fmt: skip
    body = record(owner_api, "exp_a")
    assert [h["id"] for h in body["hypotheses_created"]] == ["H_046", "H_047"]
    text = owner_api.get("/api/v1/research/context/").json()["text"]
    assert "(7 more open hypotheses not shown)" in text  # 27 open, 20 shown
    assert "- H_45: idea 45 (untested)" in text and "H_001" not in text.split("## Open Hypotheses")[1]


def test_the_context_lists_the_capabilities_staff_implemented_under_available_resources(
    owner_api, other_api, other, curator
):
    import datetime as dt

    from research import services

    record(owner_api, "exp_20251228_001")  # requests req_001: pending, not available yet
    text = owner_api.get("/api/v1/research/context/").json()["text"]
    assert text.endswith("## Available Resources\n\nNo requested capabilities implemented yet.")
    request = CapabilityRequest.objects.get(request_id="req_001")
    services.request_review(request=request, status="approved", by=curator)
    services.request_review(request=request, status="implemented", by=curator, today=dt.date(2026, 1, 5))
    CapabilityRequest.objects.create(owner=other, request_id="req_001", capability="theirs", requested=dt.date(2026, 1, 1),
                                     status="implemented", implemented=dt.date(2026, 1, 2))  # fmt: skip
    body = owner_api.get("/api/v1/research/context/").json()
    assert body["text"].endswith(
        "## Available Resources\n\nCapabilities implemented at your request (use them):\n"
        "- req_001: 5m data aligned with 1h bars (implemented 2026-01-05)"
    )
    assert body["token_estimate"] == math.ceil(len(body["text"]) / 4)
    assert "- req_001: theirs" in other_api.get("/api/v1/research/context/").json()["text"]
