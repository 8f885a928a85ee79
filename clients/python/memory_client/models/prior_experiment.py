from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.verdict_enum import VerdictEnum, check_verdict_enum
from ..types import UNSET, Unset

T = TypeVar("T", bound="PriorExperiment")


@_attrs_define
class PriorExperiment:
    """
    Attributes:
        id (str): The experiment's id.
        timestamp (datetime.datetime): When it ran (UTC).
        strategy_name (str): The strategy it tested.
        verdict (None | Unset | VerdictEnum): Its verdict (`strong_signal`, `weak_signal`, `no_signal` or `overfit`);
            null: not assessed.

            * `strong_signal` - strong_signal
            * `weak_signal` - weak_signal
            * `no_signal` - no_signal
            * `overfit` - overfit
    """

    id: str
    timestamp: datetime.datetime
    strategy_name: str
    verdict: None | Unset | VerdictEnum = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        id = self.id

        timestamp = self.timestamp.isoformat()

        strategy_name = self.strategy_name

        verdict: None | str | Unset
        if isinstance(self.verdict, Unset):
            verdict = UNSET
        elif isinstance(self.verdict, str):
            verdict = self.verdict
        else:
            verdict = self.verdict

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "timestamp": timestamp,
                "strategy_name": strategy_name,
            }
        )
        if verdict is not UNSET:
            field_dict["verdict"] = verdict

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        id = d.pop("id")

        timestamp = datetime.datetime.fromisoformat(d.pop("timestamp"))

        strategy_name = d.pop("strategy_name")

        def _parse_verdict(data: object) -> None | Unset | VerdictEnum:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                verdict_type_0 = check_verdict_enum(data)

                return verdict_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | Unset | VerdictEnum, data)

        verdict = _parse_verdict(d.pop("verdict", UNSET))

        prior_experiment = cls(
            id=id,
            timestamp=timestamp,
            strategy_name=strategy_name,
            verdict=verdict,
        )

        prior_experiment.additional_properties = d
        return prior_experiment

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
