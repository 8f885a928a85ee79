from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.tick_detail_output_ops_type_0_item import TickDetailOutputOpsType0Item


T = TypeVar("T", bound="TickDetailOutput")


@_attrs_define
class TickDetailOutput:
    """
    Attributes:
        snapshot_id (UUID): The tick's id.
        tick_at (datetime.datetime): The tick's time as posted, in UTC (ISO 8601).
        materialized_at (datetime.datetime | None): When the ledger applied the tick (UTC); null: not yet (reading this
            applies it).
        ops (list[TickDetailOutputOpsType0Item] | None): What the tick did to the trade ledger, in order: each op names
            itself in `op` (`open_trade`, `close_trade`, `update_mfe_mae`; a flip is a close then an open) with the trade's
            fields; null until applied.
    """

    snapshot_id: UUID
    tick_at: datetime.datetime
    materialized_at: datetime.datetime | None
    ops: list[TickDetailOutputOpsType0Item] | None
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        snapshot_id = str(self.snapshot_id)

        tick_at = self.tick_at.isoformat()

        materialized_at: None | str
        if isinstance(self.materialized_at, datetime.datetime):
            materialized_at = self.materialized_at.isoformat()
        else:
            materialized_at = self.materialized_at

        ops: list[dict[str, Any]] | None
        if isinstance(self.ops, list):
            ops = []
            for ops_type_0_item_data in self.ops:
                ops_type_0_item = ops_type_0_item_data.to_dict()
                ops.append(ops_type_0_item)

        else:
            ops = self.ops

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "snapshot_id": snapshot_id,
                "tick_at": tick_at,
                "materialized_at": materialized_at,
                "ops": ops,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.tick_detail_output_ops_type_0_item import TickDetailOutputOpsType0Item  # noqa: PLC0415

        d = dict(src_dict)
        snapshot_id = UUID(d.pop("snapshot_id"))

        tick_at = datetime.datetime.fromisoformat(d.pop("tick_at"))

        def _parse_materialized_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                materialized_at_type_0 = datetime.datetime.fromisoformat(data)

                return materialized_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        materialized_at = _parse_materialized_at(d.pop("materialized_at"))

        def _parse_ops(data: object) -> list[TickDetailOutputOpsType0Item] | None:
            if data is None:
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                ops_type_0 = []
                _ops_type_0 = data
                for ops_type_0_item_data in _ops_type_0:
                    ops_type_0_item = TickDetailOutputOpsType0Item.from_dict(ops_type_0_item_data)

                    ops_type_0.append(ops_type_0_item)

                return ops_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[TickDetailOutputOpsType0Item] | None, data)

        ops = _parse_ops(d.pop("ops"))

        tick_detail_output = cls(
            snapshot_id=snapshot_id,
            tick_at=tick_at,
            materialized_at=materialized_at,
            ops=ops,
        )

        tick_detail_output.additional_properties = d
        return tick_detail_output

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
