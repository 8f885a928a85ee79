"""Research memory as the seed's YAML files (research-memory.md), in and out of the database.

Layout of a research directory:

    experiments/<id>.yaml      one `experiment:` record each (id, timestamp, strategy_name, source?,
                               repeat_reason?, context, results, assessment)
    hypotheses.yaml            `hypotheses:` [{id, text, source_experiment, rationale, status, tested_by, created}]
    capability_requests.yaml   `requests:` [{id, capability, rationale, requested_by, requested, status, implemented}]

`import_research` validates every file first and writes nothing unless all of them are valid and
agree with what the trader already has: an id already stored with different content is an error.
It is one transaction and idempotent. The hypotheses (and capability requests) listed in an
experiment's assessment are the ones that experiment generated: they are linked to the registry's
entry with the same text and source experiment, and only created (next `H_###` / `req_###`) when no
such entry exists.

`export_research` writes the same layout in a canonical form (ids in natural order, the seed's key
order, context/results keys in the seed's order then alphabetical since the database does not keep
key order), so import → export → import → export is byte-identical and import(export(db)) gives the
same rows back.
"""

from __future__ import annotations

import datetime as dt
import math
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

import yaml
from django.db import transaction
from rest_framework import serializers

from memorysite.api import AwareDateTimeField, StrictSerializer, choice, flatten_errors
from memorysite.api import text as text_field
from research.core import CONTEXT_KEYS, ContextError, clean_context, context_fingerprint
from research.models import (
    HYPOTHESIS_STATUSES,
    REQUEST_STATUSES,
    VERDICTS,
    CapabilityRequest,
    Experiment,
    Hypothesis,
    HypothesisTest,
)
from research.serializers import ID_PATTERN, ResultsInput
from research.services import lock_owner

EXPERIMENTS_DIR = "experiments"
HYPOTHESES_FILE = "hypotheses.yaml"
REQUESTS_FILE = "capability_requests.yaml"
MAX_REPORTED_PROBLEMS = 30
# Observations and limitations recorded from assessment markdown are not cut to the API's 1,000
# characters, so the importer takes what the markdown route can store (its whole-text limit).
ITEM_MAX_CHARS = 20_000

# The seed's key order for the free-form mappings (the database keeps keys, not their order):
# CONTEXT_KEYS (from research.core) and
RESULTS_KEYS = ("test_accuracy", "val_accuracy", "val_test_gap", "sharpe_ratio", "total_trades", "win_rate")

NO_DIRECTORY = "no such directory"
NO_FILES = f"no {EXPERIMENTS_DIR}/, {HYPOTHESES_FILE} or {REQUESTS_FILE} here"
NOT_A_DIRECTORY = "exists and is not a directory"
ID_RULE = "must be letters, digits, _ . : - starting with a letter or digit"
DATE_RULE = "must be a date YYYY-MM-DD"
FILE_NAME_MISMATCH = "must match the file name ({stem})"
DIFFERENT_CONTENT = "already stored with different {fields}"
UNKNOWN_EXPERIMENT = "no experiment {experiment_id} in the files or among yours"
LISTED_TWICE = "lists {experiment_id} twice"
DUPLICATE_ID = "appears more than once in this file"
IMPLEMENTED_DATE = "must be null unless status is implemented"
REGISTRY_DISAGREES = "{value!r} here but {file} {record_id} (same text and source experiment) has {other!r}"


class ResearchFilesInvalid(Exception):
    """Nothing was written: `problems` are "<file>, <record id>, <field>: <rule>" lines."""

    def __init__(self, problems: list[str]):
        self.problems = problems
        shown = problems[:MAX_REPORTED_PROBLEMS]
        more = len(problems) - len(shown)
        listing = "\n".join(shown) + (f"\n... and {more} more" if more else "")
        super().__init__(f"nothing written; {len(problems)} problem(s):\n{listing}")


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


Progress = Callable[[int, int], None]


def _no_progress(done: int, total: int) -> None:
    pass


# -- file shapes ---------------------------------------------------------------------------------------


def _id_field(**kwargs) -> serializers.RegexField:
    return serializers.RegexField(
        ID_PATTERN, max_length=100, error_messages={"invalid": ID_RULE, "max_length": "must be at most 100 characters"},
        **kwargs,
    )  # fmt: skip


def _date_field(**kwargs) -> serializers.DateField:
    return serializers.DateField(error_messages={"invalid": DATE_RULE, "datetime": DATE_RULE}, **kwargs)


def _texts(max_length: int = 1000) -> serializers.ListField:
    return serializers.ListField(child=text_field(max_length=max_length), required=False, default=list)


def _ids() -> serializers.ListField:
    return serializers.ListField(child=_id_field(), required=False, default=list)


def _json_problems(value, path: str = "") -> list[tuple[str, str]]:
    """(dotted path, rule) for each part of `value` that cannot be stored as JSON and read back the same."""
    here = path or "non_field_errors"
    if value is None or isinstance(value, str | bool | int):
        return []
    if isinstance(value, float):
        return [] if math.isfinite(value) else [(here, "must be a finite number")]
    if isinstance(value, list):
        return [problem for index, item in enumerate(value) for problem in _json_problems(item, f"{path}.{index}")]
    if isinstance(value, dict):
        problems = []
        for key, item in value.items():
            if not isinstance(key, str):
                problems.append((here, f"key {key!r} must be text (quote it)"))
            else:
                problems.extend(_json_problems(item, f"{path}.{key}" if path else key))
        return problems
    kind = "a date" if isinstance(value, dt.date) else type(value).__name__
    return [(here, f"{kind} is not a JSON value (quote it)")]


class _Mapping(serializers.Field):
    """A mapping passed through as given (the context's rules are research.core.clean_context's)."""

    default_error_messages = {"not_a_mapping": "must be a mapping"}

    def to_internal_value(self, data):
        if not isinstance(data, dict):
            self.fail("not_a_mapping")
        return data


class _Results(ResultsInput):
    """The API's rules for results, and every value JSON that reads back the same."""

    def to_internal_value(self, data):
        errors: dict[str, list[str]] = {}
        for path, rule in _json_problems(data) if isinstance(data, dict) else []:
            errors.setdefault(path, []).append(rule)
        try:
            value = super().to_internal_value(data)
        except serializers.ValidationError as exc:
            if not isinstance(exc.detail, dict):
                raise
            for path, rules in exc.detail.items():
                errors.setdefault(path, []).extend(rules)
        if errors:
            raise serializers.ValidationError(errors)
        return value


class _GeneratedHypothesis(StrictSerializer):
    text = text_field(max_length=1000)
    status = choice(HYPOTHESIS_STATUSES, required=False, default="untested", echo_input=True)
    tested_by = _ids()


class _Assessment(StrictSerializer):
    verdict = choice(VERDICTS, allow_null=True, echo_input=True)
    observations = _texts(ITEM_MAX_CHARS)
    hypotheses = _GeneratedHypothesis(many=True, required=False, default=list)
    limitations = _texts(ITEM_MAX_CHARS)
    capability_requests = _texts()


class _ExperimentFile(StrictSerializer):
    id = _id_field()
    timestamp = AwareDateTimeField()
    strategy_name = text_field(max_length=200)
    source = text_field(max_length=200, required=False, allow_blank=True, default="")
    repeat_reason = text_field(max_length=1000, required=False, allow_blank=True, default="")
    context = _Mapping()
    results = _Results(required=False, default=dict)
    assessment = _Assessment(required=False, allow_null=True, default=None)


class _HypothesisEntry(StrictSerializer):
    id = _id_field()
    text = text_field(max_length=1000)
    source_experiment = _id_field(required=False, allow_null=True, default=None)
    rationale = text_field(max_length=2000, multiline=True, required=False, allow_blank=True, default="")
    status = choice(HYPOTHESIS_STATUSES, required=False, default="untested", echo_input=True)
    tested_by = _ids()
    created = _date_field()


class _RequestEntry(StrictSerializer):
    id = _id_field()
    capability = text_field(max_length=1000)
    rationale = text_field(max_length=2000, multiline=True, required=False, allow_blank=True, default="")
    requested_by = _id_field(required=False, allow_null=True, default=None)
    requested = _date_field()
    status = choice(REQUEST_STATUSES, required=False, default="pending", echo_input=True)
    implemented = _date_field(required=False, allow_null=True, default=None)

    def validate(self, data):
        if data["implemented"] is not None and data["status"] != "implemented":
            raise serializers.ValidationError({"implemented": [IMPLEMENTED_DATE]})
        return data


# -- parsed records ------------------------------------------------------------------------------------


@dataclass
class _Generated:
    text: str
    status: str
    tested_by: list[str]


@dataclass
class _ExperimentRecord:
    file: str
    id: str
    values: dict  # Experiment model fields, context cleaned
    hypotheses: list[_Generated]
    capability_requests: list[str]


@dataclass
class _HypothesisRecord:
    file: str
    id: str
    text: str
    source_experiment: str | None
    rationale: str
    status: str
    tested_by: list[str]
    created: dt.date

    def comparable(self) -> dict:
        return {
            "text": self.text, "source_experiment": self.source_experiment, "rationale": self.rationale,
            "status": self.status, "tested_by": list(self.tested_by), "created": self.created,
        }  # fmt: skip


@dataclass
class _RequestRecord:
    file: str
    id: str
    capability: str
    rationale: str
    requested_by: str | None
    requested: dt.date
    status: str
    implemented: dt.date | None

    def comparable(self) -> dict:
        return {
            "capability": self.capability, "rationale": self.rationale, "requested_by": self.requested_by,
            "requested": self.requested, "status": self.status, "implemented": self.implemented,
        }  # fmt: skip


@dataclass
class _Files:
    experiments: list[_ExperimentRecord] = field(default_factory=list)
    hypotheses: list[_HypothesisRecord] = field(default_factory=list)
    requests: list[_RequestRecord] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


def _where(file: str, record_id: str | None = None, field_path: str | None = None) -> str:
    return ", ".join(part for part in (file, record_id, field_path) if part)


# -- reading -------------------------------------------------------------------------------------------


_UNREADABLE = object()


def _load_yaml(path: Path, name: str, problems: list[str]):
    """The file's YAML document, or _UNREADABLE (with the reason added to `problems`)."""
    try:
        return yaml.safe_load(path.read_text(encoding="utf-8"))
    except UnicodeDecodeError:
        problems.append(f"{name}: not UTF-8 text")
    except yaml.YAMLError as exc:
        problems.append(f"{name}: not valid YAML ({' '.join(str(exc).split())})")
    except OSError as exc:
        problems.append(f"{name}: cannot read ({exc.strerror or exc})")
    return _UNREADABLE


def _single_key(document, name: str, key: str, problems: list[str]):
    """The value under `key`, the document's only top-level key (None, with a problem, otherwise)."""
    if not isinstance(document, dict) or key not in document:
        problems.append(f"{name}: must be a mapping with the top-level key {key!r}")
        return None
    extra = sorted(str(other) for other in document if other != key)
    if extra:
        problems.append(f"{name}: unknown top-level key(s) {', '.join(extra)}; only {key!r} is accepted")
        return None
    return document[key]


def _validated(serializer_class, data, name: str, record_id: str | None, problems: list[str]) -> dict | None:
    serializer = serializer_class(data=data)
    if serializer.is_valid():
        return serializer.validated_data
    for path, messages in flatten_errors(serializer.errors).items():
        for message in messages:
            problems.append(f"{_where(name, record_id, None if path == 'non_field_errors' else path)}: {message}")
    return None


def _record_id(data, fallback: str) -> str:
    value = data.get("id") if isinstance(data, dict) else None
    return value if isinstance(value, str) and re.fullmatch(ID_PATTERN, value) else fallback


def _read_experiment(path: Path, files: _Files) -> None:
    name = f"{EXPERIMENTS_DIR}/{path.name}"
    document = _load_yaml(path, name, files.problems)
    if document is _UNREADABLE:
        return
    data = _single_key(document, name, "experiment", files.problems)
    if data is None:
        return
    if isinstance(data, dict) and isinstance(data.get("timestamp"), dt.datetime):
        data = {**data, "timestamp": data["timestamp"].isoformat()}  # an unquoted YAML timestamp
    record_id = _record_id(data, path.stem)
    valid = _validated(_ExperimentFile, data, name, record_id, files.problems)
    context = None
    if isinstance(data, dict) and isinstance(data.get("context"), dict):  # checked even when other fields fail
        try:
            context = clean_context(data["context"])
        except ContextError as exc:
            files.problems.append(f"{_where(name, record_id, exc.field)}: {exc.message}")
    if valid is None or context is None:
        return
    if valid["id"] != path.stem:
        files.problems.append(f"{_where(name, record_id, 'id')}: {FILE_NAME_MISMATCH.format(stem=path.stem)}")
        return
    assessment = valid["assessment"] or {}
    files.experiments.append(
        _ExperimentRecord(
            file=name,
            id=valid["id"],
            values={
                "timestamp": valid["timestamp"],
                "strategy_name": valid["strategy_name"],
                "source": valid["source"],
                "repeat_reason": valid["repeat_reason"],
                "context": context,
                "results": dict(valid["results"]),
                "verdict": assessment.get("verdict"),
                "observations": list(assessment.get("observations", [])),
                "limitations": list(assessment.get("limitations", [])),
            },
            hypotheses=[
                _Generated(item["text"], item["status"], list(item["tested_by"]))
                for item in assessment.get("hypotheses", [])
            ],
            capability_requests=list(assessment.get("capability_requests", [])),
        )
    )
    for index, item in enumerate(assessment.get("hypotheses", [])):
        _check_listed_once(item["tested_by"], name, record_id, f"assessment.hypotheses.{index}.tested_by", files)


def _check_listed_once(experiment_ids: list[str], name: str, record_id: str, path: str, files: _Files) -> None:
    for experiment_id in sorted({e for e in experiment_ids if experiment_ids.count(e) > 1}):
        files.problems.append(f"{_where(name, record_id, path)}: {LISTED_TWICE.format(experiment_id=experiment_id)}")


def _read_registry(directory: Path, name: str, key: str, serializer_class, files: _Files) -> list[tuple[str, dict]]:
    path = directory / name
    if not path.exists():
        return []
    document = _load_yaml(path, name, files.problems)
    if document is _UNREADABLE or document is None:  # an empty file is an empty registry
        return []
    entries = _single_key(document, name, key, files.problems)
    if entries is None:
        return []
    if not isinstance(entries, list):
        files.problems.append(f"{name}, {key}: must be a list")
        return []
    valid_entries, seen = [], set()
    for index, entry in enumerate(entries):
        record_id = _record_id(entry, f"entry {index + 1}")
        valid = _validated(serializer_class, entry, name, record_id, files.problems)
        if valid is None:
            continue
        if valid["id"] in seen:
            files.problems.append(f"{_where(name, record_id, 'id')}: {DUPLICATE_ID}")
            continue
        seen.add(valid["id"])
        valid_entries.append((record_id, valid))
    return valid_entries


def _read_files(directory: Path) -> _Files:
    files = _Files()
    experiments_dir = directory / EXPERIMENTS_DIR
    if experiments_dir.is_dir():
        for path in sorted(experiments_dir.glob("*.yaml"), key=lambda p: _natural(p.stem)):
            _read_experiment(path, files)
    for record_id, valid in _read_registry(directory, HYPOTHESES_FILE, "hypotheses", _HypothesisEntry, files):
        _check_listed_once(valid["tested_by"], HYPOTHESES_FILE, record_id, "tested_by", files)
        files.hypotheses.append(_HypothesisRecord(file=HYPOTHESES_FILE, **valid))
    for _, valid in _read_registry(directory, REQUESTS_FILE, "requests", _RequestEntry, files):
        files.requests.append(_RequestRecord(file=REQUESTS_FILE, **valid))
    return files


# -- import --------------------------------------------------------------------------------------------


def import_research(owner, directory: Path, *, progress: Progress = _no_progress) -> ImportSummary:
    """Load a research directory into `owner`'s memory; raises ResearchFilesInvalid (nothing written)."""
    directory = Path(directory)
    if not directory.is_dir():
        raise ResearchFilesInvalid([f"{directory}: {NOT_A_DIRECTORY if directory.exists() else NO_DIRECTORY}"])
    if not any((directory / name).exists() for name in (EXPERIMENTS_DIR, HYPOTHESES_FILE, REQUESTS_FILE)):
        raise ResearchFilesInvalid([f"{directory}: {NO_FILES}"])
    files = _read_files(directory)
    if files.problems:
        raise ResearchFilesInvalid(files.problems)
    with transaction.atomic():
        lock_owner(owner)
        return _Import(owner, files, progress).run()


class _Import:
    """Checks the parsed files against the owner's rows, then writes what is new (all or nothing)."""

    def __init__(self, owner, files: _Files, progress: Progress):
        self.owner, self.files, self.progress = owner, files, progress
        self.problems: list[str] = []
        self.experiments = {e.experiment_id: e for e in Experiment.objects.filter(owner=owner)}
        self.hypotheses = {
            h.hypothesis_id: h for h in Hypothesis.objects.filter(owner=owner).select_related("source_experiment")
        }
        self.requests = {
            r.request_id: r for r in CapabilityRequest.objects.filter(owner=owner).select_related("requested_by")
        }
        self.tested_by: dict[int, list[str]] = {}
        for hypothesis_pk, experiment_id in (
            HypothesisTest.objects.filter(hypothesis__owner=owner)
            .order_by("added_at", "id")
            .values_list("hypothesis_id", "experiment__experiment_id")
        ):
            self.tested_by.setdefault(hypothesis_pk, []).append(experiment_id)
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
            self.experiments[record.id] = _create_experiment(self.owner, record)
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

    def _check_experiments(self) -> list[_ExperimentRecord]:
        new = []
        for record in self.files.experiments:
            for index, item in enumerate(record.hypotheses):
                for experiment_id in item.tested_by:
                    where = _where(record.file, record.id, f"assessment.hypotheses.{index}.tested_by")
                    self._reference(experiment_id, where)
            stored = self.experiments.get(record.id)
            if stored is None:
                new.append(record)
                continue
            differing = [name for name, value in record.values.items() if getattr(stored, name) != value]
            if differing:
                message = DIFFERENT_CONTENT.format(fields=", ".join(_file_field(name) for name in differing))
                self.problems.append(f"{_where(record.file, record.id)}: {message}")
        return sorted(new, key=lambda r: (r.values["timestamp"], _natural(r.id)))

    def _check_registry(self, records, stored_rows: dict, stored_values, references: tuple[str, ...]) -> list:
        new = []
        for record in records:
            for name in references:
                value = getattr(record, name)
                for experiment_id in value if isinstance(value, list) else [value]:
                    self._reference(experiment_id, _where(record.file, record.id, name))
            stored = stored_rows.get(record.id)
            if stored is None:
                new.append(record)
                continue
            current = stored_values(stored, self.tested_by)
            differing = [name for name, value in record.comparable().items() if current[name] != value]
            if differing:
                message = DIFFERENT_CONTENT.format(fields=", ".join(differing))
                self.problems.append(f"{_where(record.file, record.id)}: {message}")
        return new

    def _link_assessments(self) -> _Links:
        """Match each assessment's hypotheses and requests to registry entries (the files' first, then
        stored rows) with the same text and source experiment; the unmatched get the next ids."""
        file_hypotheses = {r.id for r in self.files.hypotheses}
        hypothesis_candidates = _candidates(
            [(r.id, r.source_experiment, r.text, r) for r in self.files.hypotheses],
            [
                (h.hypothesis_id, _experiment_id(h.source_experiment), h.text, h)
                for h in self.hypotheses.values()
                if h.hypothesis_id not in file_hypotheses
            ],
        )
        file_requests = {r.id for r in self.files.requests}
        request_candidates = _candidates(
            [(r.id, r.requested_by, r.capability, r) for r in self.files.requests],
            [
                (r.request_id, _experiment_id(r.requested_by), r.capability, r)
                for r in self.requests.values()
                if r.request_id not in file_requests
            ],
        )
        next_hypothesis = _next_number("H_", [*self.hypotheses, *file_hypotheses])
        next_request = _next_number("req_", [*self.requests, *file_requests])
        links = _Links()
        for record in sorted(self.files.experiments, key=lambda r: (r.values["timestamp"], _natural(r.id))):
            for index, item in enumerate(record.hypotheses):
                wanted = (item.status, item.tested_by)
                match = _take(
                    hypothesis_candidates, record.id, item.text, lambda c, wanted=wanted: self._state(c) == wanted
                )
                if match is None:
                    links.hypotheses.append((f"H_{next_hypothesis:03d}", record.id, item))
                    next_hypothesis += 1
                    continue
                match_id, candidate = match
                in_files = isinstance(candidate, _HypothesisRecord)
                links.stored_hypotheses += not in_files
                source = HYPOTHESES_FILE if in_files else "the stored hypothesis"
                where = _where(record.file, record.id, f"assessment.hypotheses.{index}")
                for name, value, other in zip(("status", "tested_by"), wanted, self._state(candidate), strict=True):
                    if value != other:
                        disagreement = REGISTRY_DISAGREES.format(
                            value=value, file=source, record_id=match_id, other=other
                        )
                        self.problems.append(f"{where}.{name}: {disagreement}")
            for capability in record.capability_requests:
                match = _take(request_candidates, record.id, capability, lambda c: True)
                if match is None:
                    links.requests.append((f"req_{next_request:03d}", record.id, capability))
                    next_request += 1
                else:
                    links.stored_requests += not isinstance(match[1], _RequestRecord)
        return links

    def _state(self, candidate) -> tuple[str, list[str]]:
        if isinstance(candidate, _HypothesisRecord):
            return candidate.status, list(candidate.tested_by)
        return candidate.status, self.tested_by.get(candidate.pk, [])


@dataclass
class _Links:
    hypotheses: list[tuple[str, str, _Generated]] = field(default_factory=list)  # (new id, experiment id, item)
    requests: list[tuple[str, str, str]] = field(default_factory=list)  # (new id, experiment id, capability)
    stored_hypotheses: int = 0  # matched to stored rows the registry file does not list
    stored_requests: int = 0


def _candidates(from_files: list[tuple], stored: list[tuple]) -> dict[tuple, list[tuple]]:
    """(source experiment id, text) → [(entry id, entry)] in natural id order, file entries first."""
    candidates: dict[tuple, list[tuple]] = {}
    for group in (from_files, stored):
        for entry_id, source, content, entry in sorted(group, key=lambda item: _natural(item[0])):
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


def _create_experiment(owner, record: _ExperimentRecord) -> Experiment:
    context = record.values["context"]
    return Experiment.objects.create(
        owner=owner,
        experiment_id=record.id,
        context_fingerprint=context_fingerprint(context),
        indicators=[str(name).upper() for name in context.get("indicators", [])],
        timeframe=str(context.get("timeframe") or ""),
        symbol=str(context.get("symbol") or ""),
        **record.values,
    )


def _stored_hypothesis(hypothesis: Hypothesis, tested_by: dict[int, list[str]]) -> dict:
    return {
        "text": hypothesis.text, "source_experiment": _experiment_id(hypothesis.source_experiment),
        "rationale": hypothesis.rationale, "status": hypothesis.status,
        "tested_by": tested_by.get(hypothesis.pk, []), "created": hypothesis.created,
    }  # fmt: skip


def _stored_request(request: CapabilityRequest, tested_by: dict[int, list[str]]) -> dict:
    return {
        "capability": request.capability, "rationale": request.rationale,
        "requested_by": _experiment_id(request.requested_by), "requested": request.requested,
        "status": request.status, "implemented": request.implemented,
    }  # fmt: skip


def _experiment_id(experiment: Experiment | None) -> str | None:
    return experiment.experiment_id if experiment is not None else None


def _file_field(name: str) -> str:
    return f"assessment.{name}" if name in ("verdict", "observations", "limitations") else name


def _next_number(prefix: str, ids: Iterable[str]) -> int:
    pattern = re.compile(rf"{re.escape(prefix)}(\d+)")
    return max((int(match.group(1)) for value in ids if (match := pattern.fullmatch(value))), default=0) + 1


def _natural(value: str) -> tuple:
    """Sort key putting H_2 before H_10 (digit runs compare as numbers)."""
    return tuple((0, int(part), "") if part.isdigit() else (1, 0, part) for part in re.split(r"(\d+)", value))


def _utc_date(timestamp: dt.datetime) -> dt.date:
    return timestamp.astimezone(dt.UTC).date()


# -- export --------------------------------------------------------------------------------------------


def render_research(owner) -> dict[str, str]:
    """The owner's research memory as {relative path: YAML text}, in the canonical form."""
    experiments = sorted(Experiment.objects.filter(owner=owner), key=lambda e: _natural(e.experiment_id))
    hypotheses = sorted(
        Hypothesis.objects.filter(owner=owner).select_related("source_experiment"),
        key=lambda h: _natural(h.hypothesis_id),
    )
    requests = sorted(
        CapabilityRequest.objects.filter(owner=owner).select_related("requested_by"),
        key=lambda r: _natural(r.request_id),
    )
    tested_by: dict[int, list[str]] = {}
    for hypothesis_pk, experiment_id in (
        HypothesisTest.objects.filter(hypothesis__owner=owner)
        .order_by("added_at", "id")
        .values_list("hypothesis_id", "experiment__experiment_id")
    ):
        tested_by.setdefault(hypothesis_pk, []).append(experiment_id)
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
                    "source_experiment": _experiment_id(hypothesis.source_experiment),
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
                    "requested_by": _experiment_id(request.requested_by),
                    "requested": request.requested.isoformat(),
                    "status": request.status,
                    "implemented": request.implemented.isoformat() if request.implemented else None,
                }
                for request in requests
            ]
        }
    )
    return documents


def export_research(owner, directory: Path, *, progress: Progress = _no_progress) -> ExportSummary:
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
