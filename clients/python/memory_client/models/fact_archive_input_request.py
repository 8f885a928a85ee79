from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define

from ..models.reason_enum import ReasonEnum, check_reason_enum
from ..types import UNSET, Unset

T = TypeVar("T", bound="FactArchiveInputRequest")


@_attrs_define
class FactArchiveInputRequest:
    """
    Attributes:
        reason (ReasonEnum | Unset): * `user_deleted` - user_deleted
            * `user_corrected` - user_corrected Default: 'user_deleted'.
    """

    reason: ReasonEnum | Unset = "user_deleted"

    def to_dict(self) -> dict[str, Any]:
        reason: str | Unset = UNSET
        if not isinstance(self.reason, Unset):
            reason = self.reason

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if reason is not UNSET:
            field_dict["reason"] = reason

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        _reason = d.pop("reason", UNSET)
        reason: ReasonEnum | Unset
        if isinstance(_reason, Unset):
            reason = UNSET
        else:
            reason = check_reason_enum(_reason)

        fact_archive_input_request = cls(
            reason=reason,
        )

        return fact_archive_input_request
