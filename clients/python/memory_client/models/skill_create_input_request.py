from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define

from ..models.reflection_cadence_enum import ReflectionCadenceEnum, check_reflection_cadence_enum
from ..types import UNSET, Unset

T = TypeVar("T", bound="SkillCreateInputRequest")


@_attrs_define
class SkillCreateInputRequest:
    """
    Attributes:
        strategy_text (str): The strategy in words, as the agent's system prompt states it (markdown; newlines kept).
        name (str): The skill's name, unique among your skills (1-100 characters, one line).
        avoid_rules (str | Unset): Things the agent must not do, one rule a line (empty: none); listed in its system
            prompt. Default: ''.
        memory_enabled (bool | Unset): Whether the context carries the memory sections (recent trades, open positions,
            similar situations); off leaves them out. Default: True.
        recent_trades_k (int | Unset): How many of the latest closed trades the context lists (1-30). Default: 10.
        reflection_cadence (ReflectionCadenceEnum | Unset): * `off` - off
            * `per_n_trades` - every N closed trades
            * `daily` - daily Default: 'per_n_trades'.
        reflection_every_n_trades (int | Unset): N for `per_n_trades`: reflect after this many closed trades (1-1000).
            Default: 5.
        reflection_model_override (None | str | Unset): The model reflection uses for this version (seed:
            modelOverride), e.g. claude-sonnet-5; null (default): the service's REFLECTION_MODEL. Pattern:
            ^claude-[a-z0-9]+(-[a-z0-9]+)*$
        bars_window (int | Unset): How many bars per symbol the runner is expected to send in a tick's `bars` (1-1000);
            regime tagging reads them. Default: 100.
        manual_enabled (bool | Unset): The context's `## From your manual and playbooks` section: on (default) or off.
            Default: True.
        manual_k (int | Unset): At most this many chunks of the manual and the staff playbooks/runbooks in that section.
            Default: 3.
        manual_token_cap (int | Unset): That section's estimated tokens (ceil(chars / 4)) never exceed this. Default:
            400.
    """

    strategy_text: str
    name: str
    avoid_rules: str | Unset = ""
    memory_enabled: bool | Unset = True
    recent_trades_k: int | Unset = 10
    reflection_cadence: ReflectionCadenceEnum | Unset = "per_n_trades"
    reflection_every_n_trades: int | Unset = 5
    reflection_model_override: None | str | Unset = UNSET
    bars_window: int | Unset = 100
    manual_enabled: bool | Unset = True
    manual_k: int | Unset = 3
    manual_token_cap: int | Unset = 400

    def to_dict(self) -> dict[str, Any]:
        strategy_text = self.strategy_text

        name = self.name

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

        field_dict.update(
            {
                "strategy_text": strategy_text,
                "name": name,
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
        strategy_text = d.pop("strategy_text")

        name = d.pop("name")

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

        skill_create_input_request = cls(
            strategy_text=strategy_text,
            name=name,
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

        return skill_create_input_request
