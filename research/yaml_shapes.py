"""Research memory as the seed's YAML files (research-memory.md): the layout of a research directory,
the shape of each file, and reading a directory into validated records (nothing is written here).

Layout of a research directory:

    experiments/<id>.yaml      one `experiment:` record each (id, timestamp, strategy_name, source?,
                               repeat_reason?, context, results, assessment)
    hypotheses.yaml            `hypotheses:` [{id, text, source_experiment, rationale, status, tested_by, created}]
    capability_requests.yaml   `requests:` [{id, capability, rationale, requested_by, requested, status, implemented}]

Every problem is reported as "<file>, <record id>, <field>: <rule>" (``ResearchFilesInvalid``), all of
them at once. ``research.yaml_import`` loads the records into the database, ``research.yaml_export``
writes the database back in the same layout.
"""

from __future__ import annotations

import datetime as dt
import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import yaml
from rest_framework import serializers

from memorysite.api import AwareDateTimeField, StrictSerializer, choice, flatten_errors
from memorysite.api import text as text_field
from research.assessment import HYPOTHESIS_STATUSES, REQUEST_STATUSES, VERDICTS
from research.experiment_context import ContextError, clean_context
from research.ids import natural_key
from research.models import Experiment
from research.serializers import ID_PATTERN, ResultsInput

EXPERIMENTS_DIR = "experiments"
HYPOTHESES_FILE = "hypotheses.yaml"
REQUESTS_FILE = "capability_requests.yaml"
MAX_REPORTED_PROBLEMS = 30
# Observations and limitations recorded from assessment markdown are not cut to the API's 1,000
# characters, so the importer takes what the markdown route can store (its whole-text limit).
ITEM_MAX_CHARS = 20_000

NOT_A_DIRECTORY = "exists and is not a directory"
ID_RULE = "must be letters, digits, _ . : - starting with a letter or digit"
DATE_RULE = "must be a date YYYY-MM-DD"
FILE_NAME_MISMATCH = "must match the file name ({stem})"
LISTED_TWICE = "lists {experiment_id} twice"
DUPLICATE_ID = "appears more than once in this file"
IMPLEMENTED_DATE = "must be null unless status is implemented"


class ResearchFilesInvalid(Exception):
    """Nothing was written: `problems` are "<file>, <record id>, <field>: <rule>" lines."""

    def __init__(self, problems: list[str]):
        self.problems = problems
        shown = problems[:MAX_REPORTED_PROBLEMS]
        more = len(problems) - len(shown)
        listing = "\n".join(shown) + (f"\n... and {more} more" if more else "")
        super().__init__(f"nothing written; {len(problems)} problem(s):\n{listing}")


Progress = Callable[[int, int], None]


def no_progress(done: int, total: int) -> None:
    pass


def experiment_id_of(experiment: Experiment | None) -> str | None:
    return experiment.experiment_id if experiment is not None else None


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
    """A mapping passed through as given (the context's rules are research.experiment_context.clean_context's)."""

    default_error_messages = {"not_a_mapping": "must be a mapping"}

    def to_internal_value(self, data):
        if not isinstance(data, dict):
            self.fail("not_a_mapping")
        return data


class _Results(ResultsInput):
    """The API's rules for results, and every value JSON that reads back the same."""

    def to_internal_value(self, data):
        errors: dict[str, list] = {}  # rules: ours (str) and DRF's (ErrorDetail, keeping its code)
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
    source = text_field(max_length=200, required=False, allow_blank=True, default="")  # type: ignore[assignment]  # a field named like a Field attribute (DRF's stubs)
    repeat_reason = text_field(max_length=1000, required=False, allow_blank=True, default="")
    context = _Mapping()  # type: ignore[assignment]  # a field named like a Field attribute (DRF's stubs)
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
class GeneratedItem:
    text: str
    status: str
    tested_by: list[str]


@dataclass
class ExperimentRecord:
    file: str
    id: str
    values: dict  # Experiment model fields, context cleaned
    hypotheses: list[GeneratedItem]
    capability_requests: list[str]


@dataclass
class HypothesisRecord:
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
class RequestRecord:
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
class ResearchFiles:
    experiments: list[ExperimentRecord] = field(default_factory=list)
    hypotheses: list[HypothesisRecord] = field(default_factory=list)
    requests: list[RequestRecord] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


def where(file: str, record_id: str | None = None, field_path: str | None = None) -> str:
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
            problems.append(f"{where(name, record_id, None if path == 'non_field_errors' else path)}: {message}")
    return None


def _record_id(data, fallback: str) -> str:
    value = data.get("id") if isinstance(data, dict) else None
    return value if isinstance(value, str) and re.fullmatch(ID_PATTERN, value) else fallback


def _read_experiment(path: Path, files: ResearchFiles) -> None:
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
            files.problems.append(f"{where(name, record_id, exc.field)}: {exc.message}")
    if valid is None or context is None:
        return
    if valid["id"] != path.stem:
        files.problems.append(f"{where(name, record_id, 'id')}: {FILE_NAME_MISMATCH.format(stem=path.stem)}")
        return
    assessment = valid["assessment"] or {}
    files.experiments.append(
        ExperimentRecord(
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
                GeneratedItem(item["text"], item["status"], list(item["tested_by"]))
                for item in assessment.get("hypotheses", [])
            ],
            capability_requests=list(assessment.get("capability_requests", [])),
        )
    )
    for index, item in enumerate(assessment.get("hypotheses", [])):
        _check_listed_once(item["tested_by"], name, record_id, f"assessment.hypotheses.{index}.tested_by", files)


def _check_listed_once(experiment_ids: list[str], name: str, record_id: str, path: str, files: ResearchFiles) -> None:
    for experiment_id in sorted({e for e in experiment_ids if experiment_ids.count(e) > 1}):
        files.problems.append(f"{where(name, record_id, path)}: {LISTED_TWICE.format(experiment_id=experiment_id)}")


def _read_registry(
    directory: Path, name: str, key: str, serializer_class, files: ResearchFiles
) -> list[tuple[str, dict]]:
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
            files.problems.append(f"{where(name, record_id, 'id')}: {DUPLICATE_ID}")
            continue
        seen.add(valid["id"])
        valid_entries.append((record_id, valid))
    return valid_entries


def read_files(directory: Path) -> ResearchFiles:
    files = ResearchFiles()
    experiments_dir = directory / EXPERIMENTS_DIR
    if experiments_dir.is_dir():
        for path in sorted(experiments_dir.glob("*.yaml"), key=lambda p: natural_key(p.stem)):
            _read_experiment(path, files)
    for record_id, valid in _read_registry(directory, HYPOTHESES_FILE, "hypotheses", _HypothesisEntry, files):
        _check_listed_once(valid["tested_by"], HYPOTHESES_FILE, record_id, "tested_by", files)
        files.hypotheses.append(HypothesisRecord(file=HYPOTHESES_FILE, **valid))
    for _, valid in _read_registry(directory, REQUESTS_FILE, "requests", _RequestEntry, files):
        files.requests.append(RequestRecord(file=REQUESTS_FILE, **valid))
    return files
