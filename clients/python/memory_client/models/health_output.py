from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.health_error import HealthError


T = TypeVar("T", bound="HealthOutput")


@_attrs_define
class HealthOutput:
    """
    Attributes:
        documents (int): Documents you can search.
        chunks (int): Their chunks.
        pending (int): Chunks waiting for their embedding.
        last_sync_at (datetime.datetime | None): When a document was last indexed (UTC); null: never.
        errors (list[HealthError]): Documents whose last indexing failed.
    """

    documents: int
    chunks: int
    pending: int
    last_sync_at: datetime.datetime | None
    errors: list[HealthError]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        documents = self.documents

        chunks = self.chunks

        pending = self.pending

        last_sync_at: None | str
        if isinstance(self.last_sync_at, datetime.datetime):
            last_sync_at = self.last_sync_at.isoformat()
        else:
            last_sync_at = self.last_sync_at

        errors = []
        for errors_item_data in self.errors:
            errors_item = errors_item_data.to_dict()
            errors.append(errors_item)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "documents": documents,
                "chunks": chunks,
                "pending": pending,
                "last_sync_at": last_sync_at,
                "errors": errors,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.health_error import HealthError  # noqa: PLC0415

        d = dict(src_dict)
        documents = d.pop("documents")

        chunks = d.pop("chunks")

        pending = d.pop("pending")

        def _parse_last_sync_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                last_sync_at_type_0 = datetime.datetime.fromisoformat(data)

                return last_sync_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        last_sync_at = _parse_last_sync_at(d.pop("last_sync_at"))

        errors = []
        _errors = d.pop("errors")
        for errors_item_data in _errors:
            errors_item = HealthError.from_dict(errors_item_data)

            errors.append(errors_item)

        health_output = cls(
            documents=documents,
            chunks=chunks,
            pending=pending,
            last_sync_at=last_sync_at,
            errors=errors,
        )

        health_output.additional_properties = d
        return health_output

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
