from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast
from uuid import UUID

from attrs import define as _attrs_define

from ..models.direction_enum import DirectionEnum, check_direction_enum
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.signal_input_request_metadata import SignalInputRequestMetadata


T = TypeVar("T", bound="SignalInputRequest")


@_attrs_define
class SignalInputRequest:
    """
    Attributes:
        agent_name (str): The analyst agent's name (at most 100 characters): its memory is its own signals only.
        agent_type (str): The kind of analyst, e.g. `news` or `technical`.
        condition_id (str): The prediction market's condition id: the market is created on first sight.
        direction (DirectionEnum): * `YES` - YES
            * `NO` - NO
            * `NEUTRAL` - NEUTRAL
        fair_probability (float): The agent's fair probability of YES, 0..1 (rounded to 4 decimals).
        confidence (float): How sure the agent is, 0..1 (rounded to 2 decimals).
        question (str | Unset): The market's question (stored when the market is first seen).
        key_drivers (list[str] | Unset): The reasons, one line each (at most 50 of 500 characters).
        metadata (SignalInputRequestMetadata | Unset): Free-form JSON (at most 50 keys), shown in memory with
            `include_metadata`.
        recommendation_id (None | Unset | UUID): Your id of the recommendation the signal fed, if any.
    """

    agent_name: str
    agent_type: str
    condition_id: str
    direction: DirectionEnum
    fair_probability: float
    confidence: float
    question: str | Unset = UNSET
    key_drivers: list[str] | Unset = UNSET
    metadata: SignalInputRequestMetadata | Unset = UNSET
    recommendation_id: None | Unset | UUID = UNSET

    def to_dict(self) -> dict[str, Any]:
        agent_name = self.agent_name

        agent_type = self.agent_type

        condition_id = self.condition_id

        direction: str = self.direction

        fair_probability = self.fair_probability

        confidence = self.confidence

        question = self.question

        key_drivers: list[str] | Unset = UNSET
        if not isinstance(self.key_drivers, Unset):
            key_drivers = self.key_drivers

        metadata: dict[str, Any] | Unset = UNSET
        if not isinstance(self.metadata, Unset):
            metadata = self.metadata.to_dict()

        recommendation_id: None | str | Unset
        if isinstance(self.recommendation_id, Unset):
            recommendation_id = UNSET
        elif isinstance(self.recommendation_id, UUID):
            recommendation_id = str(self.recommendation_id)
        else:
            recommendation_id = self.recommendation_id

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "agent_name": agent_name,
                "agent_type": agent_type,
                "condition_id": condition_id,
                "direction": direction,
                "fair_probability": fair_probability,
                "confidence": confidence,
            }
        )
        if question is not UNSET:
            field_dict["question"] = question
        if key_drivers is not UNSET:
            field_dict["key_drivers"] = key_drivers
        if metadata is not UNSET:
            field_dict["metadata"] = metadata
        if recommendation_id is not UNSET:
            field_dict["recommendation_id"] = recommendation_id

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.signal_input_request_metadata import SignalInputRequestMetadata  # noqa: PLC0415

        d = dict(src_dict)
        agent_name = d.pop("agent_name")

        agent_type = d.pop("agent_type")

        condition_id = d.pop("condition_id")

        direction = check_direction_enum(d.pop("direction"))

        fair_probability = d.pop("fair_probability")

        confidence = d.pop("confidence")

        question = d.pop("question", UNSET)

        key_drivers = cast(list[str], d.pop("key_drivers", UNSET))

        _metadata = d.pop("metadata", UNSET)
        metadata: SignalInputRequestMetadata | Unset
        if isinstance(_metadata, Unset):
            metadata = UNSET
        else:
            metadata = SignalInputRequestMetadata.from_dict(_metadata)

        def _parse_recommendation_id(data: object) -> None | Unset | UUID:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                recommendation_id_type_0 = UUID(data)

                return recommendation_id_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | Unset | UUID, data)

        recommendation_id = _parse_recommendation_id(d.pop("recommendation_id", UNSET))

        signal_input_request = cls(
            agent_name=agent_name,
            agent_type=agent_type,
            condition_id=condition_id,
            direction=direction,
            fair_probability=fair_probability,
            confidence=confidence,
            question=question,
            key_drivers=key_drivers,
            metadata=metadata,
            recommendation_id=recommendation_id,
        )

        return signal_input_request
