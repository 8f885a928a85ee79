from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.signal_created_degraded_steps_enum import (
    SignalCreatedDegradedStepsEnum,
    check_signal_created_degraded_steps_enum,
)

if TYPE_CHECKING:
    from ..models.evolution_event_output import EvolutionEventOutput


T = TypeVar("T", bound="SignalCreated")


@_attrs_define
class SignalCreated:
    """
    Attributes:
        id (UUID): The stored signal's id.
        market_id (int): Its market (created now if new).
        evolution_events (list[EvolutionEventOutput]): How it differs from the agent's previous signal on the market
            (empty: not much).
        degraded (bool): True when the evolution step failed (reading the agent's previous signal, comparing, storing
            the events: a database error or the query timeout) and was skipped: the signal is stored, its evolution events
            are not (and `evolution_events` is empty).
        degraded_steps (list[SignalCreatedDegradedStepsEnum]): `["evolution"]` when that step was skipped, else empty.
    """

    id: UUID
    market_id: int
    evolution_events: list[EvolutionEventOutput]
    degraded: bool
    degraded_steps: list[SignalCreatedDegradedStepsEnum]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        id = str(self.id)

        market_id = self.market_id

        evolution_events = []
        for evolution_events_item_data in self.evolution_events:
            evolution_events_item = evolution_events_item_data.to_dict()
            evolution_events.append(evolution_events_item)

        degraded = self.degraded

        degraded_steps = []
        for degraded_steps_item_data in self.degraded_steps:
            degraded_steps_item: str = degraded_steps_item_data
            degraded_steps.append(degraded_steps_item)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "market_id": market_id,
                "evolution_events": evolution_events,
                "degraded": degraded,
                "degraded_steps": degraded_steps,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.evolution_event_output import EvolutionEventOutput  # noqa: PLC0415

        d = dict(src_dict)
        id = UUID(d.pop("id"))

        market_id = d.pop("market_id")

        evolution_events = []
        _evolution_events = d.pop("evolution_events")
        for evolution_events_item_data in _evolution_events:
            evolution_events_item = EvolutionEventOutput.from_dict(evolution_events_item_data)

            evolution_events.append(evolution_events_item)

        degraded = d.pop("degraded")

        degraded_steps = []
        _degraded_steps = d.pop("degraded_steps")
        for degraded_steps_item_data in _degraded_steps:
            degraded_steps_item = check_signal_created_degraded_steps_enum(degraded_steps_item_data)

            degraded_steps.append(degraded_steps_item)

        signal_created = cls(
            id=id,
            market_id=market_id,
            evolution_events=evolution_events,
            degraded=degraded,
            degraded_steps=degraded_steps,
        )

        signal_created.additional_properties = d
        return signal_created

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
