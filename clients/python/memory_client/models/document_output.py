from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.recall_document_source_enum import RecallDocumentSourceEnum, check_recall_document_source_enum
from ..types import UNSET, Unset

T = TypeVar("T", bound="DocumentOutput")


@_attrs_define
class DocumentOutput:
    """
    Attributes:
        id (int): The document's id.
        path (str): Its path, e.g. `TRADING_MANUAL.md` or `journal/2026-06-04.md`.
        source (RecallDocumentSourceEnum): * `workspace` - agent workspace file
            * `transcript` - run transcript / decision trace
            * `backtest` - backtest report
            * `journal` - agent journal
            * `playbook` - playbook
            * `runbook` - incident runbook
        deployment_id (int | None): The deployment it is scoped to; null: all your deployments (or global).
        scope (str): owner, deployment or global
        content_hash (str): sha256 of the content (hex): what an edit proposal is made against.
        updated_at (datetime.datetime): When it last changed (UTC).
        version (int | Unset): 1 at first, + 1 at each change of content.
        chunk_count (int | Unset): How many chunks it was split into.
        indexed_at (datetime.datetime | None | Unset): When it was last indexed (UTC); null: not yet.
        index_error (str | Unset): Why the last indexing failed; empty or null when it did not.
        metadata (Any | Unset): The JSON sent with it.
    """

    id: int
    path: str
    source: RecallDocumentSourceEnum
    deployment_id: int | None
    scope: str
    content_hash: str
    updated_at: datetime.datetime
    version: int | Unset = UNSET
    chunk_count: int | Unset = UNSET
    indexed_at: datetime.datetime | None | Unset = UNSET
    index_error: str | Unset = UNSET
    metadata: Any | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        id = self.id

        path = self.path

        source: str = self.source

        deployment_id: int | None
        deployment_id = self.deployment_id

        scope = self.scope

        content_hash = self.content_hash

        updated_at = self.updated_at.isoformat()

        version = self.version

        chunk_count = self.chunk_count

        indexed_at: None | str | Unset
        if isinstance(self.indexed_at, Unset):
            indexed_at = UNSET
        elif isinstance(self.indexed_at, datetime.datetime):
            indexed_at = self.indexed_at.isoformat()
        else:
            indexed_at = self.indexed_at

        index_error = self.index_error

        metadata = self.metadata

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "path": path,
                "source": source,
                "deployment_id": deployment_id,
                "scope": scope,
                "content_hash": content_hash,
                "updated_at": updated_at,
            }
        )
        if version is not UNSET:
            field_dict["version"] = version
        if chunk_count is not UNSET:
            field_dict["chunk_count"] = chunk_count
        if indexed_at is not UNSET:
            field_dict["indexed_at"] = indexed_at
        if index_error is not UNSET:
            field_dict["index_error"] = index_error
        if metadata is not UNSET:
            field_dict["metadata"] = metadata

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        id = d.pop("id")

        path = d.pop("path")

        source = check_recall_document_source_enum(d.pop("source"))

        def _parse_deployment_id(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        deployment_id = _parse_deployment_id(d.pop("deployment_id"))

        scope = d.pop("scope")

        content_hash = d.pop("content_hash")

        updated_at = datetime.datetime.fromisoformat(d.pop("updated_at"))

        version = d.pop("version", UNSET)

        chunk_count = d.pop("chunk_count", UNSET)

        def _parse_indexed_at(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                indexed_at_type_0 = datetime.datetime.fromisoformat(data)

                return indexed_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        indexed_at = _parse_indexed_at(d.pop("indexed_at", UNSET))

        index_error = d.pop("index_error", UNSET)

        metadata = d.pop("metadata", UNSET)

        document_output = cls(
            id=id,
            path=path,
            source=source,
            deployment_id=deployment_id,
            scope=scope,
            content_hash=content_hash,
            updated_at=updated_at,
            version=version,
            chunk_count=chunk_count,
            indexed_at=indexed_at,
            index_error=index_error,
            metadata=metadata,
        )

        document_output.additional_properties = d
        return document_output

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
