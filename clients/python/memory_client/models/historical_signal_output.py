from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.historical_signal_output_metadata import HistoricalSignalOutputMetadata


T = TypeVar("T", bound="HistoricalSignalOutput")


@_attrs_define
class HistoricalSignalOutput:
    """
    Attributes:
        agent_name (str): The agent that sent it.
        market_id (str): The market's id (a string, as the seed has it).
        timestamp (datetime.datetime): When it was stored (UTC).
        direction (str): `YES`, `NO` or `NEUTRAL`.
        fair_probability (float): Fair probability of YES, 0..1.
        confidence (float): Confidence, 0..1.
        key_drivers (list[str]): The reasons given.
        metadata (HistoricalSignalOutputMetadata): The JSON sent with it.
    """

    agent_name: str
    market_id: str
    timestamp: datetime.datetime
    direction: str
    fair_probability: float
    confidence: float
    key_drivers: list[str]
    metadata: HistoricalSignalOutputMetadata
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        agent_name = self.agent_name

        market_id = self.market_id

        timestamp = self.timestamp.isoformat()

        direction = self.direction

        fair_probability = self.fair_probability

        confidence = self.confidence

        key_drivers = self.key_drivers

        metadata = self.metadata.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "agent_name": agent_name,
                "market_id": market_id,
                "timestamp": timestamp,
                "direction": direction,
                "fair_probability": fair_probability,
                "confidence": confidence,
                "key_drivers": key_drivers,
                "metadata": metadata,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.historical_signal_output_metadata import HistoricalSignalOutputMetadata  # noqa: PLC0415

        d = dict(src_dict)
        agent_name = d.pop("agent_name")

        market_id = d.pop("market_id")

        timestamp = datetime.datetime.fromisoformat(d.pop("timestamp"))

        direction = d.pop("direction")

        fair_probability = d.pop("fair_probability")

        confidence = d.pop("confidence")

        key_drivers = cast(list[str], d.pop("key_drivers"))

        metadata = HistoricalSignalOutputMetadata.from_dict(d.pop("metadata"))

        historical_signal_output = cls(
            agent_name=agent_name,
            market_id=market_id,
            timestamp=timestamp,
            direction=direction,
            fair_probability=fair_probability,
            confidence=confidence,
            key_drivers=key_drivers,
            metadata=metadata,
        )

        historical_signal_output.additional_properties = d
        return historical_signal_output

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
