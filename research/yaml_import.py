"""Loading a research directory (research.yaml_shapes) into a trader's research memory.

`import_research` validates every file first and writes nothing unless all of them are valid and
agree with what the trader already has: an id already stored with different content is an error.
It is one transaction and idempotent. The hypotheses (and capability requests) listed in an
experiment's assessment are the ones that experiment generated: they are linked to the registry's
entry with the same text and source experiment, and only created (next `H_###` / `req_###`) when no
such entry exists.

Experiments are written by ``research.services.experiment_create`` (the one write of an experiment row)
and new ids come from ``research.services.new_hypothesis_ids`` / ``new_request_ids``.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from django.db import transaction

from research import services
from research.ids import natural_key
from research.models import CapabilityRequest, Experiment, Hypothesis, HypothesisTest
from research.selectors import tested_by_of
from research.yaml_shapes import (
    EXPERIMENTS_DIR,
    HYPOTHESES_FILE,
    NOT_A_DIRECTORY,
    REQUESTS_FILE,
    ExperimentRecord,
    GeneratedItem,
    HypothesisRecord,
    Progress,
    RequestRecord,
    ResearchFiles,
    ResearchFilesInvalid,
    experiment_id_of,
    no_progress,
    read_files,
    where,
)

NO_DIRECTORY = "no such directory"
NO_FILES = f"no {EXPERIMENTS_DIR}/, {HYPOTHESES_FILE} or {REQUESTS_FILE} here"
DIFFERENT_CONTENT = "already stored with different {fields}"
UNKNOWN_EXPERIMENT = "no experiment {experiment_id} in the files or among yours"
REGISTRY_DISAGREES = "{value!r} here but {file} {record_id} (same text and source experiment) has {other!r}"


@dataclass(frozen=True)
class ImportSummary:
    experiments_created: int = 0
    experiments_unchanged: int = 0
    hypotheses_created: int = 0
    hypotheses_unchanged: int = 0
    requests_created: int = 0
    requests_unchanged: int = 0

    @property
    def created(self) -> int:
        return self.experiments_created + self.hypotheses_created + self.requests_created

    def __str__(self) -> str:
        return (
            f"experiments: {self.experiments_created} created, {self.experiments_unchanged} unchanged; "
            f"hypotheses: {self.hypotheses_created} created, {self.hypotheses_unchanged} unchanged; "
            f"capability requests: {self.requests_created} created, {self.requests_unchanged} unchanged"
        )


def import_research(owner, directory: Path, *, progress: Progress = no_progress) -> ImportSummary:
    """Load a research directory into `owner`'s memory; raises ResearchFilesInvalid (nothing written)."""
    directory = Path(directory)
    if not directory.is_dir():
        raise ResearchFilesInvalid([f"{directory}: {NOT_A_DIRECTORY if directory.exists() else NO_DIRECTORY}"])
    if not any((directory / name).exists() for name in (EXPERIMENTS_DIR, HYPOTHESES_FILE, REQUESTS_FILE)):
        raise ResearchFilesInvalid([f"{directory}: {NO_FILES}"])
    files = read_files(directory)
    if files.problems:
        raise ResearchFilesInvalid(files.problems)
    with transaction.atomic():
        services.lock_owner(owner)
        return _Import(owner, files, progress).run()


class _Import:
    """Checks the parsed files against the owner's rows, then writes what is new (all or nothing)."""

    def __init__(self, owner, files: ResearchFiles, progress: Progress):
        self.owner, self.files, self.progress = owner, files, progress
        self.problems: list[str] = []
        self.experiments = {e.experiment_id: e for e in Experiment.objects.filter(owner=owner)}
        self.hypotheses = {
            h.hypothesis_id: h for h in Hypothesis.objects.filter(owner=owner).select_related("source_experiment")
        }
        self.requests = {
            r.request_id: r for r in CapabilityRequest.objects.filter(owner=owner).select_related("requested_by")
        }
        self.tested_by = tested_by_of(owner=owner)
        self.known_experiments = set(self.experiments) | {record.id for record in files.experiments}

    def run(self) -> ImportSummary:
        new_experiments = self._check_experiments()
        new_hypotheses = self._check_registry(
            self.files.hypotheses, self.hypotheses, _stored_hypothesis, ("source_experiment", "tested_by")
        )
        new_requests = self._check_registry(self.files.requests, self.requests, _stored_request, ("requested_by",))
        links = self._link_assessments()
        if self.problems:
            raise ResearchFilesInvalid(self.problems)

        total = len(new_experiments)
        for done, record in enumerate(new_experiments, start=1):
            self.experiments[record.id] = services.experiment_create(
                owner=self.owner, experiment_id=record.id, **record.values
            )
            self.progress(done, total)
        created = [
            (
                Hypothesis.objects.create(
                    owner=self.owner, hypothesis_id=record.id, text=record.text, rationale=record.rationale,
                    source_experiment=self._experiment(record.source_experiment), status=record.status,
                    created=record.created,
                ),
                record.tested_by,
            )
            for record in new_hypotheses
        ]  # fmt: skip
        for hypothesis_id, experiment_id, item in links.hypotheses:
            experiment = self.experiments[experiment_id]
            hypothesis = Hypothesis.objects.create(
                owner=self.owner, hypothesis_id=hypothesis_id, text=item.text, source_experiment=experiment,
                status=item.status, created=_utc_date(experiment.timestamp),
            )  # fmt: skip
            created.append((hypothesis, item.tested_by))
        # In list order, so tested_by reads back in the file's order (HypothesisTest orders by added_at, id).
        HypothesisTest.objects.bulk_create(
            HypothesisTest(hypothesis=hypothesis, experiment=self.experiments[experiment_id])
            for hypothesis, tested_by in created
            for experiment_id in tested_by
        )
        for record in new_requests:
            CapabilityRequest.objects.create(
                owner=self.owner, request_id=record.id, capability=record.capability, rationale=record.rationale,
                requested_by=self._experiment(record.requested_by), requested=record.requested,
                status=record.status, implemented=record.implemented,
            )  # fmt: skip
        for request_id, experiment_id, capability in links.requests:
            experiment = self.experiments[experiment_id]
            CapabilityRequest.objects.create(
                owner=self.owner, request_id=request_id, capability=capability, requested_by=experiment,
                requested=_utc_date(experiment.timestamp),
            )  # fmt: skip
        return ImportSummary(
            experiments_created=len(new_experiments),
            experiments_unchanged=len(self.files.experiments) - len(new_experiments),
            hypotheses_created=len(created),
            hypotheses_unchanged=len(self.files.hypotheses) - len(new_hypotheses) + links.stored_hypotheses,
            requests_created=len(new_requests) + len(links.requests),
            requests_unchanged=len(self.files.requests) - len(new_requests) + links.stored_requests,
        )

    def _experiment(self, experiment_id: str | None) -> Experiment | None:
        return self.experiments[experiment_id] if experiment_id else None

    def _reference(self, experiment_id: str | None, where: str) -> None:
        if experiment_id and experiment_id not in self.known_experiments:
            self.problems.append(f"{where}: {UNKNOWN_EXPERIMENT.format(experiment_id=experiment_id)}")

    def _check_experiments(self) -> list[ExperimentRecord]:
        new = []
        for record in self.files.experiments:
            for index, item in enumerate(record.hypotheses):
                for experiment_id in item.tested_by:
                    location = where(record.file, record.id, f"assessment.hypotheses.{index}.tested_by")
                    self._reference(experiment_id, location)
            stored = self.experiments.get(record.id)
            if stored is None:
                new.append(record)
                continue
            differing = [name for name, value in record.values.items() if getattr(stored, name) != value]
            if differing:
                message = DIFFERENT_CONTENT.format(fields=", ".join(_file_field(name) for name in differing))
                self.problems.append(f"{where(record.file, record.id)}: {message}")
        return sorted(new, key=lambda r: (r.values["timestamp"], natural_key(r.id)))

    def _check_registry(self, records, stored_rows: dict, stored_values, references: tuple[str, ...]) -> list:
        new = []
        for record in records:
            for name in references:
                value = getattr(record, name)
                for experiment_id in value if isinstance(value, list) else [value]:
                    self._reference(experiment_id, where(record.file, record.id, name))
            stored = stored_rows.get(record.id)
            if stored is None:
                new.append(record)
                continue
            current = stored_values(stored, self.tested_by)
            differing = [name for name, value in record.comparable().items() if current[name] != value]
            if differing:
                message = DIFFERENT_CONTENT.format(fields=", ".join(differing))
                self.problems.append(f"{where(record.file, record.id)}: {message}")
        return new

    def _link_assessments(self) -> _Links:
        """Match each assessment's hypotheses and requests to registry entries (the files' first, then
        stored rows) with the same text and source experiment; the unmatched get the next ids."""
        file_hypotheses = {r.id for r in self.files.hypotheses}
        hypothesis_candidates = _candidates(
            [(r.id, r.source_experiment, r.text, r) for r in self.files.hypotheses],
            [
                (h.hypothesis_id, experiment_id_of(h.source_experiment), h.text, h)
                for h in self.hypotheses.values()
                if h.hypothesis_id not in file_hypotheses
            ],
        )
        file_requests = {r.id for r in self.files.requests}
        request_candidates = _candidates(
            [(r.id, r.requested_by, r.capability, r) for r in self.files.requests],
            [
                (r.request_id, experiment_id_of(r.requested_by), r.capability, r)
                for r in self.requests.values()
                if r.request_id not in file_requests
            ],
        )
        hypothesis_ids = services.new_hypothesis_ids(owner=self.owner, reserved=file_hypotheses)
        request_ids = services.new_request_ids(owner=self.owner, reserved=file_requests)
        links = _Links()
        for record in sorted(self.files.experiments, key=lambda r: (r.values["timestamp"], natural_key(r.id))):
            for index, item in enumerate(record.hypotheses):
                wanted = (item.status, item.tested_by)
                match = _take(
                    hypothesis_candidates, record.id, item.text, lambda c, wanted=wanted: self._state(c) == wanted
                )
                if match is None:
                    links.hypotheses.append((next(hypothesis_ids), record.id, item))
                    continue
                match_id, candidate = match
                in_files = isinstance(candidate, HypothesisRecord)
                links.stored_hypotheses += not in_files
                source = HYPOTHESES_FILE if in_files else "the stored hypothesis"
                location = where(record.file, record.id, f"assessment.hypotheses.{index}")
                for name, value, other in zip(("status", "tested_by"), wanted, self._state(candidate), strict=True):
                    if value != other:
                        disagreement = REGISTRY_DISAGREES.format(
                            value=value, file=source, record_id=match_id, other=other
                        )
                        self.problems.append(f"{location}.{name}: {disagreement}")
            for capability in record.capability_requests:
                match = _take(request_candidates, record.id, capability, lambda c: True)
                if match is None:
                    links.requests.append((next(request_ids), record.id, capability))
                else:
                    links.stored_requests += not isinstance(match[1], RequestRecord)
        return links

    def _state(self, candidate) -> tuple[str, list[str]]:
        if isinstance(candidate, HypothesisRecord):
            return candidate.status, list(candidate.tested_by)
        return candidate.status, self.tested_by.get(candidate.pk, [])


@dataclass
class _Links:
    hypotheses: list[tuple[str, str, GeneratedItem]] = field(default_factory=list)  # (new id, experiment id, item)
    requests: list[tuple[str, str, str]] = field(default_factory=list)  # (new id, experiment id, capability)
    stored_hypotheses: int = 0  # matched to stored rows the registry file does not list
    stored_requests: int = 0


def _candidates(from_files: list[tuple], stored: list[tuple]) -> dict[tuple, list[tuple]]:
    """(source experiment id, text) → [(entry id, entry)] in natural id order, file entries first."""
    candidates: dict[tuple, list[tuple]] = {}
    for group in (from_files, stored):
        for entry_id, source, content, entry in sorted(group, key=lambda item: natural_key(item[0])):
            candidates.setdefault((source, content), []).append((entry_id, entry))
    return candidates


def _take(candidates: dict, source: str, content: str, agrees: Callable) -> tuple | None:
    """Consume the first candidate that agrees with the listed entry, else the first one at all."""
    options = candidates.get((source, content)) or []
    if not options:
        return None
    chosen = next((option for option in options if agrees(option[1])), options[0])
    options.remove(chosen)
    return chosen


def _stored_hypothesis(hypothesis: Hypothesis, tested_by: dict[int, list[str]]) -> dict:
    return {
        "text": hypothesis.text, "source_experiment": experiment_id_of(hypothesis.source_experiment),
        "rationale": hypothesis.rationale, "status": hypothesis.status,
        "tested_by": tested_by.get(hypothesis.pk, []), "created": hypothesis.created,
    }  # fmt: skip


def _stored_request(request: CapabilityRequest, tested_by: dict[int, list[str]]) -> dict:
    return {
        "capability": request.capability, "rationale": request.rationale,
        "requested_by": experiment_id_of(request.requested_by), "requested": request.requested,
        "status": request.status, "implemented": request.implemented,
    }  # fmt: skip


def _file_field(name: str) -> str:
    return f"assessment.{name}" if name in ("verdict", "observations", "limitations") else name


def _utc_date(timestamp: dt.datetime) -> dt.date:
    return timestamp.astimezone(dt.UTC).date()
