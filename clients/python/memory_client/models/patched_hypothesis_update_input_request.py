from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define

from ..models.hypothesis_status_enum import HypothesisStatusEnum, check_hypothesis_status_enum
from ..types import UNSET, Unset

T = TypeVar("T", bound="PatchedHypothesisUpdateInputRequest")


@_attrs_define
class PatchedHypothesisUpdateInputRequest:
    """
    Attributes:
        status (HypothesisStatusEnum | Unset): * `untested` - untested
            * `testing` - testing
            * `validated` - validated
            * `refuted` - refuted
            * `inconclusive` - inconclusive
    """

    status: HypothesisStatusEnum | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        status: str | Unset = UNSET
        if not isinstance(self.status, Unset):
            status = self.status

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if status is not UNSET:
            field_dict["status"] = status

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        _status = d.pop("status", UNSET)
        status: HypothesisStatusEnum | Unset
        if isinstance(_status, Unset):
            status = UNSET
        else:
            status = check_hypothesis_status_enum(_status)

        patched_hypothesis_update_input_request = cls(
            status=status,
        )

        return patched_hypothesis_update_input_request
