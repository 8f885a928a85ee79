from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define

from ..models.confidence_enum import ConfidenceEnum, check_confidence_enum
from ..types import UNSET, Unset

T = TypeVar("T", bound="FactCreateInputRequest")


@_attrs_define
class FactCreateInputRequest:
    """
    Attributes:
        fact (str): The fact in one sentence: 4-500 characters after trimming.
        topic (None | str | Unset): A short label grouping facts, e.g. `risk` (at most 32 characters); empty or null:
            none.
        confidence (ConfidenceEnum | Unset): * `asserted` - asserted
            * `inferred` - inferred Default: 'asserted'.
    """

    fact: str
    topic: None | str | Unset = UNSET
    confidence: ConfidenceEnum | Unset = "asserted"

    def to_dict(self) -> dict[str, Any]:
        fact = self.fact

        topic: None | str | Unset
        if isinstance(self.topic, Unset):
            topic = UNSET
        else:
            topic = self.topic

        confidence: str | Unset = UNSET
        if not isinstance(self.confidence, Unset):
            confidence = self.confidence

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "fact": fact,
            }
        )
        if topic is not UNSET:
            field_dict["topic"] = topic
        if confidence is not UNSET:
            field_dict["confidence"] = confidence

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        fact = d.pop("fact")

        def _parse_topic(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        topic = _parse_topic(d.pop("topic", UNSET))

        _confidence = d.pop("confidence", UNSET)
        confidence: ConfidenceEnum | Unset
        if isinstance(_confidence, Unset):
            confidence = UNSET
        else:
            confidence = check_confidence_enum(_confidence)

        fact_create_input_request = cls(
            fact=fact,
            topic=topic,
            confidence=confidence,
        )

        return fact_create_input_request
