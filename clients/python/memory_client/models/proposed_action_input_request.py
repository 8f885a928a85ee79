from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define

from ..models.proposed_action_input_kind_enum import ProposedActionInputKindEnum, check_proposed_action_input_kind_enum
from ..types import UNSET, Unset

T = TypeVar("T", bound="ProposedActionInputRequest")


@_attrs_define
class ProposedActionInputRequest:
    """
    Attributes:
        kind (ProposedActionInputKindEnum): * `propose_order` - propose_order
            * `close_position` - close_position
            * `adjust_position` - adjust_position
            * `hold` - hold
            * `flatten` - flatten
        symbol (None | str | Unset): The symbol it concerns; null for `hold` and `flatten`.
        reason (str | Unset): The agent's reason in a line (at most 500 characters): becomes the trade's entry or exit
            reason when the engine executed it.
    """

    kind: ProposedActionInputKindEnum
    symbol: None | str | Unset = UNSET
    reason: str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        kind: str = self.kind

        symbol: None | str | Unset
        if isinstance(self.symbol, Unset):
            symbol = UNSET
        else:
            symbol = self.symbol

        reason = self.reason

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "kind": kind,
            }
        )
        if symbol is not UNSET:
            field_dict["symbol"] = symbol
        if reason is not UNSET:
            field_dict["reason"] = reason

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        kind = check_proposed_action_input_kind_enum(d.pop("kind"))

        def _parse_symbol(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        symbol = _parse_symbol(d.pop("symbol", UNSET))

        reason = d.pop("reason", UNSET)

        proposed_action_input_request = cls(
            kind=kind,
            symbol=symbol,
            reason=reason,
        )

        return proposed_action_input_request
