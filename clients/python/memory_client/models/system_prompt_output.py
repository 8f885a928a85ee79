from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.system_prompt_segments_output import SystemPromptSegmentsOutput


T = TypeVar("T", bound="SystemPromptOutput")


@_attrs_define
class SystemPromptOutput:
    """
    Attributes:
        segments (SystemPromptSegmentsOutput):
        text (str): The segments that are not null, joined by one blank line, in this order: header, leash, paused,
            strategy, lessons, footer.
    """

    segments: SystemPromptSegmentsOutput
    text: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        segments = self.segments.to_dict()

        text = self.text

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "segments": segments,
                "text": text,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.system_prompt_segments_output import SystemPromptSegmentsOutput  # noqa: PLC0415

        d = dict(src_dict)
        segments = SystemPromptSegmentsOutput.from_dict(d.pop("segments"))

        text = d.pop("text")

        system_prompt_output = cls(
            segments=segments,
            text=text,
        )

        system_prompt_output.additional_properties = d
        return system_prompt_output

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
