"""research/yaml_shapes.py, yaml_import.py and yaml_export.py, and manage.py import_research /
export_research: the seed's YAML layout in and out of the database, validated first, all or nothing,
idempotent, byte-stable, per owner."""

from __future__ import annotations

import datetime as dt
import io
import shutil
from pathlib import Path

import pytest
import yaml
from django.core.management import CommandError, call_command

from research import services
from research.experiment_context import context_fingerprint
from research.models import CapabilityRequest, Experiment, Hypothesis, HypothesisTest
from research.yaml_export import export_research, render_research
from research.yaml_import import import_research
from research.yaml_shapes import ResearchFilesInvalid
from tests.factories import UserFactory

BOOTSTRAP = Path(__file__).resolve().parents[2] / "research" / "bootstrap"


def tree(directory: Path) -> dict[str, bytes]:
    return {
        str(path.relative_to(directory)): path.read_bytes()
        for path in sorted(directory.rglob("*.yaml"))
        if path.is_file()
    }


def snapshot(user) -> dict:
    """Everything import/export carries, ids instead of primary keys, tested_by in its stored order."""
    experiments = [
        (
            e.experiment_id, e.timestamp, e.strategy_name, e.source, e.context, e.results, e.verdict,
            e.observations, e.limitations, e.context_fingerprint, e.indicators, e.timeframe, e.symbol,
            e.repeat_reason,
        )
        for e in Experiment.objects.filter(owner=user).order_by("experiment_id")
    ]  # fmt: skip
    hypotheses = [
        (
            h.hypothesis_id, h.text, h.source_experiment and h.source_experiment.experiment_id, h.rationale,
            h.status, h.created,
            list(HypothesisTest.objects.filter(hypothesis=h).values_list("experiment__experiment_id", flat=True)),
        )
        for h in Hypothesis.objects.filter(owner=user).order_by("hypothesis_id")
    ]  # fmt: skip
    requests = [
        (
            r.request_id, r.capability, r.rationale, r.requested_by and r.requested_by.experiment_id, r.requested,
            r.status, r.implemented,
        )
        for r in CapabilityRequest.objects.filter(owner=user).order_by("request_id")
    ]  # fmt: skip
    return {"experiments": experiments, "hypotheses": hypotheses, "requests": requests}


def counts(user) -> tuple[int, int, int, int]:
    return (
        Experiment.objects.filter(owner=user).count(),
        Hypothesis.objects.filter(owner=user).count(),
        CapabilityRequest.objects.filter(owner=user).count(),
        HypothesisTest.objects.filter(hypothesis__owner=user).count(),
    )


@pytest.fixture
def bootstrap_copy(tmp_path) -> Path:
    directory = tmp_path / "set"
    shutil.copytree(BOOTSTRAP, directory)
    return directory


def edit(path: Path, change) -> None:
    document = yaml.safe_load(path.read_text(encoding="utf-8"))
    change(document)
    path.write_text(yaml.safe_dump(document, sort_keys=False, allow_unicode=True), encoding="utf-8")


def problems_of(owner, directory: Path) -> list[str]:
    with pytest.raises(ResearchFilesInvalid) as caught:
        import_research(owner, directory)
    return caught.value.problems


# -- the bootstrap set and the round trip ---------------------------------------------------------------


def test_it_imports_the_bootstrap_set(owner):
    summary = import_research(owner, BOOTSTRAP)
    assert (summary.experiments_created, summary.hypotheses_created, summary.requests_created) == (5, 10, 2)
    assert counts(owner) == (5, 10, 2, 1)

    experiment = Experiment.objects.get(owner=owner, experiment_id="exp_20251228_001")
    assert experiment.timestamp == dt.datetime(2025, 12, 28, 14, 30, tzinfo=dt.UTC)
    assert experiment.strategy_name == "rsi_di_v3"
    assert experiment.source == ""
    assert experiment.context["indicator_params"] == {"RSI": {"period": 14}, "DI": {"period": 14}}
    assert experiment.results == {
        "test_accuracy": 0.648, "val_accuracy": 0.665, "val_test_gap": 0.017, "sharpe_ratio": 0.42,
        "total_trades": 847, "win_rate": 0.52,
    }  # fmt: skip
    assert experiment.verdict == "strong_signal"
    assert experiment.limitations == ["Only tested on EURUSD", "Only tested on 1h timeframe"]
    assert experiment.context_fingerprint == context_fingerprint(experiment.context)
    assert (experiment.indicators, experiment.timeframe, experiment.symbol) == (["RSI", "DI"], "1h", "EURUSD")

    v15 = Experiment.objects.get(owner=owner, experiment_id="exp_v15_rsi_zigzag_1_5")
    assert v15.source == "v1.5_experiments"
    assert v15.results["sharpe_ratio"] is None

    # The registry's entries keep their ids; assessments' hypotheses with the same text and source link to them.
    h001 = Hypothesis.objects.get(owner=owner, hypothesis_id="H_001")
    assert h001.source_experiment == experiment
    assert h001.rationale.startswith("Single timeframe seems to be a ceiling")
    assert h001.created == dt.date(2025, 12, 28)
    assert Hypothesis.objects.filter(owner=owner, text=h001.text).count() == 1
    validated = Hypothesis.objects.get(owner=owner, text="Adding complementary indicator (trend) might improve")
    assert validated.source_experiment == v15
    assert validated.status == "validated"
    assert [e.experiment_id for e in validated.tested_by.all()] == ["exp_v15_rsi_di"]
    assert validated.created == dt.date(2025, 12, 27)

    request = CapabilityRequest.objects.get(owner=owner, request_id="req_001")
    assert (request.capability, request.requested_by, request.status, request.implemented) == (
        "5m data aligned with 1h bars", None, "pending", None,
    )  # fmt: skip


def test_it_exports_the_bootstrap_set_as_it_is_stored(owner, tmp_path):
    """The repository's files are in the canonical form: import then export gives them back."""
    import_research(owner, BOOTSTRAP)
    export_research(owner, tmp_path / "out")
    assert tree(tmp_path / "out") == tree(BOOTSTRAP)


def test_it_round_trips_import_export_import_export_byte_for_byte(owner, other, tmp_path):
    import_research(owner, BOOTSTRAP)
    export_research(owner, tmp_path / "first")
    import_research(other, tmp_path / "first")
    export_research(other, tmp_path / "second")
    first, second = tree(tmp_path / "first"), tree(tmp_path / "second")
    assert first == second
    assert len(first) == 7
    assert snapshot(other)["experiments"] == snapshot(owner)["experiments"]


def _rich_memory(user) -> None:
    """Memory written through the services (not the importer), with every field the YAML carries."""
    start = dt.datetime(2026, 1, 5, 9, 15, 30, 123456, tzinfo=dt.UTC)
    assessment = services.assessment_from_fields(
        {
            "verdict": "weak_signal",
            "observations": ["Ünïcode — and 'quotes': kept", "yes"],
            "hypotheses": [{"text": "Trend filter helps", "status": "untested"}, {"text": "null"}],
            "limitations": ["Only 2024"],
            "capability_requests": ["Tick data", "5m bars"],
        }
    )
    base = {"indicators": ["rsi"], "timeframe": "4h", "symbol": "btcusd", "extra": {"b": [1, 2.5], "a": None}}
    services.experiment_record(
        owner=user, experiment_id="exp_a", strategy_name="a", context=base, assessment=assessment,
        results={"test_accuracy": 0.61, "custom_metric": {"z": 1, "k": "v"}}, timestamp=start, source="manual",
    )  # fmt: skip
    services.experiment_record(
        owner=user, experiment_id="exp_b", strategy_name="b", context=base, results={}, assessment=None,
        timestamp=start + dt.timedelta(days=1), allow_repeat=True, repeat_reason="rerun with new data",
        tests_hypotheses=["H_001"],
    )  # fmt: skip
    services.experiment_record(
        owner=user, experiment_id="exp_10", strategy_name="c", context={**base, "timeframe": "1d"},
        results={"val_accuracy": 0.7}, assessment=services.assessment_from_fields({"verdict": "strong_signal"}),
        timestamp=start + dt.timedelta(days=2), tests_hypotheses=["H_001"],
    )  # fmt: skip
    request = CapabilityRequest.objects.get(owner=user, request_id="req_001")
    staff = UserFactory(username="staff")
    services.request_review(request=request, status="approved", by=staff)
    services.request_review(request=request, status="implemented", by=staff, today=dt.date(2026, 2, 1))


def test_it_reproduces_the_database_through_export_and_import(owner, other, tmp_path):
    _rich_memory(owner)
    export_research(owner, tmp_path / "out")
    summary = import_research(other, tmp_path / "out")
    assert summary.created == 3 + 2 + 2
    assert snapshot(other) == snapshot(owner)
    # tested_by keeps the order the tests were added (exp_b before exp_10, not sorted).
    h001 = next(h for h in snapshot(other)["hypotheses"] if h[0] == "H_001")
    assert h001[-1] == ["exp_b", "exp_10"]
    export_research(other, tmp_path / "again")
    assert tree(tmp_path / "again") == tree(tmp_path / "out")


def test_it_writes_the_seed_layout_with_iso_timestamps_and_dates(owner):
    _rich_memory(owner)
    documents = render_research(owner)
    assert sorted(documents) == [
        "capability_requests.yaml", "experiments/exp_10.yaml", "experiments/exp_a.yaml", "experiments/exp_b.yaml",
        "hypotheses.yaml",
    ]  # fmt: skip
    record = yaml.safe_load(documents["experiments/exp_a.yaml"])["experiment"]
    assert list(record) == ["id", "timestamp", "strategy_name", "source", "context", "results", "assessment"]
    assert record["timestamp"] == "2026-01-05T09:15:30.123456Z"
    assert list(record["context"]) == ["indicators", "composition", "timeframe", "symbol", "extra"]
    assert list(record["context"]["extra"]) == ["a", "b"]
    assert list(record["results"]) == ["test_accuracy", "custom_metric"]
    assert list(record["assessment"]) == ["verdict", "observations", "hypotheses", "limitations", "capability_requests"]
    assert record["assessment"]["hypotheses"] == [
        {"text": "Trend filter helps", "status": "validated", "tested_by": ["exp_b", "exp_10"]},
        {"text": "null", "status": "untested"},
    ]
    assert record["assessment"]["capability_requests"] == ["Tick data", "5m bars"]
    assert "repeat_reason: rerun with new data" in documents["experiments/exp_b.yaml"]
    assert "assessment:\n    verdict: null\n" in documents["experiments/exp_b.yaml"]
    assert "timestamp: '2026-01-06T09:15:30.123456Z'" in documents["experiments/exp_b.yaml"]
    hypotheses = yaml.safe_load(documents["hypotheses.yaml"])["hypotheses"]
    assert list(hypotheses[0]) == ["id", "text", "source_experiment", "rationale", "status", "tested_by", "created"]
    assert hypotheses[0]["created"] == "2026-01-05"
    requests = yaml.safe_load(documents["capability_requests.yaml"])["requests"]
    assert list(requests[0]) == [
        "id", "capability", "rationale", "requested_by", "requested", "status", "implemented",
    ]  # fmt: skip
    assert (requests[0]["implemented"], requests[1]["implemented"]) == ("2026-02-01", None)
    assert "  implemented: null\n" in documents["capability_requests.yaml"]


# -- idempotence and conflicts ----------------------------------------------------------------------------


def test_it_changes_nothing_when_the_same_directory_is_imported_again(owner):
    import_research(owner, BOOTSTRAP)
    before = snapshot(owner)
    rows = sorted(Experiment.objects.filter(owner=owner).values_list("pk", "created_at"))
    summary = import_research(owner, BOOTSTRAP)
    assert summary.created == 0
    assert (summary.experiments_unchanged, summary.hypotheses_unchanged, summary.requests_unchanged) == (5, 10, 2)
    assert snapshot(owner) == before
    assert sorted(Experiment.objects.filter(owner=owner).values_list("pk", "created_at")) == rows
    assert counts(owner) == (5, 10, 2, 1)


def test_it_links_assessment_hypotheses_to_earlier_imports_instead_of_duplicating(owner, bootstrap_copy):
    """The hypotheses created for assessments on the first import are not in the directory's registry."""
    edit(bootstrap_copy / "hypotheses.yaml", lambda d: d.update(hypotheses=d["hypotheses"][:2]))
    first = import_research(owner, bootstrap_copy)
    assert first.hypotheses_created == 10
    second = import_research(owner, bootstrap_copy)
    assert second.created == 0
    assert second.hypotheses_unchanged == 10
    assert counts(owner) == (5, 10, 2, 1)


def test_an_imported_experiment_is_the_row_the_service_writes(owner, other, tmp_path):
    """One write path: the importer goes through services.experiment_create, so the same record imported
    and recorded through the API's service stores the same columns (fingerprint and filter columns too)."""
    context = {"indicators": ["rsi", " Di "], "timeframe": " 4h ", "symbol": "eurusd", "zigzag_threshold": 0.0150}
    timestamp = dt.datetime(2026, 1, 2, 3, 4, tzinfo=dt.UTC)
    services.experiment_record(
        owner=other, experiment_id="exp_same", strategy_name="s", context=context, results={"win_rate": 0.5},
        assessment=services.assessment_from_fields({"verdict": "weak_signal", "observations": ["o"]}),
        timestamp=timestamp,
    )  # fmt: skip
    directory = tmp_path / "set"
    export_research(other, directory)
    import_research(owner, directory)
    columns = ("context", "context_fingerprint", "indicators", "timeframe", "symbol", "results", "verdict")
    imported = Experiment.objects.filter(owner=owner).values(*columns).get()
    recorded = Experiment.objects.filter(owner=other).values(*columns).get()
    assert imported == recorded
    assert (imported["indicators"], imported["timeframe"], imported["symbol"]) == (["RSI", "DI"], "4h", "EURUSD")


def test_the_importer_numbers_new_ids_by_the_services_rule(owner, bootstrap_copy):
    """Registry ids outside the numbered shape (H_x, eleven digits) do not count, for the importer as for
    experiment_record: the next hypothesis after H_7 is H_008 either way."""
    edit(
        bootstrap_copy / "hypotheses.yaml",
        lambda d: d.update(
            hypotheses=[
                {**d["hypotheses"][0], "id": "H_7"},
                {**d["hypotheses"][1], "id": "H_12345678901"},
                {**d["hypotheses"][2], "id": "H_x"},
            ]
        ),
    )
    import_research(owner, bootstrap_copy)
    ids = set(Hypothesis.objects.filter(owner=owner).values_list("hypothesis_id", flat=True))
    assert {"H_7", "H_12345678901", "H_x", "H_008"} <= ids
    assert not {"H_001", "H_12345678902"} & ids
    recorded = services.experiment_record(
        owner=owner, experiment_id="exp_after", strategy_name="s", context={"indicators": ["VWAP"]}, results={},
        assessment=services.assessment_from_fields({"verdict": "no_signal", "hypotheses": [{"text": "next"}]}),
    )  # fmt: skip
    highest = max(int(i[2:]) for i in ids if i[2:].isdigit() and len(i) < 12)
    assert recorded.hypotheses_created[0].hypothesis_id == f"H_{highest + 1:03d}"


def test_it_refuses_an_id_stored_with_different_content_and_writes_nothing(owner, bootstrap_copy):
    import_research(owner, BOOTSTRAP)
    before = snapshot(owner)
    edit(
        bootstrap_copy / "experiments" / "exp_v15_adx_only.yaml",
        lambda d: d["experiment"]["assessment"]["observations"].append("A new observation"),
    )
    edit(bootstrap_copy / "hypotheses.yaml", lambda d: d["hypotheses"][0].update(status="testing"))
    new = bootstrap_copy / "experiments" / "exp_new.yaml"
    new.write_text((BOOTSTRAP / "experiments" / "exp_v15_rsi_di.yaml").read_text().replace("exp_v15_rsi_di", "exp_new"))
    problems = problems_of(owner, bootstrap_copy)
    assert "experiments/exp_v15_adx_only.yaml, exp_v15_adx_only: already stored with different " in problems[0]
    assert "assessment.observations" in problems[0]
    assert "hypotheses.yaml, H_001: already stored with different status" in problems
    assert snapshot(owner) == before
    assert not Experiment.objects.filter(owner=owner, experiment_id="exp_new").exists()


# -- validation ---------------------------------------------------------------------------------------------


def _set(*path, value):
    def change(document):
        target = document
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value

    return change


@pytest.mark.parametrize(
    ("file", "change", "expected"),
    [
        (
            "experiments/exp_v15_adx_only.yaml",
            _set("experiment", "assessment", "verdict", value="great"),
            "experiments/exp_v15_adx_only.yaml, exp_v15_adx_only, assessment.verdict: must be one of "
            "strong_signal, weak_signal, no_signal, overfit; got 'great'",
        ),
        (
            "experiments/exp_v15_rsi_di.yaml",
            _set("experiment", "context", "timeframe", value="1 hour"),
            "experiments/exp_v15_rsi_di.yaml, exp_v15_rsi_di, context.timeframe: must be a count and a unit",
        ),
        (
            "experiments/exp_v15_rsi_di.yaml",
            _set("experiment", "context", "composition", value="solo"),
            "experiments/exp_v15_rsi_di.yaml, exp_v15_rsi_di, context.composition: is 'solo' but",
        ),
        (
            "experiments/exp_20251228_001.yaml",
            lambda d: d["experiment"]["assessment"]["hypotheses"][1].update(status="maybe"),
            "experiments/exp_20251228_001.yaml, exp_20251228_001, assessment.hypotheses.1.status: must be one of "
            "untested, testing, validated, refuted, inconclusive; got 'maybe'",
        ),
        (
            "hypotheses.yaml",
            lambda d: d["hypotheses"][1].update(status="proven"),
            "hypotheses.yaml, H_002, status: must be one of untested",
        ),
        (
            "hypotheses.yaml",
            lambda d: d["hypotheses"][1].update(created="28/12/2025"),
            "hypotheses.yaml, H_002, created: must be a date YYYY-MM-DD",
        ),
        (
            "capability_requests.yaml",
            lambda d: d["requests"][0].update(implemented="2026-01-01"),
            "capability_requests.yaml, req_001, implemented: must be null unless status is implemented",
        ),
        (
            "experiments/exp_v15_rsi_di.yaml",
            _set("experiment", "timestamp", value="2025-12-27T00:00:00"),
            "experiments/exp_v15_rsi_di.yaml, exp_v15_rsi_di, timestamp: must include a timezone offset",
        ),
        (
            "experiments/exp_v15_rsi_di.yaml",
            _set("experiment", "results", "test_accuracy", value=64.8),
            "experiments/exp_v15_rsi_di.yaml, exp_v15_rsi_di, results.test_accuracy:",
        ),
        (
            "experiments/exp_v15_rsi_di.yaml",
            _set("experiment", "sharpe", value=0.4),
            "experiments/exp_v15_rsi_di.yaml, exp_v15_rsi_di, sharpe: unknown field",
        ),
        (
            "experiments/exp_v15_rsi_di.yaml",
            _set("experiment", "id", value="exp_other"),
            "experiments/exp_v15_rsi_di.yaml, exp_other, id: must match the file name (exp_v15_rsi_di)",
        ),
        (
            "experiments/exp_v15_rsi_zigzag_1_5.yaml",
            lambda d: d["experiment"]["assessment"]["hypotheses"][0].update(tested_by=["exp_missing"]),
            "experiments/exp_v15_rsi_zigzag_1_5.yaml, exp_v15_rsi_zigzag_1_5, assessment.hypotheses.0.tested_by: "
            "no experiment exp_missing in the files or among yours",
        ),
        (
            "capability_requests.yaml",
            lambda d: d["requests"][1].update(requested_by="exp_20251228_005"),
            "capability_requests.yaml, req_002, requested_by: no experiment exp_20251228_005",
        ),
        (
            "experiments/exp_v15_adx_only.yaml",
            lambda d: d["experiment"]["assessment"]["hypotheses"][0].update(status="refuted"),
            "experiments/exp_v15_adx_only.yaml, exp_v15_adx_only, assessment.hypotheses.0.status: 'refuted' here "
            "but hypotheses.yaml H_002 (same text and source experiment) has 'untested'",
        ),
    ],
)
def test_it_names_file_record_and_field_of_a_bad_value_and_writes_nothing(
    owner, bootstrap_copy, file, change, expected
):
    edit(bootstrap_copy / file, change)
    problems = problems_of(owner, bootstrap_copy)
    assert any(problem.startswith(expected) for problem in problems), problems
    assert counts(owner) == (0, 0, 0, 0)


def test_it_reports_every_bad_file_at_once(owner, bootstrap_copy):
    (bootstrap_copy / "experiments" / "exp_v15_rsi_di.yaml").write_text("experiment: [unclosed\n")
    (bootstrap_copy / "experiments" / "exp_v15_adx_only.yaml").write_text("record: {}\n")
    edit(bootstrap_copy / "hypotheses.yaml", lambda d: d["hypotheses"].append(dict(d["hypotheses"][0])))
    problems = problems_of(owner, bootstrap_copy)
    assert problems[0].startswith("experiments/exp_v15_adx_only.yaml: must be a mapping with the top-level key")
    assert problems[1].startswith("experiments/exp_v15_rsi_di.yaml: not valid YAML (")
    assert "hypotheses.yaml, H_001, id: appears more than once in this file" in problems
    assert counts(owner) == (0, 0, 0, 0)


def test_it_reports_every_bad_field_of_a_record(owner, bootstrap_copy):
    def change(document):
        record = document["experiment"]
        record["assessment"]["verdict"] = "great"
        record["context"]["timeframe"] = "1 hour"
        record["results"].update(test_accuracy=64.8, measured_on=dt.date(2025, 1, 1))

    edit(bootstrap_copy / "experiments" / "exp_v15_rsi_di.yaml", change)
    where = "experiments/exp_v15_rsi_di.yaml, exp_v15_rsi_di"
    problems = problems_of(owner, bootstrap_copy)
    assert f"{where}, results.measured_on: a date is not a JSON value (quote it)" in problems
    assert f"{where}, results.test_accuracy: Ensure this value is less than or equal to 1." in problems
    assert any(problem.startswith(f"{where}, assessment.verdict: must be one of") for problem in problems)
    assert any(problem.startswith(f"{where}, context.timeframe: must be a count") for problem in problems)
    assert len(problems) == 4


def test_it_refuses_a_missing_or_empty_directory(owner, tmp_path):
    assert problems_of(owner, tmp_path / "nowhere") == [f"{tmp_path / 'nowhere'}: no such directory"]
    assert problems_of(owner, tmp_path) == [
        f"{tmp_path}: no experiments/, hypotheses.yaml or capability_requests.yaml here"
    ]


def test_it_creates_assessment_entries_missing_from_the_registry_with_the_next_ids(owner, tmp_path):
    (tmp_path / "experiments").mkdir()
    (tmp_path / "hypotheses.yaml").write_text(
        "hypotheses:\n- {id: H_007, text: Kept, source_experiment: null, status: testing, created: '2026-01-01'}\n"
    )
    (tmp_path / "capability_requests.yaml").write_text("requests: []\n")
    (tmp_path / "experiments" / "exp_x.yaml").write_text(
        "experiment:\n  id: exp_x\n  timestamp: 2026-01-02T03:04:05+02:00\n  strategy_name: x\n"
        "  context: {indicators: [RSI], timeframe: 1h}\n  results: {}\n"
        "  assessment:\n    verdict: weak_signal\n    hypotheses: [{text: New one}]\n"
        "    capability_requests: [More data]\n"
    )
    summary = import_research(owner, tmp_path)
    assert (summary.hypotheses_created, summary.requests_created) == (2, 1)
    new = Hypothesis.objects.get(owner=owner, hypothesis_id="H_008")
    assert (new.text, new.status, new.source_experiment.experiment_id, new.created) == (
        "New one", "untested", "exp_x", dt.date(2026, 1, 2),
    )  # fmt: skip
    request = CapabilityRequest.objects.get(owner=owner, request_id="req_001")
    assert (request.capability, request.requested_by.experiment_id, request.status) == ("More data", "exp_x", "pending")
    experiment = Experiment.objects.get(owner=owner, experiment_id="exp_x")
    assert experiment.timestamp == dt.datetime(2026, 1, 2, 1, 4, 5, tzinfo=dt.UTC)
    assert experiment.context["composition"] == "solo"
    assert import_research(owner, tmp_path).created == 0


# -- owners -------------------------------------------------------------------------------------------------


def test_it_keeps_owners_apart(owner, other, bootstrap_copy, tmp_path):
    import_research(owner, BOOTSTRAP)
    before = snapshot(owner)
    # The other trader's H_001 says something else: no conflict with the owner's H_001.
    edit(bootstrap_copy / "hypotheses.yaml", lambda d: d["hypotheses"][0].update(text="Another trader's idea"))
    summary = import_research(other, bootstrap_copy)
    assert summary.created == 5 + 11 + 2
    assert snapshot(owner) == before
    assert Hypothesis.objects.get(owner=other, hypothesis_id="H_001").text == "Another trader's idea"
    assert Hypothesis.objects.get(owner=owner, hypothesis_id="H_001").text.startswith("Multi-timeframe (5m")
    # Exports are per owner too.
    export_research(owner, tmp_path / "mine")
    assert tree(tmp_path / "mine") == tree(BOOTSTRAP)


def test_it_checks_references_against_the_owners_experiments_only(owner, other, tmp_path):
    import_research(owner, BOOTSTRAP)
    (tmp_path / "hypotheses.yaml").write_text(
        "hypotheses:\n- {id: H_001, text: T, source_experiment: exp_v15_adx_only, created: '2026-01-01'}\n"
    )
    problems = problems_of(other, tmp_path)
    assert problems == [
        "hypotheses.yaml, H_001, source_experiment: no experiment exp_v15_adx_only in the files or among yours"
    ]


# -- export -------------------------------------------------------------------------------------------------


def test_export_mirrors_the_database_and_reports_unchanged_files(owner, tmp_path):
    import_research(owner, BOOTSTRAP)
    out = tmp_path / "out"
    first = export_research(owner, out)
    assert (first.experiments, first.hypotheses, first.requests, first.files_written) == (5, 10, 2, 7)
    (out / "experiments" / "exp_stale.yaml").write_text("experiment: {}\n")
    (out / "notes.txt").write_text("kept")
    second = export_research(owner, out)
    assert (second.files_written, second.files_unchanged, second.files_removed) == (0, 7, 1)
    assert tree(out) == tree(BOOTSTRAP)
    assert (out / "notes.txt").read_text() == "kept"


def test_export_of_an_empty_memory_reimports_to_nothing(owner, tmp_path):
    export_research(owner, tmp_path / "out")
    assert (tmp_path / "out" / "hypotheses.yaml").read_text() == "hypotheses: []\n"
    assert import_research(owner, tmp_path / "out").created == 0


# -- commands -----------------------------------------------------------------------------------------------


def run(command: str, *args, **options) -> tuple[str, str]:
    out, err = io.StringIO(), io.StringIO()
    call_command(command, *args, stdout=out, stderr=err, **options)
    return out.getvalue(), err.getvalue()


def failure(command: str, *args, **options) -> str:
    with pytest.raises(CommandError) as caught:
        run(command, *args, **options)
    return str(caught.value)


def test_commands_import_and_export(owner, tmp_path):
    out, err = run("import_research", str(BOOTSTRAP), user="owner")
    assert (
        "experiments: 5 created, 0 unchanged; hypotheses: 10 created, 0 unchanged; "
        "capability requests: 2 created, 0 unchanged"
    ) in out
    assert "5/5 experiments" in err
    out, _ = run("import_research", str(BOOTSTRAP), user="owner")
    assert "experiments: 0 created, 5 unchanged" in out
    out, err = run("export_research", str(tmp_path / "out"), user="owner")
    assert "5 experiments, 10 hypotheses, 2 capability requests; files: 7 written, 0 unchanged, 0 removed" in out
    assert "7/7 files" in err
    assert tree(tmp_path / "out") == tree(BOOTSTRAP)


def test_commands_refuse_a_missing_user_or_directory(owner, tmp_path):
    assert failure("import_research", str(BOOTSTRAP), user="nobody") == "no user named 'nobody'"
    assert failure("export_research", str(tmp_path), user="nobody") == "no user named 'nobody'"
    assert failure("import_research", str(tmp_path / "nowhere"), user="owner") == (
        f"{tmp_path / 'nowhere'}: no such directory"
    )
    (tmp_path / "file").write_text("x")
    assert "exists and is not a directory" in failure("export_research", str(tmp_path / "file"), user="owner")
    with pytest.raises(CommandError, match="the following arguments are required: --user"):
        call_command("import_research", str(BOOTSTRAP))


def test_command_reports_validation_errors_and_writes_nothing(owner, bootstrap_copy):
    edit(
        bootstrap_copy / "experiments" / "exp_v15_adx_only.yaml",
        _set("experiment", "assessment", "verdict", value="great"),
    )
    message = failure("import_research", str(bootstrap_copy), user="owner")
    assert message.startswith(f"{bootstrap_copy}: nothing written; 1 problem(s):\n")
    assert "experiments/exp_v15_adx_only.yaml, exp_v15_adx_only, assessment.verdict: must be one of" in message
    assert counts(owner) == (0, 0, 0, 0)
