from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define

from ..models.engine_input_kind_enum import EngineInputKindEnum, check_engine_input_kind_enum
from ..types import UNSET, Unset

T = TypeVar("T", bound="EngineInputRequest")


@_attrs_define
class EngineInputRequest:
    """
    Attributes:
        kind (EngineInputKindEnum): * `executed` - executed
            * `rejected` - rejected
            * `skipped` - skipped
        rule (None | str | Unset): The engine's rule that rejected or skipped it, e.g. `max_leverage` (1-64 of letters,
            digits, _ . -).
    """

    kind: EngineInputKindEnum
    rule: None | str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        kind: str = self.kind

        rule: None | str | Unset
        if isinstance(self.rule, Unset):
            rule = UNSET
        else:
            rule = self.rule

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "kind": kind,
            }
        )
        if rule is not UNSET:
            field_dict["rule"] = rule

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        kind = check_engine_input_kind_enum(d.pop("kind"))

        def _parse_rule(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        rule = _parse_rule(d.pop("rule", UNSET))

        engine_input_request = cls(
            kind=kind,
            rule=rule,
        )

        return engine_input_request
