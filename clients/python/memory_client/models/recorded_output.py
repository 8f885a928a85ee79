from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.experiment_output import ExperimentOutput
    from ..models.hypothesis_output import HypothesisOutput
    from ..models.request_output import RequestOutput


T = TypeVar("T", bound="RecordedOutput")


@_attrs_define
class RecordedOutput:
    """
    Attributes:
        experiment (ExperimentOutput):
        hypotheses_created (list[HypothesisOutput]): Hypotheses its assessment registered.
        capability_requests_created (list[RequestOutput]): Capability requests its assessment registered.
        hypotheses_updated (list[HypothesisOutput]): Hypotheses it tests (`tests_hypotheses`), updated.
    """

    experiment: ExperimentOutput
    hypotheses_created: list[HypothesisOutput]
    capability_requests_created: list[RequestOutput]
    hypotheses_updated: list[HypothesisOutput]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        experiment = self.experiment.to_dict()

        hypotheses_created = []
        for hypotheses_created_item_data in self.hypotheses_created:
            hypotheses_created_item = hypotheses_created_item_data.to_dict()
            hypotheses_created.append(hypotheses_created_item)

        capability_requests_created = []
        for capability_requests_created_item_data in self.capability_requests_created:
            capability_requests_created_item = capability_requests_created_item_data.to_dict()
            capability_requests_created.append(capability_requests_created_item)

        hypotheses_updated = []
        for hypotheses_updated_item_data in self.hypotheses_updated:
            hypotheses_updated_item = hypotheses_updated_item_data.to_dict()
            hypotheses_updated.append(hypotheses_updated_item)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "experiment": experiment,
                "hypotheses_created": hypotheses_created,
                "capability_requests_created": capability_requests_created,
                "hypotheses_updated": hypotheses_updated,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.experiment_output import ExperimentOutput  # noqa: PLC0415
        from ..models.hypothesis_output import HypothesisOutput  # noqa: PLC0415
        from ..models.request_output import RequestOutput  # noqa: PLC0415

        d = dict(src_dict)
        experiment = ExperimentOutput.from_dict(d.pop("experiment"))

        hypotheses_created = []
        _hypotheses_created = d.pop("hypotheses_created")
        for hypotheses_created_item_data in _hypotheses_created:
            hypotheses_created_item = HypothesisOutput.from_dict(hypotheses_created_item_data)

            hypotheses_created.append(hypotheses_created_item)

        capability_requests_created = []
        _capability_requests_created = d.pop("capability_requests_created")
        for capability_requests_created_item_data in _capability_requests_created:
            capability_requests_created_item = RequestOutput.from_dict(capability_requests_created_item_data)

            capability_requests_created.append(capability_requests_created_item)

        hypotheses_updated = []
        _hypotheses_updated = d.pop("hypotheses_updated")
        for hypotheses_updated_item_data in _hypotheses_updated:
            hypotheses_updated_item = HypothesisOutput.from_dict(hypotheses_updated_item_data)

            hypotheses_updated.append(hypotheses_updated_item)

        recorded_output = cls(
            experiment=experiment,
            hypotheses_created=hypotheses_created,
            capability_requests_created=capability_requests_created,
            hypotheses_updated=hypotheses_updated,
        )

        recorded_output.additional_properties = d
        return recorded_output

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
