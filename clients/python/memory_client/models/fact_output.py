from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, TypeVar, cast
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.archived_reason_enum import ArchivedReasonEnum, check_archived_reason_enum
from ..models.confidence_enum import ConfidenceEnum, check_confidence_enum
from ..models.fact_output_source_enum import FactOutputSourceEnum, check_fact_output_source_enum
from ..types import UNSET, Unset

T = TypeVar("T", bound="FactOutput")


@_attrs_define
class FactOutput:
    """
    Attributes:
        id (UUID): The fact's id (a UUID).
        fact (str): The fact in one sentence, e.g. "Trades only BTC and ETH perps." (4-500 characters).
        source (FactOutputSourceEnum): * `chat` - chat (the agent remembered it)
            * `profile` - profile (you wrote it)
            * `inferred` - inferred (from your behaviour)
        confidence (ConfidenceEnum): * `asserted` - asserted
            * `inferred` - inferred
        created_at (datetime.datetime): When it was recorded (UTC).
        updated_at (datetime.datetime): When it last changed (UTC).
        topic (None | str | Unset): A short label grouping facts, e.g. `risk` (at most 32 characters); null: none.
        last_referenced_at (datetime.datetime | None | Unset): When the coach last used it (UTC); null: never.
        archived_at (datetime.datetime | None | Unset): When it was archived (UTC); null: in use.
        archived_reason (ArchivedReasonEnum | None | Unset): Why: `user_deleted`, `user_corrected` or `agent_forget`
            (the coach forgot it); null while in use.

            * `user_deleted` - archived by the trader
            * `user_corrected` - archived: the trader corrected it
            * `agent_forget` - forgotten by the coach
    """

    id: UUID
    fact: str
    source: FactOutputSourceEnum
    confidence: ConfidenceEnum
    created_at: datetime.datetime
    updated_at: datetime.datetime
    topic: None | str | Unset = UNSET
    last_referenced_at: datetime.datetime | None | Unset = UNSET
    archived_at: datetime.datetime | None | Unset = UNSET
    archived_reason: ArchivedReasonEnum | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        id = str(self.id)

        fact = self.fact

        source: str = self.source

        confidence: str = self.confidence

        created_at = self.created_at.isoformat()

        updated_at = self.updated_at.isoformat()

        topic: None | str | Unset
        if isinstance(self.topic, Unset):
            topic = UNSET
        else:
            topic = self.topic

        last_referenced_at: None | str | Unset
        if isinstance(self.last_referenced_at, Unset):
            last_referenced_at = UNSET
        elif isinstance(self.last_referenced_at, datetime.datetime):
            last_referenced_at = self.last_referenced_at.isoformat()
        else:
            last_referenced_at = self.last_referenced_at

        archived_at: None | str | Unset
        if isinstance(self.archived_at, Unset):
            archived_at = UNSET
        elif isinstance(self.archived_at, datetime.datetime):
            archived_at = self.archived_at.isoformat()
        else:
            archived_at = self.archived_at

        archived_reason: None | str | Unset
        if isinstance(self.archived_reason, Unset):
            archived_reason = UNSET
        elif isinstance(self.archived_reason, str):
            archived_reason = self.archived_reason
        else:
            archived_reason = self.archived_reason

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "fact": fact,
                "source": source,
                "confidence": confidence,
                "created_at": created_at,
                "updated_at": updated_at,
            }
        )
        if topic is not UNSET:
            field_dict["topic"] = topic
        if last_referenced_at is not UNSET:
            field_dict["last_referenced_at"] = last_referenced_at
        if archived_at is not UNSET:
            field_dict["archived_at"] = archived_at
        if archived_reason is not UNSET:
            field_dict["archived_reason"] = archived_reason

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        id = UUID(d.pop("id"))

        fact = d.pop("fact")

        source = check_fact_output_source_enum(d.pop("source"))

        confidence = check_confidence_enum(d.pop("confidence"))

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        updated_at = datetime.datetime.fromisoformat(d.pop("updated_at"))

        def _parse_topic(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        topic = _parse_topic(d.pop("topic", UNSET))

        def _parse_last_referenced_at(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                last_referenced_at_type_0 = datetime.datetime.fromisoformat(data)

                return last_referenced_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        last_referenced_at = _parse_last_referenced_at(d.pop("last_referenced_at", UNSET))

        def _parse_archived_at(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                archived_at_type_0 = datetime.datetime.fromisoformat(data)

                return archived_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        archived_at = _parse_archived_at(d.pop("archived_at", UNSET))

        def _parse_archived_reason(data: object) -> ArchivedReasonEnum | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                archived_reason_type_0 = check_archived_reason_enum(data)

                return archived_reason_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(ArchivedReasonEnum | None | Unset, data)

        archived_reason = _parse_archived_reason(d.pop("archived_reason", UNSET))

        fact_output = cls(
            id=id,
            fact=fact,
            source=source,
            confidence=confidence,
            created_at=created_at,
            updated_at=updated_at,
            topic=topic,
            last_referenced_at=last_referenced_at,
            archived_at=archived_at,
            archived_reason=archived_reason,
        )

        fact_output.additional_properties = d
        return fact_output

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
