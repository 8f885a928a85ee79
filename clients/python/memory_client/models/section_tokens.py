from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="SectionTokens")


@_attrs_define
class SectionTokens:
    """
    Attributes:
        last_decision (int): Estimated tokens of the last_decision section (ceil(characters / 4)); 0 when it is null.
        recent_activity (int): Estimated tokens of the recent_activity section (ceil(characters / 4)); 0 when it is
            null.
        recent_trades (int): Estimated tokens of the recent_trades section (ceil(characters / 4)); 0 when it is null.
        open_positions (int): Estimated tokens of the open_positions section (ceil(characters / 4)); 0 when it is null.
        similar_situations (int): Estimated tokens of the similar_situations section (ceil(characters / 4)); 0 when it
            is null.
        manual (int): Estimated tokens of the manual section (ceil(characters / 4)); 0 when it is null.
    """

    last_decision: int
    recent_activity: int
    recent_trades: int
    open_positions: int
    similar_situations: int
    manual: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        last_decision = self.last_decision

        recent_activity = self.recent_activity

        recent_trades = self.recent_trades

        open_positions = self.open_positions

        similar_situations = self.similar_situations

        manual = self.manual

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "last_decision": last_decision,
                "recent_activity": recent_activity,
                "recent_trades": recent_trades,
                "open_positions": open_positions,
                "similar_situations": similar_situations,
                "manual": manual,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        last_decision = d.pop("last_decision")

        recent_activity = d.pop("recent_activity")

        recent_trades = d.pop("recent_trades")

        open_positions = d.pop("open_positions")

        similar_situations = d.pop("similar_situations")

        manual = d.pop("manual")

        section_tokens = cls(
            last_decision=last_decision,
            recent_activity=recent_activity,
            recent_trades=recent_trades,
            open_positions=open_positions,
            similar_situations=similar_situations,
            manual=manual,
        )

        section_tokens.additional_properties = d
        return section_tokens

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
