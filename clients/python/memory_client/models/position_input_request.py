from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define

from ..models.side_enum import SideEnum, check_side_enum
from ..types import UNSET, Unset

T = TypeVar("T", bound="PositionInputRequest")


@_attrs_define
class PositionInputRequest:
    """
    Attributes:
        symbol (str): The instrument, e.g. `BTC` or `ETH-PERP` (1-32 of letters, digits and . _ - / :).
        side (SideEnum): * `long` - long
            * `short` - short
        size (float): The position's size in base units (coins, shares, contracts), after this tick's fills; > 0.
        mark_price (float): The symbol's mark price in USD at `tick_at`; > 0.
        leverage (float | None | Unset): The position's leverage (e.g. 3 for 3x), if the venue has one; omitted or null:
            none.
    """

    symbol: str
    side: SideEnum
    size: float
    mark_price: float
    leverage: float | None | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        symbol = self.symbol

        side: str = self.side

        size = self.size

        mark_price = self.mark_price

        leverage: float | None | Unset
        if isinstance(self.leverage, Unset):
            leverage = UNSET
        else:
            leverage = self.leverage

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "symbol": symbol,
                "side": side,
                "size": size,
                "mark_price": mark_price,
            }
        )
        if leverage is not UNSET:
            field_dict["leverage"] = leverage

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        symbol = d.pop("symbol")

        side = check_side_enum(d.pop("side"))

        size = d.pop("size")

        mark_price = d.pop("mark_price")

        def _parse_leverage(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        leverage = _parse_leverage(d.pop("leverage", UNSET))

        position_input_request = cls(
            symbol=symbol,
            side=side,
            size=size,
            mark_price=mark_price,
            leverage=leverage,
        )

        return position_input_request
