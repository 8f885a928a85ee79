from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, TypeVar, cast
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.side_enum import SideEnum, check_side_enum
from ..models.trade_output_status_enum import TradeOutputStatusEnum, check_trade_output_status_enum
from ..types import UNSET, Unset

T = TypeVar("T", bound="TradeOutput")


@_attrs_define
class TradeOutput:
    """
    Attributes:
        id (UUID): The trade's id (a UUID).
        deployment_id (int): The deployment that made the trade.
        skill_id (int): The skill the deployment ran.
        skill_version (int): The skill version the deployment ran when the trade opened.
        symbol (str): The instrument traded.
        side (SideEnum): * `long` - long
            * `short` - short
        entry_tick_at (datetime.datetime): The tick that opened the trade (UTC, ISO 8601).
        entry_price (str): The mark at the opening tick, USD (decimal string).
        entry_size_usd (str): size × entry price at the opening tick, USD (decimal string).
        entry_snapshot_id (None | UUID): The tick that opened the trade.
        exit_snapshot_id (None | UUID): The tick that closed it; null while open.
        size_base (str): The position's size in base units now (at exit, for a closed trade).
        avg_entry_price (str): The average cost of the position, USD (adds move it).
        last_mark_price (str): The latest mark applied to the trade, USD.
        created_at (datetime.datetime): When the row was written (UTC).
        updated_at (datetime.datetime): When the row last changed (UTC).
        status (TradeOutputStatusEnum | Unset): * `open` - open
            * `closed` - closed
        entry_leverage (None | str | Unset): The position's leverage at entry; null: none reported.
        entry_reason (str | Unset): The agent's reason, from the proposal the engine executed (may be empty).
        entry_lessons_hash (None | str | Unset): The lessons the agent saw when it opened the trade (their hash); null:
            none active.
        entry_regime_tag (None | str | Unset): The market regime of the entry bars: trend_up, trend_down or chop, with
            hivol or lowvol (e.g. `trend_up_lowvol`), or `unknown` (under 12 bars); null: no bars sent.
        exit_tick_at (datetime.datetime | None | Unset): The tick that closed the trade (UTC); null while open.
        exit_price (None | str | Unset): The mark at the closing tick, USD (decimal string); null while open.
        exit_price_carried (bool | Unset): True when the closing tick had no mark for the symbol and the last known mark
            was used.
        exit_reason (None | str | Unset): The agent's reason, `external_flatten` (a flatten command) or `liquidated`
            (the position vanished otherwise); null while open.
        holding_minutes (None | str | Unset): Minutes from entry to exit tick (2 decimals); null while open.
        realized_pnl_usd (None | str | Unset): Realized PnL in USD before fees (average cost at tick marks); null while
            open.
        fees_usd (str | Unset): The fees of the fills posted to the trade, USD (decimal string).
        last_filled_at (datetime.datetime | None | Unset): The latest `filled_at` of those fills (UTC); null: none
            posted.
        mfe_usd (None | str | Unset): Maximum favourable excursion: the best PnL seen at a tick mark, USD, >= 0.
        mae_usd (None | str | Unset): Maximum adverse excursion: the worst PnL seen at a tick mark, USD, <= 0.
    """

    id: UUID
    deployment_id: int
    skill_id: int
    skill_version: int
    symbol: str
    side: SideEnum
    entry_tick_at: datetime.datetime
    entry_price: str
    entry_size_usd: str
    entry_snapshot_id: None | UUID
    exit_snapshot_id: None | UUID
    size_base: str
    avg_entry_price: str
    last_mark_price: str
    created_at: datetime.datetime
    updated_at: datetime.datetime
    status: TradeOutputStatusEnum | Unset = UNSET
    entry_leverage: None | str | Unset = UNSET
    entry_reason: str | Unset = UNSET
    entry_lessons_hash: None | str | Unset = UNSET
    entry_regime_tag: None | str | Unset = UNSET
    exit_tick_at: datetime.datetime | None | Unset = UNSET
    exit_price: None | str | Unset = UNSET
    exit_price_carried: bool | Unset = UNSET
    exit_reason: None | str | Unset = UNSET
    holding_minutes: None | str | Unset = UNSET
    realized_pnl_usd: None | str | Unset = UNSET
    fees_usd: str | Unset = UNSET
    last_filled_at: datetime.datetime | None | Unset = UNSET
    mfe_usd: None | str | Unset = UNSET
    mae_usd: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        id = str(self.id)

        deployment_id = self.deployment_id

        skill_id = self.skill_id

        skill_version = self.skill_version

        symbol = self.symbol

        side: str = self.side

        entry_tick_at = self.entry_tick_at.isoformat()

        entry_price = self.entry_price

        entry_size_usd = self.entry_size_usd

        entry_snapshot_id: None | str
        if isinstance(self.entry_snapshot_id, UUID):
            entry_snapshot_id = str(self.entry_snapshot_id)
        else:
            entry_snapshot_id = self.entry_snapshot_id

        exit_snapshot_id: None | str
        if isinstance(self.exit_snapshot_id, UUID):
            exit_snapshot_id = str(self.exit_snapshot_id)
        else:
            exit_snapshot_id = self.exit_snapshot_id

        size_base = self.size_base

        avg_entry_price = self.avg_entry_price

        last_mark_price = self.last_mark_price

        created_at = self.created_at.isoformat()

        updated_at = self.updated_at.isoformat()

        status: str | Unset = UNSET
        if not isinstance(self.status, Unset):
            status = self.status

        entry_leverage: None | str | Unset
        if isinstance(self.entry_leverage, Unset):
            entry_leverage = UNSET
        else:
            entry_leverage = self.entry_leverage

        entry_reason = self.entry_reason

        entry_lessons_hash: None | str | Unset
        if isinstance(self.entry_lessons_hash, Unset):
            entry_lessons_hash = UNSET
        else:
            entry_lessons_hash = self.entry_lessons_hash

        entry_regime_tag: None | str | Unset
        if isinstance(self.entry_regime_tag, Unset):
            entry_regime_tag = UNSET
        else:
            entry_regime_tag = self.entry_regime_tag

        exit_tick_at: None | str | Unset
        if isinstance(self.exit_tick_at, Unset):
            exit_tick_at = UNSET
        elif isinstance(self.exit_tick_at, datetime.datetime):
            exit_tick_at = self.exit_tick_at.isoformat()
        else:
            exit_tick_at = self.exit_tick_at

        exit_price: None | str | Unset
        if isinstance(self.exit_price, Unset):
            exit_price = UNSET
        else:
            exit_price = self.exit_price

        exit_price_carried = self.exit_price_carried

        exit_reason: None | str | Unset
        if isinstance(self.exit_reason, Unset):
            exit_reason = UNSET
        else:
            exit_reason = self.exit_reason

        holding_minutes: None | str | Unset
        if isinstance(self.holding_minutes, Unset):
            holding_minutes = UNSET
        else:
            holding_minutes = self.holding_minutes

        realized_pnl_usd: None | str | Unset
        if isinstance(self.realized_pnl_usd, Unset):
            realized_pnl_usd = UNSET
        else:
            realized_pnl_usd = self.realized_pnl_usd

        fees_usd = self.fees_usd

        last_filled_at: None | str | Unset
        if isinstance(self.last_filled_at, Unset):
            last_filled_at = UNSET
        elif isinstance(self.last_filled_at, datetime.datetime):
            last_filled_at = self.last_filled_at.isoformat()
        else:
            last_filled_at = self.last_filled_at

        mfe_usd: None | str | Unset
        if isinstance(self.mfe_usd, Unset):
            mfe_usd = UNSET
        else:
            mfe_usd = self.mfe_usd

        mae_usd: None | str | Unset
        if isinstance(self.mae_usd, Unset):
            mae_usd = UNSET
        else:
            mae_usd = self.mae_usd

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "deployment_id": deployment_id,
                "skill_id": skill_id,
                "skill_version": skill_version,
                "symbol": symbol,
                "side": side,
                "entry_tick_at": entry_tick_at,
                "entry_price": entry_price,
                "entry_size_usd": entry_size_usd,
                "entry_snapshot_id": entry_snapshot_id,
                "exit_snapshot_id": exit_snapshot_id,
                "size_base": size_base,
                "avg_entry_price": avg_entry_price,
                "last_mark_price": last_mark_price,
                "created_at": created_at,
                "updated_at": updated_at,
            }
        )
        if status is not UNSET:
            field_dict["status"] = status
        if entry_leverage is not UNSET:
            field_dict["entry_leverage"] = entry_leverage
        if entry_reason is not UNSET:
            field_dict["entry_reason"] = entry_reason
        if entry_lessons_hash is not UNSET:
            field_dict["entry_lessons_hash"] = entry_lessons_hash
        if entry_regime_tag is not UNSET:
            field_dict["entry_regime_tag"] = entry_regime_tag
        if exit_tick_at is not UNSET:
            field_dict["exit_tick_at"] = exit_tick_at
        if exit_price is not UNSET:
            field_dict["exit_price"] = exit_price
        if exit_price_carried is not UNSET:
            field_dict["exit_price_carried"] = exit_price_carried
        if exit_reason is not UNSET:
            field_dict["exit_reason"] = exit_reason
        if holding_minutes is not UNSET:
            field_dict["holding_minutes"] = holding_minutes
        if realized_pnl_usd is not UNSET:
            field_dict["realized_pnl_usd"] = realized_pnl_usd
        if fees_usd is not UNSET:
            field_dict["fees_usd"] = fees_usd
        if last_filled_at is not UNSET:
            field_dict["last_filled_at"] = last_filled_at
        if mfe_usd is not UNSET:
            field_dict["mfe_usd"] = mfe_usd
        if mae_usd is not UNSET:
            field_dict["mae_usd"] = mae_usd

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        id = UUID(d.pop("id"))

        deployment_id = d.pop("deployment_id")

        skill_id = d.pop("skill_id")

        skill_version = d.pop("skill_version")

        symbol = d.pop("symbol")

        side = check_side_enum(d.pop("side"))

        entry_tick_at = datetime.datetime.fromisoformat(d.pop("entry_tick_at"))

        entry_price = d.pop("entry_price")

        entry_size_usd = d.pop("entry_size_usd")

        def _parse_entry_snapshot_id(data: object) -> None | UUID:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                entry_snapshot_id_type_0 = UUID(data)

                return entry_snapshot_id_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | UUID, data)

        entry_snapshot_id = _parse_entry_snapshot_id(d.pop("entry_snapshot_id"))

        def _parse_exit_snapshot_id(data: object) -> None | UUID:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                exit_snapshot_id_type_0 = UUID(data)

                return exit_snapshot_id_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | UUID, data)

        exit_snapshot_id = _parse_exit_snapshot_id(d.pop("exit_snapshot_id"))

        size_base = d.pop("size_base")

        avg_entry_price = d.pop("avg_entry_price")

        last_mark_price = d.pop("last_mark_price")

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        updated_at = datetime.datetime.fromisoformat(d.pop("updated_at"))

        _status = d.pop("status", UNSET)
        status: TradeOutputStatusEnum | Unset
        if isinstance(_status, Unset):
            status = UNSET
        else:
            status = check_trade_output_status_enum(_status)

        def _parse_entry_leverage(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        entry_leverage = _parse_entry_leverage(d.pop("entry_leverage", UNSET))

        entry_reason = d.pop("entry_reason", UNSET)

        def _parse_entry_lessons_hash(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        entry_lessons_hash = _parse_entry_lessons_hash(d.pop("entry_lessons_hash", UNSET))

        def _parse_entry_regime_tag(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        entry_regime_tag = _parse_entry_regime_tag(d.pop("entry_regime_tag", UNSET))

        def _parse_exit_tick_at(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                exit_tick_at_type_0 = datetime.datetime.fromisoformat(data)

                return exit_tick_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        exit_tick_at = _parse_exit_tick_at(d.pop("exit_tick_at", UNSET))

        def _parse_exit_price(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        exit_price = _parse_exit_price(d.pop("exit_price", UNSET))

        exit_price_carried = d.pop("exit_price_carried", UNSET)

        def _parse_exit_reason(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        exit_reason = _parse_exit_reason(d.pop("exit_reason", UNSET))

        def _parse_holding_minutes(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        holding_minutes = _parse_holding_minutes(d.pop("holding_minutes", UNSET))

        def _parse_realized_pnl_usd(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        realized_pnl_usd = _parse_realized_pnl_usd(d.pop("realized_pnl_usd", UNSET))

        fees_usd = d.pop("fees_usd", UNSET)

        def _parse_last_filled_at(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                last_filled_at_type_0 = datetime.datetime.fromisoformat(data)

                return last_filled_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        last_filled_at = _parse_last_filled_at(d.pop("last_filled_at", UNSET))

        def _parse_mfe_usd(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        mfe_usd = _parse_mfe_usd(d.pop("mfe_usd", UNSET))

        def _parse_mae_usd(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        mae_usd = _parse_mae_usd(d.pop("mae_usd", UNSET))

        trade_output = cls(
            id=id,
            deployment_id=deployment_id,
            skill_id=skill_id,
            skill_version=skill_version,
            symbol=symbol,
            side=side,
            entry_tick_at=entry_tick_at,
            entry_price=entry_price,
            entry_size_usd=entry_size_usd,
            entry_snapshot_id=entry_snapshot_id,
            exit_snapshot_id=exit_snapshot_id,
            size_base=size_base,
            avg_entry_price=avg_entry_price,
            last_mark_price=last_mark_price,
            created_at=created_at,
            updated_at=updated_at,
            status=status,
            entry_leverage=entry_leverage,
            entry_reason=entry_reason,
            entry_lessons_hash=entry_lessons_hash,
            entry_regime_tag=entry_regime_tag,
            exit_tick_at=exit_tick_at,
            exit_price=exit_price,
            exit_price_carried=exit_price_carried,
            exit_reason=exit_reason,
            holding_minutes=holding_minutes,
            realized_pnl_usd=realized_pnl_usd,
            fees_usd=fees_usd,
            last_filled_at=last_filled_at,
            mfe_usd=mfe_usd,
            mae_usd=mae_usd,
        )

        trade_output.additional_properties = d
        return trade_output

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
