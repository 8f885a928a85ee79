from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="SystemPromptSegmentsOutput")


@_attrs_define
class SystemPromptSegmentsOutput:
    """
    Attributes:
        header (str): The service's fixed opening: the agent's role and its five actions.
        leash (str): The skill version's avoid rules, stated as authoritative.
        paused (None | str): Null while the deployment runs. While the trader has paused it (`deployment_status`
            `stopped`): a fixed paragraph, right after the leash, telling the agent not to open new positions or add to open
            ones; it may hold, reduce, close or flatten.
        strategy (str): The skill version's strategy text, each line quoted with `> `.
        lessons (None | str): Null when the deployment has no active lessons.
        footer (str): The service's fixed closing: avoid rules over lessons; when in doubt, hold.
    """

    header: str
    leash: str
    paused: None | str
    strategy: str
    lessons: None | str
    footer: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        header = self.header

        leash = self.leash

        paused: None | str
        paused = self.paused

        strategy = self.strategy

        lessons: None | str
        lessons = self.lessons

        footer = self.footer

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "header": header,
                "leash": leash,
                "paused": paused,
                "strategy": strategy,
                "lessons": lessons,
                "footer": footer,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        header = d.pop("header")

        leash = d.pop("leash")

        def _parse_paused(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        paused = _parse_paused(d.pop("paused"))

        strategy = d.pop("strategy")

        def _parse_lessons(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        lessons = _parse_lessons(d.pop("lessons"))

        footer = d.pop("footer")

        system_prompt_segments_output = cls(
            header=header,
            leash=leash,
            paused=paused,
            strategy=strategy,
            lessons=lessons,
            footer=footer,
        )

        system_prompt_segments_output.additional_properties = d
        return system_prompt_segments_output

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
