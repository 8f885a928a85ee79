from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, TypeVar, cast
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.reflection_note_output_source_enum import (
    ReflectionNoteOutputSourceEnum,
    check_reflection_note_output_source_enum,
)
from ..models.reflection_note_output_status_enum import (
    ReflectionNoteOutputStatusEnum,
    check_reflection_note_output_status_enum,
)
from ..types import UNSET, Unset

T = TypeVar("T", bound="ReflectionNoteOutput")


@_attrs_define
class ReflectionNoteOutput:
    """
    Attributes:
        id (UUID): The note's id (a UUID).
        skill_id (int): The skill whose trades the note is about.
        skill_version (int): The skill version whose trades were considered.
        deployment_id (int | None): Null for a skill-scoped note.
        generated_at (datetime.datetime): When the note was written (UTC).
        window_start (datetime.datetime): The earliest entry among the trades considered (UTC).
        window_end (datetime.datetime): The latest exit among them (UTC): the next reflection starts after it.
        trades_considered (int): How many closed trades reflection read.
        lessons_text (str): The lessons, as the agent's system prompt shows them (markdown).
        model_used (str): The model that wrote them (or the staff edit's marker).
        content_hash (str): The lessons text's hash: trades opened under it carry it as `entry_lessons_hash`.
        revises_id (None | UUID): The note this revision replaced, if any.
        author (None | str): The staff member who wrote it, or the trader whose verdict made it; null: none.
        status (ReflectionNoteOutputStatusEnum | Unset): * `active` - active
            * `superseded` - superseded
            * `retired` - retired
        input_tokens (int | None | Unset): Input tokens not read from or written to the prompt cache; null: no model.
        output_tokens (int | None | Unset): Tokens the model wrote; null: no model call.
        cache_read_input_tokens (int | None | Unset): Input tokens read from the prompt cache; null: no model call.
        cache_creation_input_tokens (int | None | Unset): Input tokens written to the prompt cache; null: no model call.
        cost_usd (None | str | Unset): What the model call cost, USD (decimal string); null: unknown or none.
        source (ReflectionNoteOutputSourceEnum | Unset): * `reflection` - reflection run
            * `staff_edit` - staff edit
            * `promotion` - promoted to skill scope
            * `trader` - trader's verdict
    """

    id: UUID
    skill_id: int
    skill_version: int
    deployment_id: int | None
    generated_at: datetime.datetime
    window_start: datetime.datetime
    window_end: datetime.datetime
    trades_considered: int
    lessons_text: str
    model_used: str
    content_hash: str
    revises_id: None | UUID
    author: None | str
    status: ReflectionNoteOutputStatusEnum | Unset = UNSET
    input_tokens: int | None | Unset = UNSET
    output_tokens: int | None | Unset = UNSET
    cache_read_input_tokens: int | None | Unset = UNSET
    cache_creation_input_tokens: int | None | Unset = UNSET
    cost_usd: None | str | Unset = UNSET
    source: ReflectionNoteOutputSourceEnum | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        id = str(self.id)

        skill_id = self.skill_id

        skill_version = self.skill_version

        deployment_id: int | None
        deployment_id = self.deployment_id

        generated_at = self.generated_at.isoformat()

        window_start = self.window_start.isoformat()

        window_end = self.window_end.isoformat()

        trades_considered = self.trades_considered

        lessons_text = self.lessons_text

        model_used = self.model_used

        content_hash = self.content_hash

        revises_id: None | str
        if isinstance(self.revises_id, UUID):
            revises_id = str(self.revises_id)
        else:
            revises_id = self.revises_id

        author: None | str
        author = self.author

        status: str | Unset = UNSET
        if not isinstance(self.status, Unset):
            status = self.status

        input_tokens: int | None | Unset
        if isinstance(self.input_tokens, Unset):
            input_tokens = UNSET
        else:
            input_tokens = self.input_tokens

        output_tokens: int | None | Unset
        if isinstance(self.output_tokens, Unset):
            output_tokens = UNSET
        else:
            output_tokens = self.output_tokens

        cache_read_input_tokens: int | None | Unset
        if isinstance(self.cache_read_input_tokens, Unset):
            cache_read_input_tokens = UNSET
        else:
            cache_read_input_tokens = self.cache_read_input_tokens

        cache_creation_input_tokens: int | None | Unset
        if isinstance(self.cache_creation_input_tokens, Unset):
            cache_creation_input_tokens = UNSET
        else:
            cache_creation_input_tokens = self.cache_creation_input_tokens

        cost_usd: None | str | Unset
        if isinstance(self.cost_usd, Unset):
            cost_usd = UNSET
        else:
            cost_usd = self.cost_usd

        source: str | Unset = UNSET
        if not isinstance(self.source, Unset):
            source = self.source

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "skill_id": skill_id,
                "skill_version": skill_version,
                "deployment_id": deployment_id,
                "generated_at": generated_at,
                "window_start": window_start,
                "window_end": window_end,
                "trades_considered": trades_considered,
                "lessons_text": lessons_text,
                "model_used": model_used,
                "content_hash": content_hash,
                "revises_id": revises_id,
                "author": author,
            }
        )
        if status is not UNSET:
            field_dict["status"] = status
        if input_tokens is not UNSET:
            field_dict["input_tokens"] = input_tokens
        if output_tokens is not UNSET:
            field_dict["output_tokens"] = output_tokens
        if cache_read_input_tokens is not UNSET:
            field_dict["cache_read_input_tokens"] = cache_read_input_tokens
        if cache_creation_input_tokens is not UNSET:
            field_dict["cache_creation_input_tokens"] = cache_creation_input_tokens
        if cost_usd is not UNSET:
            field_dict["cost_usd"] = cost_usd
        if source is not UNSET:
            field_dict["source"] = source

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        id = UUID(d.pop("id"))

        skill_id = d.pop("skill_id")

        skill_version = d.pop("skill_version")

        def _parse_deployment_id(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        deployment_id = _parse_deployment_id(d.pop("deployment_id"))

        generated_at = datetime.datetime.fromisoformat(d.pop("generated_at"))

        window_start = datetime.datetime.fromisoformat(d.pop("window_start"))

        window_end = datetime.datetime.fromisoformat(d.pop("window_end"))

        trades_considered = d.pop("trades_considered")

        lessons_text = d.pop("lessons_text")

        model_used = d.pop("model_used")

        content_hash = d.pop("content_hash")

        def _parse_revises_id(data: object) -> None | UUID:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                revises_id_type_0 = UUID(data)

                return revises_id_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | UUID, data)

        revises_id = _parse_revises_id(d.pop("revises_id"))

        def _parse_author(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        author = _parse_author(d.pop("author"))

        _status = d.pop("status", UNSET)
        status: ReflectionNoteOutputStatusEnum | Unset
        if isinstance(_status, Unset):
            status = UNSET
        else:
            status = check_reflection_note_output_status_enum(_status)

        def _parse_input_tokens(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        input_tokens = _parse_input_tokens(d.pop("input_tokens", UNSET))

        def _parse_output_tokens(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        output_tokens = _parse_output_tokens(d.pop("output_tokens", UNSET))

        def _parse_cache_read_input_tokens(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        cache_read_input_tokens = _parse_cache_read_input_tokens(d.pop("cache_read_input_tokens", UNSET))

        def _parse_cache_creation_input_tokens(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        cache_creation_input_tokens = _parse_cache_creation_input_tokens(d.pop("cache_creation_input_tokens", UNSET))

        def _parse_cost_usd(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        cost_usd = _parse_cost_usd(d.pop("cost_usd", UNSET))

        _source = d.pop("source", UNSET)
        source: ReflectionNoteOutputSourceEnum | Unset
        if isinstance(_source, Unset):
            source = UNSET
        else:
            source = check_reflection_note_output_source_enum(_source)

        reflection_note_output = cls(
            id=id,
            skill_id=skill_id,
            skill_version=skill_version,
            deployment_id=deployment_id,
            generated_at=generated_at,
            window_start=window_start,
            window_end=window_end,
            trades_considered=trades_considered,
            lessons_text=lessons_text,
            model_used=model_used,
            content_hash=content_hash,
            revises_id=revises_id,
            author=author,
            status=status,
            input_tokens=input_tokens,
            output_tokens=output_tokens,
            cache_read_input_tokens=cache_read_input_tokens,
            cache_creation_input_tokens=cache_creation_input_tokens,
            cost_usd=cost_usd,
            source=source,
        )

        reflection_note_output.additional_properties = d
        return reflection_note_output

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
