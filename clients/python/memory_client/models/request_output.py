from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.capability_request_status_enum import CapabilityRequestStatusEnum, check_capability_request_status_enum
from ..types import UNSET, Unset

T = TypeVar("T", bound="RequestOutput")


@_attrs_define
class RequestOutput:
    """
    Attributes:
        id (str): The request's id, e.g. `req_002`.
        capability (str): What was asked for (data, an indicator, a tool).
        requested_by (None | str): The experiment whose assessment asked for it; null: none left.
        requested (datetime.date): The UTC date it was asked for.
        rationale (str | Unset): Why (may be empty).
        status (CapabilityRequestStatusEnum | Unset): * `pending` - pending
            * `approved` - approved
            * `implemented` - implemented
            * `rejected` - rejected
        implemented (datetime.date | None | Unset): The UTC date it was implemented; null: not yet.
    """

    id: str
    capability: str
    requested_by: None | str
    requested: datetime.date
    rationale: str | Unset = UNSET
    status: CapabilityRequestStatusEnum | Unset = UNSET
    implemented: datetime.date | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        id = self.id

        capability = self.capability

        requested_by: None | str
        requested_by = self.requested_by

        requested = self.requested.isoformat()

        rationale = self.rationale

        status: str | Unset = UNSET
        if not isinstance(self.status, Unset):
            status = self.status

        implemented: None | str | Unset
        if isinstance(self.implemented, Unset):
            implemented = UNSET
        elif isinstance(self.implemented, datetime.date):
            implemented = self.implemented.isoformat()
        else:
            implemented = self.implemented

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "capability": capability,
                "requested_by": requested_by,
                "requested": requested,
            }
        )
        if rationale is not UNSET:
            field_dict["rationale"] = rationale
        if status is not UNSET:
            field_dict["status"] = status
        if implemented is not UNSET:
            field_dict["implemented"] = implemented

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        id = d.pop("id")

        capability = d.pop("capability")

        def _parse_requested_by(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        requested_by = _parse_requested_by(d.pop("requested_by"))

        requested = datetime.date.fromisoformat(d.pop("requested"))

        rationale = d.pop("rationale", UNSET)

        _status = d.pop("status", UNSET)
        status: CapabilityRequestStatusEnum | Unset
        if isinstance(_status, Unset):
            status = UNSET
        else:
            status = check_capability_request_status_enum(_status)

        def _parse_implemented(data: object) -> datetime.date | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                implemented_type_0 = datetime.date.fromisoformat(data)

                return implemented_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.date | None | Unset, data)

        implemented = _parse_implemented(d.pop("implemented", UNSET))

        request_output = cls(
            id=id,
            capability=capability,
            requested_by=requested_by,
            requested=requested,
            rationale=rationale,
            status=status,
            implemented=implemented,
        )

        request_output.additional_properties = d
        return request_output

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
