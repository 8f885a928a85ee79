from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="ContextSections")


@_attrs_define
class ContextSections:
    """
    Attributes:
        last_decision (None | str): ## Last decision: the previous tick's proposal and the engine's verdict (times in
            UTC); null before the first tick.
        recent_activity (None | str): ## Recent activity (this session): executed orders and realized PnL today (UTC
            day, against the day-start equity); null when there is nothing today.
        recent_trades (None | str): ## Recent trades on this skill (closed): the newest `recent_trades_k` closed trades,
            one a line (times UTC, sizes and PnL in USD); null when there are none.
        open_positions (None | str): ## Open positions (memory view): the ledger's open trades with entry, mark, MFE/MAE
            and time held; null when there are none.
        similar_situations (None | str): Phase 3: for each open position, the nearest closed trades of this skill with
            the same symbol and side and their outcomes (~500 tokens at most); null when there are none.
        manual (None | str): ## From your manual and playbooks: the chunks of your TRADING_MANUAL.md and of the staff
            playbooks and runbooks most relevant to this tick (queried by the open positions, the last proposal and the last
            rejection code; keyword ranking), each row citing path:startLine-endLine, within the skill version's
            manual_token_cap; null when it is off or nothing clears the relevance floor.
    """

    last_decision: None | str
    recent_activity: None | str
    recent_trades: None | str
    open_positions: None | str
    similar_situations: None | str
    manual: None | str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        last_decision: None | str
        last_decision = self.last_decision

        recent_activity: None | str
        recent_activity = self.recent_activity

        recent_trades: None | str
        recent_trades = self.recent_trades

        open_positions: None | str
        open_positions = self.open_positions

        similar_situations: None | str
        similar_situations = self.similar_situations

        manual: None | str
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

        def _parse_last_decision(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        last_decision = _parse_last_decision(d.pop("last_decision"))

        def _parse_recent_activity(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        recent_activity = _parse_recent_activity(d.pop("recent_activity"))

        def _parse_recent_trades(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        recent_trades = _parse_recent_trades(d.pop("recent_trades"))

        def _parse_open_positions(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        open_positions = _parse_open_positions(d.pop("open_positions"))

        def _parse_similar_situations(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        similar_situations = _parse_similar_situations(d.pop("similar_situations"))

        def _parse_manual(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        manual = _parse_manual(d.pop("manual"))

        context_sections = cls(
            last_decision=last_decision,
            recent_activity=recent_activity,
            recent_trades=recent_trades,
            open_positions=open_positions,
            similar_situations=similar_situations,
            manual=manual,
        )

        context_sections.additional_properties = d
        return context_sections

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
