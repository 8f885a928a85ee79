from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, TypeVar
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.type_enum import TypeEnum, check_type_enum

T = TypeVar("T", bound="EvolutionEventOutput")


@_attrs_define
class EvolutionEventOutput:
    """
    Attributes:
        id (int): The event's id.
        type_ (TypeEnum): * `direction_change` - direction change
            * `probability_shift` - probability shift
            * `confidence_change` - confidence change
            * `reasoning_evolution` - reasoning evolution
        agent_name (str): The agent whose view changed.
        market_id (int): The market.
        signal_id (UUID): The signal that showed the change.
        previous_value (Any): The value in the agent's previous signal.
        current_value (Any): The value in this one.
        magnitude (float): How large: |Δ| for probability and confidence, 1 for a direction change, 0.5 for reasoning.
        description (str): The change in words, e.g. `Fair probability shifted by 12.0%`.
        timestamp (datetime.datetime): When (UTC): the new signal's time.
    """

    id: int
    type_: TypeEnum
    agent_name: str
    market_id: int
    signal_id: UUID
    previous_value: Any
    current_value: Any
    magnitude: float
    description: str
    timestamp: datetime.datetime
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        id = self.id

        type_: str = self.type_

        agent_name = self.agent_name

        market_id = self.market_id

        signal_id = str(self.signal_id)

        previous_value = self.previous_value

        current_value = self.current_value

        magnitude = self.magnitude

        description = self.description

        timestamp = self.timestamp.isoformat()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "type": type_,
                "agent_name": agent_name,
                "market_id": market_id,
                "signal_id": signal_id,
                "previous_value": previous_value,
                "current_value": current_value,
                "magnitude": magnitude,
                "description": description,
                "timestamp": timestamp,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        id = d.pop("id")

        type_ = check_type_enum(d.pop("type"))

        agent_name = d.pop("agent_name")

        market_id = d.pop("market_id")

        signal_id = UUID(d.pop("signal_id"))

        previous_value = d.pop("previous_value")

        current_value = d.pop("current_value")

        magnitude = d.pop("magnitude")

        description = d.pop("description")

        timestamp = datetime.datetime.fromisoformat(d.pop("timestamp"))

        evolution_event_output = cls(
            id=id,
            type_=type_,
            agent_name=agent_name,
            market_id=market_id,
            signal_id=signal_id,
            previous_value=previous_value,
            current_value=current_value,
            magnitude=magnitude,
            description=description,
            timestamp=timestamp,
        )

        evolution_event_output.additional_properties = d
        return evolution_event_output

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
