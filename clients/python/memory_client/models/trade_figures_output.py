from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.pnl_interval_output import PnlIntervalOutput
    from ..models.rate_interval_output import RateIntervalOutput


T = TypeVar("T", bound="TradeFiguresOutput")


@_attrs_define
class TradeFiguresOutput:
    """
    Attributes:
        n_closed (int): Closed trades in the group.
        avg_realized_pnl_usd (None | str): Average realized PnL per closed trade, USD (decimal string); null: no trades.
        win_rate (None | str): Share of closed trades with PnL > 0 (0..1, decimal string); null: no trades.
        too_few_trades (bool): Fewer than 20 closed trades: too few to tell; no interval is given.
        avg_realized_pnl_usd_ci95 (None | PnlIntervalOutput): 95% interval on the average realized PnL per trade
            (Student's t); null when too few trades.
        win_rate_ci95 (None | RateIntervalOutput): 95% interval on the win rate (Wilson score); null when too few
            trades.
    """

    n_closed: int
    avg_realized_pnl_usd: None | str
    win_rate: None | str
    too_few_trades: bool
    avg_realized_pnl_usd_ci95: None | PnlIntervalOutput
    win_rate_ci95: None | RateIntervalOutput
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.pnl_interval_output import PnlIntervalOutput  # noqa: PLC0415
        from ..models.rate_interval_output import RateIntervalOutput  # noqa: PLC0415

        n_closed = self.n_closed

        avg_realized_pnl_usd: None | str
        avg_realized_pnl_usd = self.avg_realized_pnl_usd

        win_rate: None | str
        win_rate = self.win_rate

        too_few_trades = self.too_few_trades

        avg_realized_pnl_usd_ci95: dict[str, Any] | None
        if isinstance(self.avg_realized_pnl_usd_ci95, PnlIntervalOutput):
            avg_realized_pnl_usd_ci95 = self.avg_realized_pnl_usd_ci95.to_dict()
        else:
            avg_realized_pnl_usd_ci95 = self.avg_realized_pnl_usd_ci95

        win_rate_ci95: dict[str, Any] | None
        if isinstance(self.win_rate_ci95, RateIntervalOutput):
            win_rate_ci95 = self.win_rate_ci95.to_dict()
        else:
            win_rate_ci95 = self.win_rate_ci95

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "n_closed": n_closed,
                "avg_realized_pnl_usd": avg_realized_pnl_usd,
                "win_rate": win_rate,
                "too_few_trades": too_few_trades,
                "avg_realized_pnl_usd_ci95": avg_realized_pnl_usd_ci95,
                "win_rate_ci95": win_rate_ci95,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.pnl_interval_output import PnlIntervalOutput  # noqa: PLC0415
        from ..models.rate_interval_output import RateIntervalOutput  # noqa: PLC0415

        d = dict(src_dict)
        n_closed = d.pop("n_closed")

        def _parse_avg_realized_pnl_usd(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        avg_realized_pnl_usd = _parse_avg_realized_pnl_usd(d.pop("avg_realized_pnl_usd"))

        def _parse_win_rate(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        win_rate = _parse_win_rate(d.pop("win_rate"))

        too_few_trades = d.pop("too_few_trades")

        def _parse_avg_realized_pnl_usd_ci95(data: object) -> None | PnlIntervalOutput:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                avg_realized_pnl_usd_ci95_type_0 = PnlIntervalOutput.from_dict(data)

                return avg_realized_pnl_usd_ci95_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | PnlIntervalOutput, data)

        avg_realized_pnl_usd_ci95 = _parse_avg_realized_pnl_usd_ci95(d.pop("avg_realized_pnl_usd_ci95"))

        def _parse_win_rate_ci95(data: object) -> None | RateIntervalOutput:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                win_rate_ci95_type_0 = RateIntervalOutput.from_dict(data)

                return win_rate_ci95_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | RateIntervalOutput, data)

        win_rate_ci95 = _parse_win_rate_ci95(d.pop("win_rate_ci95"))

        trade_figures_output = cls(
            n_closed=n_closed,
            avg_realized_pnl_usd=avg_realized_pnl_usd,
            win_rate=win_rate,
            too_few_trades=too_few_trades,
            avg_realized_pnl_usd_ci95=avg_realized_pnl_usd_ci95,
            win_rate_ci95=win_rate_ci95,
        )

        trade_figures_output.additional_properties = d
        return trade_figures_output

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
