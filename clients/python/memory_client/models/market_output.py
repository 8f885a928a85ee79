from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="MarketOutput")


@_attrs_define
class MarketOutput:
    """
    Attributes:
        id (int): The market's id (`market_id` elsewhere).
        condition_id (str): The prediction market's condition id.
        created_at (datetime.datetime): When it was first seen (UTC).
        question (str | Unset): The market's question (may be empty).
        metadata (Any | Unset): Free-form JSON kept with the market.
    """

    id: int
    condition_id: str
    created_at: datetime.datetime
    question: str | Unset = UNSET
    metadata: Any | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        id = self.id

        condition_id = self.condition_id

        created_at = self.created_at.isoformat()

        question = self.question

        metadata = self.metadata

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "condition_id": condition_id,
                "created_at": created_at,
            }
        )
        if question is not UNSET:
            field_dict["question"] = question
        if metadata is not UNSET:
            field_dict["metadata"] = metadata

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        id = d.pop("id")

        condition_id = d.pop("condition_id")

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        question = d.pop("question", UNSET)

        metadata = d.pop("metadata", UNSET)

        market_output = cls(
            id=id,
            condition_id=condition_id,
            created_at=created_at,
            question=question,
            metadata=metadata,
        )

        market_output.additional_properties = d
        return market_output

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
