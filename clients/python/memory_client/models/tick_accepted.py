from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="TickAccepted")


@_attrs_define
class TickAccepted:
    """
    Attributes:
        snapshot_id (UUID): The stored tick's id (for `get_tick`); on a duplicate, the id of the tick stored before.
        duplicate (bool): True when this `tick_at` was already stored (the answer is then a 200 and nothing was
            written).
    """

    snapshot_id: UUID
    duplicate: bool
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        snapshot_id = str(self.snapshot_id)

        duplicate = self.duplicate

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "snapshot_id": snapshot_id,
                "duplicate": duplicate,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        snapshot_id = UUID(d.pop("snapshot_id"))

        duplicate = d.pop("duplicate")

        tick_accepted = cls(
            snapshot_id=snapshot_id,
            duplicate=duplicate,
        )

        tick_accepted.additional_properties = d
        return tick_accepted

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
