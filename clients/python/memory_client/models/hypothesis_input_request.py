from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define

from ..models.hypothesis_status_enum import HypothesisStatusEnum, check_hypothesis_status_enum
from ..types import UNSET, Unset

T = TypeVar("T", bound="HypothesisInputRequest")


@_attrs_define
class HypothesisInputRequest:
    """
    Attributes:
        text (str): The hypothesis in a line (at most 1,000 characters).
        status (HypothesisStatusEnum | Unset): * `untested` - untested
            * `testing` - testing
            * `validated` - validated
            * `refuted` - refuted
            * `inconclusive` - inconclusive Default: 'untested'.
    """

    text: str
    status: HypothesisStatusEnum | Unset = "untested"

    def to_dict(self) -> dict[str, Any]:
        text = self.text

        status: str | Unset = UNSET
        if not isinstance(self.status, Unset):
            status = self.status

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "text": text,
            }
        )
        if status is not UNSET:
            field_dict["status"] = status

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        text = d.pop("text")

        _status = d.pop("status", UNSET)
        status: HypothesisStatusEnum | Unset
        if isinstance(_status, Unset):
            status = UNSET
        else:
            status = check_hypothesis_status_enum(_status)

        hypothesis_input_request = cls(
            text=text,
            status=status,
        )

        return hypothesis_input_request
