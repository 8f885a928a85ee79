from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.experiment_output_assessment_type_0 import ExperimentOutputAssessmentType0


T = TypeVar("T", bound="ExperimentOutput")


@_attrs_define
class ExperimentOutput:
    """
    Attributes:
        id (str): Your id for the experiment.
        timestamp (datetime.datetime): When it ran (UTC).
        strategy_name (str): The strategy it tested.
        context (Any): The context, cleaned (names normalised, nulls dropped).
        assessment (ExperimentOutputAssessmentType0 | None): `verdict`, `observations` and `limitations`; null when it
            was not assessed.
        context_fingerprint (str): The context's fingerprint (same context, same fingerprint).
        created_at (datetime.datetime): When it was recorded (UTC).
        source (str | Unset): Where it ran (may be empty).
        results (Any | Unset): The metrics as recorded.
        repeat_reason (str | Unset): Why the context was tested again; empty for a first test.
    """

    id: str
    timestamp: datetime.datetime
    strategy_name: str
    context: Any
    assessment: ExperimentOutputAssessmentType0 | None
    context_fingerprint: str
    created_at: datetime.datetime
    source: str | Unset = UNSET
    results: Any | Unset = UNSET
    repeat_reason: str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.experiment_output_assessment_type_0 import ExperimentOutputAssessmentType0  # noqa: PLC0415

        id = self.id

        timestamp = self.timestamp.isoformat()

        strategy_name = self.strategy_name

        context = self.context

        assessment: dict[str, Any] | None
        if isinstance(self.assessment, ExperimentOutputAssessmentType0):
            assessment = self.assessment.to_dict()
        else:
            assessment = self.assessment

        context_fingerprint = self.context_fingerprint

        created_at = self.created_at.isoformat()

        source = self.source

        results = self.results

        repeat_reason = self.repeat_reason

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "timestamp": timestamp,
                "strategy_name": strategy_name,
                "context": context,
                "assessment": assessment,
                "context_fingerprint": context_fingerprint,
                "created_at": created_at,
            }
        )
        if source is not UNSET:
            field_dict["source"] = source
        if results is not UNSET:
            field_dict["results"] = results
        if repeat_reason is not UNSET:
            field_dict["repeat_reason"] = repeat_reason

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.experiment_output_assessment_type_0 import ExperimentOutputAssessmentType0  # noqa: PLC0415

        d = dict(src_dict)
        id = d.pop("id")

        timestamp = datetime.datetime.fromisoformat(d.pop("timestamp"))

        strategy_name = d.pop("strategy_name")

        context = d.pop("context")

        def _parse_assessment(data: object) -> ExperimentOutputAssessmentType0 | None:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                assessment_type_0 = ExperimentOutputAssessmentType0.from_dict(data)

                return assessment_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(ExperimentOutputAssessmentType0 | None, data)

        assessment = _parse_assessment(d.pop("assessment"))

        context_fingerprint = d.pop("context_fingerprint")

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        source = d.pop("source", UNSET)

        results = d.pop("results", UNSET)

        repeat_reason = d.pop("repeat_reason", UNSET)

        experiment_output = cls(
            id=id,
            timestamp=timestamp,
            strategy_name=strategy_name,
            context=context,
            assessment=assessment,
            context_fingerprint=context_fingerprint,
            created_at=created_at,
            source=source,
            results=results,
            repeat_reason=repeat_reason,
        )

        experiment_output.additional_properties = d
        return experiment_output

    @property
    def additional_keys(self) -> list[str]:
        return list(self.additional_properties.keys())

    def __getitem__(self, key: str) -> Any:
        return self.additional_properties[key]

    def __setitem__(self, key: str, value: Any) -> None:
        self.additional_properties[key] = value

    def __delitem__(self, key: str) -> None:
        del self.additional_properties[key]

    def __contains__(self, key: str) -> bool:
        return key in self.additional_properties
