from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.engine_input_request import EngineInputRequest
    from ..models.position_input_request import PositionInputRequest
    from ..models.proposed_action_input_request import ProposedActionInputRequest
    from ..models.tick_input_request_bars import TickInputRequestBars
    from ..models.tick_input_request_marks import TickInputRequestMarks


T = TypeVar("T", bound="TickInputRequest")


@_attrs_define
class TickInputRequest:
    """
    Attributes:
        tick_at (datetime.datetime): When the tick happened, ISO 8601 with an offset (e.g. `2026-06-04T10:00:00Z`);
            stored in UTC. The deployment's ticks go forward: an earlier one than its latest is a 409, the same one again a
            200.
        equity_usd (float): The account's equity in USD after this tick's fills; >= 0.
        positions (list[PositionInputRequest]): Every open position after this tick's fills, one per symbol (at most
            200); a symbol missing here that was open before is a close.
        marks (TickInputRequestMarks | Unset): Mark prices in USD by symbol, for symbols without a position line (e.g.
            one this tick closed: its exit price).
        proposed_action (None | ProposedActionInputRequest | Unset): What the agent proposed this tick; omitted or null:
            nothing.
        engine (EngineInputRequest | None | Unset): What the execution engine did with the proposal; omitted or null:
            not reported.
        bars (TickInputRequestBars | Unset): Recent OHLCV bars by symbol, oldest first (at most 1000 each): a trade
            opened this tick is tagged with the regime they show.
    """

    tick_at: datetime.datetime
    equity_usd: float
    positions: list[PositionInputRequest]
    marks: TickInputRequestMarks | Unset = UNSET
    proposed_action: None | ProposedActionInputRequest | Unset = UNSET
    engine: EngineInputRequest | None | Unset = UNSET
    bars: TickInputRequestBars | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        from ..models.engine_input_request import EngineInputRequest  # noqa: PLC0415
        from ..models.proposed_action_input_request import ProposedActionInputRequest  # noqa: PLC0415

        tick_at = self.tick_at.isoformat()

        equity_usd = self.equity_usd

        positions = []
        for positions_item_data in self.positions:
            positions_item = positions_item_data.to_dict()
            positions.append(positions_item)

        marks: dict[str, Any] | Unset = UNSET
        if not isinstance(self.marks, Unset):
            marks = self.marks.to_dict()

        proposed_action: dict[str, Any] | None | Unset
        if isinstance(self.proposed_action, Unset):
            proposed_action = UNSET
        elif isinstance(self.proposed_action, ProposedActionInputRequest):
            proposed_action = self.proposed_action.to_dict()
        else:
            proposed_action = self.proposed_action

        engine: dict[str, Any] | None | Unset
        if isinstance(self.engine, Unset):
            engine = UNSET
        elif isinstance(self.engine, EngineInputRequest):
            engine = self.engine.to_dict()
        else:
            engine = self.engine

        bars: dict[str, Any] | Unset = UNSET
        if not isinstance(self.bars, Unset):
            bars = self.bars.to_dict()

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "tick_at": tick_at,
                "equity_usd": equity_usd,
                "positions": positions,
            }
        )
        if marks is not UNSET:
            field_dict["marks"] = marks
        if proposed_action is not UNSET:
            field_dict["proposed_action"] = proposed_action
        if engine is not UNSET:
            field_dict["engine"] = engine
        if bars is not UNSET:
            field_dict["bars"] = bars

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.engine_input_request import EngineInputRequest  # noqa: PLC0415
        from ..models.position_input_request import PositionInputRequest  # noqa: PLC0415
        from ..models.proposed_action_input_request import ProposedActionInputRequest  # noqa: PLC0415
        from ..models.tick_input_request_bars import TickInputRequestBars  # noqa: PLC0415
        from ..models.tick_input_request_marks import TickInputRequestMarks  # noqa: PLC0415

        d = dict(src_dict)
        tick_at = datetime.datetime.fromisoformat(d.pop("tick_at"))

        equity_usd = d.pop("equity_usd")

        positions = []
        _positions = d.pop("positions")
        for positions_item_data in _positions:
            positions_item = PositionInputRequest.from_dict(positions_item_data)

            positions.append(positions_item)

        _marks = d.pop("marks", UNSET)
        marks: TickInputRequestMarks | Unset
        if isinstance(_marks, Unset):
            marks = UNSET
        else:
            marks = TickInputRequestMarks.from_dict(_marks)

        def _parse_proposed_action(data: object) -> None | ProposedActionInputRequest | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                proposed_action_type_0 = ProposedActionInputRequest.from_dict(data)

                return proposed_action_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | ProposedActionInputRequest | Unset, data)

        proposed_action = _parse_proposed_action(d.pop("proposed_action", UNSET))

        def _parse_engine(data: object) -> EngineInputRequest | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                engine_type_0 = EngineInputRequest.from_dict(data)

                return engine_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(EngineInputRequest | None | Unset, data)

        engine = _parse_engine(d.pop("engine", UNSET))

        _bars = d.pop("bars", UNSET)
        bars: TickInputRequestBars | Unset
        if isinstance(_bars, Unset):
            bars = UNSET
        else:
            bars = TickInputRequestBars.from_dict(_bars)

        tick_input_request = cls(
            tick_at=tick_at,
            equity_usd=equity_usd,
            positions=positions,
            marks=marks,
            proposed_action=proposed_action,
            engine=engine,
            bars=bars,
        )

        return tick_input_request
