from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.section_tokens import SectionTokens


T = TypeVar("T", bound="TokenEstimate")


@_attrs_define
class TokenEstimate:
    """
    Attributes:
        per_section (SectionTokens):
        total (int): The estimate for `text` as a whole.
    """

    per_section: SectionTokens
    total: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        per_section = self.per_section.to_dict()

        total = self.total

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "per_section": per_section,
                "total": total,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.section_tokens import SectionTokens  # noqa: PLC0415

        d = dict(src_dict)
        per_section = SectionTokens.from_dict(d.pop("per_section"))

        total = d.pop("total")

        token_estimate = cls(
            per_section=per_section,
            total=total,
        )

        token_estimate.additional_properties = d
        return token_estimate

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
