from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.reflection_cadence_enum import ReflectionCadenceEnum, check_reflection_cadence_enum
from ..types import UNSET, Unset

T = TypeVar("T", bound="SkillVersionOutput")


@_attrs_define
class SkillVersionOutput:
    """
    Attributes:
        skill_id (int): The skill this version belongs to.
        version (int): The version number: 1 for the skill's first, then latest + 1.
        strategy_text (str): The strategy in words, as the agent's system prompt states it (markdown; newlines kept).
        avoid_rules_list (list[str]): `avoid_rules` split into its non-empty lines.
        created_at (datetime.datetime): When the version was created (UTC, ISO 8601).
        avoid_rules (str | Unset): Things the agent must not do, one rule a line (empty: none).
        memory_enabled (bool | Unset): Whether the context carries the memory sections (recent trades, open positions,
            similar situations); off leaves them out.
        recent_trades_k (int | Unset): How many of the latest closed trades the context lists (1-30).
        reflection_cadence (ReflectionCadenceEnum | Unset): * `off` - off
            * `per_n_trades` - every N closed trades
            * `daily` - daily
        reflection_every_n_trades (int | Unset): N for `per_n_trades`: reflect after this many closed trades (1-1000).
        reflection_model_override (None | str | Unset): The model reflection uses for this version; null: the service's
            REFLECTION_MODEL.
        bars_window (int | Unset): How many bars per symbol the runner is expected to send in a tick's `bars` (1-1000);
            regime tagging reads them.
        manual_enabled (bool | Unset): The context's `## From your manual and playbooks` section: on (default) or off.
        manual_k (int | Unset): At most this many chunks of the manual and the staff playbooks/runbooks in that section.
        manual_token_cap (int | Unset): That section's estimated tokens (ceil(chars / 4)) never exceed this.
    """

    skill_id: int
    version: int
    strategy_text: str
    avoid_rules_list: list[str]
    created_at: datetime.datetime
    avoid_rules: str | Unset = UNSET
    memory_enabled: bool | Unset = UNSET
    recent_trades_k: int | Unset = UNSET
    reflection_cadence: ReflectionCadenceEnum | Unset = UNSET
    reflection_every_n_trades: int | Unset = UNSET
    reflection_model_override: None | str | Unset = UNSET
    bars_window: int | Unset = UNSET
    manual_enabled: bool | Unset = UNSET
    manual_k: int | Unset = UNSET
    manual_token_cap: int | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        skill_id = self.skill_id

        version = self.version

        strategy_text = self.strategy_text

        avoid_rules_list = self.avoid_rules_list

        created_at = self.created_at.isoformat()

        avoid_rules = self.avoid_rules

        memory_enabled = self.memory_enabled

        recent_trades_k = self.recent_trades_k

        reflection_cadence: str | Unset = UNSET
        if not isinstance(self.reflection_cadence, Unset):
            reflection_cadence = self.reflection_cadence

        reflection_every_n_trades = self.reflection_every_n_trades

        reflection_model_override: None | str | Unset
        if isinstance(self.reflection_model_override, Unset):
            reflection_model_override = UNSET
        else:
            reflection_model_override = self.reflection_model_override

        bars_window = self.bars_window

        manual_enabled = self.manual_enabled

        manual_k = self.manual_k

        manual_token_cap = self.manual_token_cap

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "skill_id": skill_id,
                "version": version,
                "strategy_text": strategy_text,
                "avoid_rules_list": avoid_rules_list,
                "created_at": created_at,
            }
        )
        if avoid_rules is not UNSET:
            field_dict["avoid_rules"] = avoid_rules
        if memory_enabled is not UNSET:
            field_dict["memory_enabled"] = memory_enabled
        if recent_trades_k is not UNSET:
            field_dict["recent_trades_k"] = recent_trades_k
        if reflection_cadence is not UNSET:
            field_dict["reflection_cadence"] = reflection_cadence
        if reflection_every_n_trades is not UNSET:
            field_dict["reflection_every_n_trades"] = reflection_every_n_trades
        if reflection_model_override is not UNSET:
            field_dict["reflection_model_override"] = reflection_model_override
        if bars_window is not UNSET:
            field_dict["bars_window"] = bars_window
        if manual_enabled is not UNSET:
            field_dict["manual_enabled"] = manual_enabled
        if manual_k is not UNSET:
            field_dict["manual_k"] = manual_k
        if manual_token_cap is not UNSET:
            field_dict["manual_token_cap"] = manual_token_cap

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        skill_id = d.pop("skill_id")

        version = d.pop("version")

        strategy_text = d.pop("strategy_text")

        avoid_rules_list = cast(list[str], d.pop("avoid_rules_list"))

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        avoid_rules = d.pop("avoid_rules", UNSET)

        memory_enabled = d.pop("memory_enabled", UNSET)

        recent_trades_k = d.pop("recent_trades_k", UNSET)

        _reflection_cadence = d.pop("reflection_cadence", UNSET)
        reflection_cadence: ReflectionCadenceEnum | Unset
        if isinstance(_reflection_cadence, Unset):
            reflection_cadence = UNSET
        else:
            reflection_cadence = check_reflection_cadence_enum(_reflection_cadence)

        reflection_every_n_trades = d.pop("reflection_every_n_trades", UNSET)

        def _parse_reflection_model_override(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        reflection_model_override = _parse_reflection_model_override(d.pop("reflection_model_override", UNSET))

        bars_window = d.pop("bars_window", UNSET)

        manual_enabled = d.pop("manual_enabled", UNSET)

        manual_k = d.pop("manual_k", UNSET)

        manual_token_cap = d.pop("manual_token_cap", UNSET)

        skill_version_output = cls(
            skill_id=skill_id,
            version=version,
            strategy_text=strategy_text,
            avoid_rules_list=avoid_rules_list,
            created_at=created_at,
            avoid_rules=avoid_rules,
            memory_enabled=memory_enabled,
            recent_trades_k=recent_trades_k,
            reflection_cadence=reflection_cadence,
            reflection_every_n_trades=reflection_every_n_trades,
            reflection_model_override=reflection_model_override,
            bars_window=bars_window,
            manual_enabled=manual_enabled,
            manual_k=manual_k,
            manual_token_cap=manual_token_cap,
        )

        skill_version_output.additional_properties = d
        return skill_version_output

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
