from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.assessment_input_request import AssessmentInputRequest
    from ..models.experiment_input_request_context import ExperimentInputRequestContext
    from ..models.results_input_request import ResultsInputRequest


T = TypeVar("T", bound="ExperimentInputRequest")


@_attrs_define
class ExperimentInputRequest:
    """
    Attributes:
        id (str): Your id for the experiment, e.g. `exp_2026_06_04_rsi` (letters, digits, _ . : -; at most 100); unique
            among yours.
        strategy_name (str): The strategy tested, in a line (at most 200 characters).
        context (ExperimentInputRequestContext): What was tested: `indicators` (names), `indicator_params`,
            `composition` (solo, pair, trio, ensemble), `timeframe` (`5m`, `1h`, `1d`, …), `symbol`, and any other keys. Its
            fingerprint finds repeats.
        timestamp (datetime.datetime | Unset): When it ran (ISO 8601 with an offset; stored in UTC); omitted: now.
        source (str | Unset): Where it ran, e.g. the notebook or script.
        results (ResultsInputRequest | Unset):
        assessment (AssessmentInputRequest | Unset):
        assessment_markdown (str | Unset): The assessment as markdown (`### Verdict`, `### Observations`, `###
            Hypotheses Generated`, `### Limitations`, `### Capability Requests`); not with `assessment`.
        tests_hypotheses (list[str] | Unset): Ids of registered hypotheses this experiment tests (e.g. `H_003`).
        allow_repeat (bool | Unset): Record it although the same context was already tested (else a 409 naming the prior
            ones). Default: False.
        repeat_reason (str | Unset): Why the context is tested again (with allow_repeat).
    """

    id: str
    strategy_name: str
    context: ExperimentInputRequestContext
    timestamp: datetime.datetime | Unset = UNSET
    source: str | Unset = UNSET
    results: ResultsInputRequest | Unset = UNSET
    assessment: AssessmentInputRequest | Unset = UNSET
    assessment_markdown: str | Unset = UNSET
    tests_hypotheses: list[str] | Unset = UNSET
    allow_repeat: bool | Unset = False
    repeat_reason: str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        id = self.id

        strategy_name = self.strategy_name

        context = self.context.to_dict()

        timestamp: str | Unset = UNSET
        if not isinstance(self.timestamp, Unset):
            timestamp = self.timestamp.isoformat()

        source = self.source

        results: dict[str, Any] | Unset = UNSET
        if not isinstance(self.results, Unset):
            results = self.results.to_dict()

        assessment: dict[str, Any] | Unset = UNSET
        if not isinstance(self.assessment, Unset):
            assessment = self.assessment.to_dict()

        assessment_markdown = self.assessment_markdown

        tests_hypotheses: list[str] | Unset = UNSET
        if not isinstance(self.tests_hypotheses, Unset):
            tests_hypotheses = self.tests_hypotheses

        allow_repeat = self.allow_repeat

        repeat_reason = self.repeat_reason

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "id": id,
                "strategy_name": strategy_name,
                "context": context,
            }
        )
        if timestamp is not UNSET:
            field_dict["timestamp"] = timestamp
        if source is not UNSET:
            field_dict["source"] = source
        if results is not UNSET:
            field_dict["results"] = results
        if assessment is not UNSET:
            field_dict["assessment"] = assessment
        if assessment_markdown is not UNSET:
            field_dict["assessment_markdown"] = assessment_markdown
        if tests_hypotheses is not UNSET:
            field_dict["tests_hypotheses"] = tests_hypotheses
        if allow_repeat is not UNSET:
            field_dict["allow_repeat"] = allow_repeat
        if repeat_reason is not UNSET:
            field_dict["repeat_reason"] = repeat_reason

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.assessment_input_request import AssessmentInputRequest  # noqa: PLC0415
        from ..models.experiment_input_request_context import ExperimentInputRequestContext  # noqa: PLC0415
        from ..models.results_input_request import ResultsInputRequest  # noqa: PLC0415

        d = dict(src_dict)
        id = d.pop("id")

        strategy_name = d.pop("strategy_name")

        context = ExperimentInputRequestContext.from_dict(d.pop("context"))

        _timestamp = d.pop("timestamp", UNSET)
        timestamp: datetime.datetime | Unset
        if isinstance(_timestamp, Unset):
            timestamp = UNSET
        else:
            timestamp = datetime.datetime.fromisoformat(_timestamp)

        source = d.pop("source", UNSET)

        _results = d.pop("results", UNSET)
        results: ResultsInputRequest | Unset
        if isinstance(_results, Unset):
            results = UNSET
        else:
            results = ResultsInputRequest.from_dict(_results)

        _assessment = d.pop("assessment", UNSET)
        assessment: AssessmentInputRequest | Unset
        if isinstance(_assessment, Unset):
            assessment = UNSET
        else:
            assessment = AssessmentInputRequest.from_dict(_assessment)

        assessment_markdown = d.pop("assessment_markdown", UNSET)

        tests_hypotheses = cast(list[str], d.pop("tests_hypotheses", UNSET))

        allow_repeat = d.pop("allow_repeat", UNSET)

        repeat_reason = d.pop("repeat_reason", UNSET)

        experiment_input_request = cls(
            id=id,
            strategy_name=strategy_name,
            context=context,
            timestamp=timestamp,
            source=source,
            results=results,
            assessment=assessment,
            assessment_markdown=assessment_markdown,
            tests_hypotheses=tests_hypotheses,
            allow_repeat=allow_repeat,
            repeat_reason=repeat_reason,
        )

        return experiment_input_request
