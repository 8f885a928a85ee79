"""Writing a trader's research memory as a research directory (research.yaml_shapes).

`export_research` writes the same layout in a canonical form (ids in natural order, the seed's key
order, context/results keys in the seed's order then alphabetical since the database does not keep
key order), so import → export → import → export is byte-identical and import(export(db)) gives the
same rows back.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import yaml

from research.experiment_context import CONTEXT_KEYS
from research.ids import natural_key
from research.models import CapabilityRequest, Experiment, Hypothesis
from research.selectors import tested_by_of
from research.yaml_shapes import (
    EXPERIMENTS_DIR,
    HYPOTHESES_FILE,
    NOT_A_DIRECTORY,
    REQUESTS_FILE,
    Progress,
    ResearchFilesInvalid,
    experiment_id_of,
    no_progress,
)

# The seed's key order for the free-form mappings (the database keeps keys, not their order):
# CONTEXT_KEYS (research.experiment_context) and
RESULTS_KEYS = ("test_accuracy", "val_accuracy", "val_test_gap", "sharpe_ratio", "total_trades", "win_rate")


@dataclass(frozen=True)
class ExportSummary:
    experiments: int = 0
    hypotheses: int = 0
    requests: int = 0
    files_written: int = 0
    files_unchanged: int = 0
    files_removed: int = 0

    def __str__(self) -> str:
        return (
            f"{self.experiments} experiments, {self.hypotheses} hypotheses, {self.requests} capability requests; "
            f"files: {self.files_written} written, {self.files_unchanged} unchanged, {self.files_removed} removed"
        )


def render_research(owner) -> dict[str, str]:
    """The owner's research memory as {relative path: YAML text}, in the canonical form."""
    experiments = sorted(Experiment.objects.filter(owner=owner), key=lambda e: natural_key(e.experiment_id))
    hypotheses = sorted(
        Hypothesis.objects.filter(owner=owner).select_related("source_experiment"),
        key=lambda h: natural_key(h.hypothesis_id),
    )
    requests = sorted(
        CapabilityRequest.objects.filter(owner=owner).select_related("requested_by"),
        key=lambda r: natural_key(r.request_id),
    )
    tested_by = tested_by_of(owner=owner)
    generated: dict[int, list[dict]] = {}
    for hypothesis in hypotheses:
        if hypothesis.source_experiment_id is not None:
            item = {"text": hypothesis.text, "status": hypothesis.status}
            if tested_by.get(hypothesis.pk):
                item["tested_by"] = tested_by[hypothesis.pk]
            generated.setdefault(hypothesis.source_experiment_id, []).append(item)
    requested: dict[int, list[str]] = {}
    for request in requests:
        if request.requested_by_id is not None:
            requested.setdefault(request.requested_by_id, []).append(request.capability)

    documents = {}
    for experiment in experiments:
        record = {
            "id": experiment.experiment_id,
            "timestamp": _iso_timestamp(experiment.timestamp),
            "strategy_name": experiment.strategy_name,
        }
        if experiment.source:
            record["source"] = experiment.source
        if experiment.repeat_reason:
            record["repeat_reason"] = experiment.repeat_reason
        record["context"] = _ordered(experiment.context, CONTEXT_KEYS, experiment.context)
        record["results"] = _ordered(experiment.results, RESULTS_KEYS)
        record["assessment"] = {
            "verdict": experiment.verdict,
            "observations": list(experiment.observations),
            "hypotheses": generated.get(experiment.pk, []),
            "limitations": list(experiment.limitations),
            "capability_requests": requested.get(experiment.pk, []),
        }
        documents[f"{EXPERIMENTS_DIR}/{experiment.experiment_id}.yaml"] = _dump({"experiment": record})
    documents[HYPOTHESES_FILE] = _dump(
        {
            "hypotheses": [
                {
                    "id": hypothesis.hypothesis_id,
                    "text": hypothesis.text,
                    "source_experiment": experiment_id_of(hypothesis.source_experiment),
                    "rationale": hypothesis.rationale,
                    "status": hypothesis.status,
                    "tested_by": tested_by.get(hypothesis.pk, []),
                    "created": hypothesis.created.isoformat(),
                }
                for hypothesis in hypotheses
            ]
        }
    )
    documents[REQUESTS_FILE] = _dump(
        {
            "requests": [
                {
                    "id": request.request_id,
                    "capability": request.capability,
                    "rationale": request.rationale,
                    "requested_by": experiment_id_of(request.requested_by),
                    "requested": request.requested.isoformat(),
                    "status": request.status,
                    "implemented": request.implemented.isoformat() if request.implemented else None,
                }
                for request in requests
            ]
        }
    )
    return documents


def export_research(owner, directory: Path, *, progress: Progress = no_progress) -> ExportSummary:
    """Write the owner's research memory to `directory` (created if missing). The directory mirrors the
    database afterwards: experiments/*.yaml files of experiments the owner does not have are removed."""
    directory = Path(directory)
    if directory.exists() and not directory.is_dir():
        raise ResearchFilesInvalid([f"{directory}: {NOT_A_DIRECTORY}"])
    documents = render_research(owner)
    (directory / EXPERIMENTS_DIR).mkdir(parents=True, exist_ok=True)
    written = unchanged = 0
    total = len(documents)
    for done, (relative, content) in enumerate(documents.items(), start=1):
        path = directory / relative
        data = content.encode("utf-8")
        if path.is_file() and path.read_bytes() == data:
            unchanged += 1
        else:
            path.write_bytes(data)
            written += 1
        progress(done, total)
    removed = 0
    for path in sorted((directory / EXPERIMENTS_DIR).glob("*.yaml")):
        if f"{EXPERIMENTS_DIR}/{path.name}" not in documents:
            path.unlink()
            removed += 1
    experiments = sum(1 for relative in documents if relative.startswith(f"{EXPERIMENTS_DIR}/"))
    return ExportSummary(
        experiments=experiments,
        hypotheses=Hypothesis.objects.filter(owner=owner).count(),
        requests=CapabilityRequest.objects.filter(owner=owner).count(),
        files_written=written,
        files_unchanged=unchanged,
        files_removed=removed,
    )


def _iso_timestamp(timestamp: dt.datetime) -> str:
    return timestamp.astimezone(dt.UTC).isoformat().replace("+00:00", "Z")


def _ordered(value, first: tuple[str, ...] = (), context: Mapping | None = None):
    """A stable key order: `first` (the seed's), then alphabetical; indicator_params follows indicators."""
    if isinstance(value, list):
        return [_ordered(item) for item in value]
    if not isinstance(value, dict):
        return value
    keys = [key for key in first if key in value] + sorted(key for key in value if key not in first)
    ordered = {}
    for key in keys:
        if key == "indicator_params" and context is not None and isinstance(value[key], dict):
            indicators = [name for name in context.get("indicators") or [] if isinstance(name, str)]
            ordered[key] = _ordered(value[key], tuple(dict.fromkeys(indicators)))
        else:
            ordered[key] = _ordered(value[key])
    return ordered


def _dump(document: dict) -> str:
    # A wide line so every scalar stays on one line (diffs and greps stay readable).
    return yaml.safe_dump(document, sort_keys=False, allow_unicode=True, width=4096)
