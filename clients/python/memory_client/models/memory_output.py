from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.memory_output_degraded_steps_enum import (
    MemoryOutputDegradedStepsEnum,
    check_memory_output_degraded_steps_enum,
)

if TYPE_CHECKING:
    from ..models.memory_output_agents import MemoryOutputAgents


T = TypeVar("T", bound="MemoryOutput")


@_attrs_define
class MemoryOutput:
    """
    Attributes:
        agents (MemoryOutputAgents): Each agent named in `agents`, by name: its own memory.
        enabled (bool): False when analyst memory is switched off (staff's setting, or SIGNALS_MEMORY_ENABLED): every
            agent gets empty memory and nothing was read; the agents run without it.
        degraded (bool): True when a step failed and memory is empty by fallback (the steps: `degraded_steps`).
        degraded_steps (list[MemoryOutputDegradedStepsEnum]): The steps that failed, in this order: market (the market
            lookup: a database error or the query timeout; every agent gets empty memory), signals (the signals query: the
            same, audited), formatting (an agent's memory could not be formatted: that agent gets empty memory). Empty when
            nothing failed.
    """

    agents: MemoryOutputAgents
    enabled: bool
    degraded: bool
    degraded_steps: list[MemoryOutputDegradedStepsEnum]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        agents = self.agents.to_dict()

        enabled = self.enabled

        degraded = self.degraded

        degraded_steps = []
        for degraded_steps_item_data in self.degraded_steps:
            degraded_steps_item: str = degraded_steps_item_data
            degraded_steps.append(degraded_steps_item)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "agents": agents,
                "enabled": enabled,
                "degraded": degraded,
                "degraded_steps": degraded_steps,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.memory_output_agents import MemoryOutputAgents  # noqa: PLC0415

        d = dict(src_dict)
        agents = MemoryOutputAgents.from_dict(d.pop("agents"))

        enabled = d.pop("enabled")

        degraded = d.pop("degraded")

        degraded_steps = []
        _degraded_steps = d.pop("degraded_steps")
        for degraded_steps_item_data in _degraded_steps:
            degraded_steps_item = check_memory_output_degraded_steps_enum(degraded_steps_item_data)

            degraded_steps.append(degraded_steps_item)

        memory_output = cls(
            agents=agents,
            enabled=enabled,
            degraded=degraded,
            degraded_steps=degraded_steps,
        )

        memory_output.additional_properties = d
        return memory_output

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
