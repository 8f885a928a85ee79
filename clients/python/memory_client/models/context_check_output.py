from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.prior_experiment import PriorExperiment


T = TypeVar("T", bound="ContextCheckOutput")


@_attrs_define
class ContextCheckOutput:
    """
    Attributes:
        fingerprint (str): The context's fingerprint (a hash of its cleaned form).
        duplicates (list[PriorExperiment]): Experiments already recorded with it, oldest first.
    """

    fingerprint: str
    duplicates: list[PriorExperiment]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        fingerprint = self.fingerprint

        duplicates = []
        for duplicates_item_data in self.duplicates:
            duplicates_item = duplicates_item_data.to_dict()
            duplicates.append(duplicates_item)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "fingerprint": fingerprint,
                "duplicates": duplicates,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.prior_experiment import PriorExperiment  # noqa: PLC0415

        d = dict(src_dict)
        fingerprint = d.pop("fingerprint")

        duplicates = []
        _duplicates = d.pop("duplicates")
        for duplicates_item_data in _duplicates:
            duplicates_item = PriorExperiment.from_dict(duplicates_item_data)

            duplicates.append(duplicates_item)

        context_check_output = cls(
            fingerprint=fingerprint,
            duplicates=duplicates,
        )

        context_check_output.additional_properties = d
        return context_check_output

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
