from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="ResearchContextOutput")


@_attrs_define
class ResearchContextOutput:
    """
    Attributes:
        text (str): The research agent's memory block (markdown).
        token_estimate (int): Its estimated tokens (ceil(characters / 4)).
        experiments_shown (int): How many experiments the history shows.
    """

    text: str
    token_estimate: int
    experiments_shown: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        text = self.text

        token_estimate = self.token_estimate

        experiments_shown = self.experiments_shown

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "text": text,
                "token_estimate": token_estimate,
                "experiments_shown": experiments_shown,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        text = d.pop("text")

        token_estimate = d.pop("token_estimate")

        experiments_shown = d.pop("experiments_shown")

        research_context_output = cls(
            text=text,
            token_estimate=token_estimate,
            experiments_shown=experiments_shown,
        )

        research_context_output.additional_properties = d
        return research_context_output

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
