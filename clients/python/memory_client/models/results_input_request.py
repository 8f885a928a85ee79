from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="ResultsInputRequest")


@_attrs_define
class ResultsInputRequest:
    """
    Attributes:
        test_accuracy (float | None | Unset): Accuracy on the test set, 0..1.
        val_accuracy (float | None | Unset): Accuracy on the validation set, 0..1.
        val_test_gap (float | None | Unset): Validation minus test accuracy, -1..1 (a large gap suggests overfitting).
        sharpe_ratio (float | None | Unset): The backtest's Sharpe ratio (as your backtester computes it).
        total_trades (int | None | Unset): Trades in the backtest; >= 0.
        win_rate (float | None | Unset): Share of winning trades, 0..1.
    """

    test_accuracy: float | None | Unset = UNSET
    val_accuracy: float | None | Unset = UNSET
    val_test_gap: float | None | Unset = UNSET
    sharpe_ratio: float | None | Unset = UNSET
    total_trades: int | None | Unset = UNSET
    win_rate: float | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        test_accuracy: float | None | Unset
        if isinstance(self.test_accuracy, Unset):
            test_accuracy = UNSET
        else:
            test_accuracy = self.test_accuracy

        val_accuracy: float | None | Unset
        if isinstance(self.val_accuracy, Unset):
            val_accuracy = UNSET
        else:
            val_accuracy = self.val_accuracy

        val_test_gap: float | None | Unset
        if isinstance(self.val_test_gap, Unset):
            val_test_gap = UNSET
        else:
            val_test_gap = self.val_test_gap

        sharpe_ratio: float | None | Unset
        if isinstance(self.sharpe_ratio, Unset):
            sharpe_ratio = UNSET
        else:
            sharpe_ratio = self.sharpe_ratio

        total_trades: int | None | Unset
        if isinstance(self.total_trades, Unset):
            total_trades = UNSET
        else:
            total_trades = self.total_trades

        win_rate: float | None | Unset
        if isinstance(self.win_rate, Unset):
            win_rate = UNSET
        else:
            win_rate = self.win_rate

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if test_accuracy is not UNSET:
            field_dict["test_accuracy"] = test_accuracy
        if val_accuracy is not UNSET:
            field_dict["val_accuracy"] = val_accuracy
        if val_test_gap is not UNSET:
            field_dict["val_test_gap"] = val_test_gap
        if sharpe_ratio is not UNSET:
            field_dict["sharpe_ratio"] = sharpe_ratio
        if total_trades is not UNSET:
            field_dict["total_trades"] = total_trades
        if win_rate is not UNSET:
            field_dict["win_rate"] = win_rate

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)

        def _parse_test_accuracy(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        test_accuracy = _parse_test_accuracy(d.pop("test_accuracy", UNSET))

        def _parse_val_accuracy(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        val_accuracy = _parse_val_accuracy(d.pop("val_accuracy", UNSET))

        def _parse_val_test_gap(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        val_test_gap = _parse_val_test_gap(d.pop("val_test_gap", UNSET))

        def _parse_sharpe_ratio(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        sharpe_ratio = _parse_sharpe_ratio(d.pop("sharpe_ratio", UNSET))

        def _parse_total_trades(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        total_trades = _parse_total_trades(d.pop("total_trades", UNSET))

        def _parse_win_rate(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        win_rate = _parse_win_rate(d.pop("win_rate", UNSET))

        results_input_request = cls(
            test_accuracy=test_accuracy,
            val_accuracy=val_accuracy,
            val_test_gap=val_test_gap,
            sharpe_ratio=sharpe_ratio,
            total_trades=total_trades,
            win_rate=win_rate,
        )

        results_input_request.additional_properties = d
        return results_input_request

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
