from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define

T = TypeVar("T", bound="FillInputRequest")


@_attrs_define
class FillInputRequest:
    """
    Attributes:
        symbol (str): The symbol of the open trade the fill belongs to.
        fees_usd (float): The fill's fees in USD, added to the trade's `fees_usd`; >= 0.
        filled_at (datetime.datetime): When the fill happened, ISO 8601 with an offset; stored in UTC.
    """

    symbol: str
    fees_usd: float
    filled_at: datetime.datetime

    def to_dict(self) -> dict[str, Any]:
        symbol = self.symbol

        fees_usd = self.fees_usd

        filled_at = self.filled_at.isoformat()

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "symbol": symbol,
                "fees_usd": fees_usd,
                "filled_at": filled_at,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        symbol = d.pop("symbol")

        fees_usd = d.pop("fees_usd")

        filled_at = datetime.datetime.fromisoformat(d.pop("filled_at"))

        fill_input_request = cls(
            symbol=symbol,
            fees_usd=fees_usd,
            filled_at=filled_at,
        )

        return fill_input_request
