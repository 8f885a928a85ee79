from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.historical_signal_output import HistoricalSignalOutput


T = TypeVar("T", bound="AgentMemoryOutput")


@_attrs_define
class AgentMemoryOutput:
    """
    Attributes:
        signals (list[HistoricalSignalOutput]): This agent's own signals, newest first.
        text (str): The formatted memory context (oldest first).
        prompt (str): The seed's '## Your Previous Analysis' block with its instructions.
        signal_count (int): Signals in the memory, those truncation dropped included.
        truncated (bool): True when signals were dropped or cut to fit `max_length`.
    """

    signals: list[HistoricalSignalOutput]
    text: str
    prompt: str
    signal_count: int
    truncated: bool
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        signals = []
        for signals_item_data in self.signals:
            signals_item = signals_item_data.to_dict()
            signals.append(signals_item)

        text = self.text

        prompt = self.prompt

        signal_count = self.signal_count

        truncated = self.truncated

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "signals": signals,
                "text": text,
                "prompt": prompt,
                "signal_count": signal_count,
                "truncated": truncated,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.historical_signal_output import HistoricalSignalOutput  # noqa: PLC0415

        d = dict(src_dict)
        signals = []
        _signals = d.pop("signals")
        for signals_item_data in _signals:
            signals_item = HistoricalSignalOutput.from_dict(signals_item_data)

            signals.append(signals_item)

        text = d.pop("text")

        prompt = d.pop("prompt")

        signal_count = d.pop("signal_count")

        truncated = d.pop("truncated")

        agent_memory_output = cls(
            signals=signals,
            text=text,
            prompt=prompt,
            signal_count=signal_count,
            truncated=truncated,
        )

        agent_memory_output.additional_properties = d
        return agent_memory_output

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
