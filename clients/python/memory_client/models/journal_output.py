from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, TypeVar, cast
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.journal_kind_enum import JournalKindEnum, check_journal_kind_enum

T = TypeVar("T", bound="JournalOutput")


@_attrs_define
class JournalOutput:
    """
    Attributes:
        id (int): The entry's id.
        deployment_id (int): The deployment whose agent wrote it.
        kind (JournalKindEnum): * `journal` - journal entry
            * `learning` - learning
            * `note` - note
        content (str): The entry as written.
        run_id (str): The runner's id for the run that wrote it.
        snapshot_id (None | UUID): The tick it is about; null: none.
        path (None | str): The journal document holding it (searchable).
        created_at (datetime.datetime): When it was written (UTC).
    """

    id: int
    deployment_id: int
    kind: JournalKindEnum
    content: str
    run_id: str
    snapshot_id: None | UUID
    path: None | str
    created_at: datetime.datetime
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        id = self.id

        deployment_id = self.deployment_id

        kind: str = self.kind

        content = self.content

        run_id = self.run_id

        snapshot_id: None | str
        if isinstance(self.snapshot_id, UUID):
            snapshot_id = str(self.snapshot_id)
        else:
            snapshot_id = self.snapshot_id

        path: None | str
        path = self.path

        created_at = self.created_at.isoformat()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "deployment_id": deployment_id,
                "kind": kind,
                "content": content,
                "run_id": run_id,
                "snapshot_id": snapshot_id,
                "path": path,
                "created_at": created_at,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        id = d.pop("id")

        deployment_id = d.pop("deployment_id")

        kind = check_journal_kind_enum(d.pop("kind"))

        content = d.pop("content")

        run_id = d.pop("run_id")

        def _parse_snapshot_id(data: object) -> None | UUID:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                snapshot_id_type_0 = UUID(data)

                return snapshot_id_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | UUID, data)

        snapshot_id = _parse_snapshot_id(d.pop("snapshot_id"))

        def _parse_path(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        path = _parse_path(d.pop("path"))

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        journal_output = cls(
            id=id,
            deployment_id=deployment_id,
            kind=kind,
            content=content,
            run_id=run_id,
            snapshot_id=snapshot_id,
            path=path,
            created_at=created_at,
        )

        journal_output.additional_properties = d
        return journal_output

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
