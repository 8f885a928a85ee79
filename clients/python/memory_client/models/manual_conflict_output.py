from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.manual_ref import ManualRef


T = TypeVar("T", bound="ManualConflictOutput")


@_attrs_define
class ManualConflictOutput:
    """
    Attributes:
        detail (str): `path: ` and the rule (one manual per deployment scope), or `Idempotency-Key: ` and the rule.
        manual (ManualRef | Unset):
    """

    detail: str
    manual: ManualRef | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        detail = self.detail

        manual: dict[str, Any] | Unset = UNSET
        if not isinstance(self.manual, Unset):
            manual = self.manual.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "detail": detail,
            }
        )
        if manual is not UNSET:
            field_dict["manual"] = manual

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.manual_ref import ManualRef  # noqa: PLC0415

        d = dict(src_dict)
        detail = d.pop("detail")

        _manual = d.pop("manual", UNSET)
        manual: ManualRef | Unset
        if isinstance(_manual, Unset):
            manual = UNSET
        else:
            manual = ManualRef.from_dict(_manual)

        manual_conflict_output = cls(
            detail=detail,
            manual=manual,
        )

        manual_conflict_output.additional_properties = d
        return manual_conflict_output

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
