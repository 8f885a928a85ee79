from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.error_body_errors import ErrorBodyErrors


T = TypeVar("T", bound="ErrorBody")


@_attrs_define
class ErrorBody:
    """
    Attributes:
        detail (str): What went wrong, for a person: for a 400, each field's dotted path and the rule it broke
            ("positions.1.size: must be > 0; tick_at: must include a timezone offset").
        request_id (str): The request's id, also in the `X-Request-ID` response header: the one the client sent in
            `X-Request-ID` (1-128 letters, digits or `._:-`), else one the service made. Quote it when reporting the error:
            the service's log lines of the request carry it.
        errors (ErrorBodyErrors | Unset): 400s and field-level 409s only: the rules each field broke, keyed by its
            dotted path (`positions.1.size`; `non_field_errors` for the body as a whole). A 409 may carry more keys (e.g.
            the prior rows' ids).
    """

    detail: str
    request_id: str
    errors: ErrorBodyErrors | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        detail = self.detail

        request_id = self.request_id

        errors: dict[str, Any] | Unset = UNSET
        if not isinstance(self.errors, Unset):
            errors = self.errors.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "detail": detail,
                "request_id": request_id,
            }
        )
        if errors is not UNSET:
            field_dict["errors"] = errors

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.error_body_errors import ErrorBodyErrors  # noqa: PLC0415

        d = dict(src_dict)
        detail = d.pop("detail")

        request_id = d.pop("request_id")

        _errors = d.pop("errors", UNSET)
        errors: ErrorBodyErrors | Unset
        if isinstance(_errors, Unset):
            errors = UNSET
        else:
            errors = ErrorBodyErrors.from_dict(_errors)

        error_body = cls(
            detail=detail,
            request_id=request_id,
            errors=errors,
        )

        error_body.additional_properties = d
        return error_body

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
