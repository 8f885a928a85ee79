from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="DocumentWritten")


@_attrs_define
class DocumentWritten:
    """
    Attributes:
        id (int): The document's id.
        path (str): Its path, normalised.
        version (int): Its version: 1 at first, + 1 at each change of content.
        changed (bool): False when the content was already indexed as sent.
        chunk_count (int): Chunks the document has now.
        chunks_added (int): New or changed chunks: these wait for their embedding.
        chunks_kept (int): Unchanged chunks: kept with their embedding.
        chunks_removed (int): Chunks of the previous version that are gone.
    """

    id: int
    path: str
    version: int
    changed: bool
    chunk_count: int
    chunks_added: int
    chunks_kept: int
    chunks_removed: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        id = self.id

        path = self.path

        version = self.version

        changed = self.changed

        chunk_count = self.chunk_count

        chunks_added = self.chunks_added

        chunks_kept = self.chunks_kept

        chunks_removed = self.chunks_removed

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "path": path,
                "version": version,
                "changed": changed,
                "chunk_count": chunk_count,
                "chunks_added": chunks_added,
                "chunks_kept": chunks_kept,
                "chunks_removed": chunks_removed,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        id = d.pop("id")

        path = d.pop("path")

        version = d.pop("version")

        changed = d.pop("changed")

        chunk_count = d.pop("chunk_count")

        chunks_added = d.pop("chunks_added")

        chunks_kept = d.pop("chunks_kept")

        chunks_removed = d.pop("chunks_removed")

        document_written = cls(
            id=id,
            path=path,
            version=version,
            changed=changed,
            chunk_count=chunk_count,
            chunks_added=chunks_added,
            chunks_kept=chunks_kept,
            chunks_removed=chunks_removed,
        )

        document_written.additional_properties = d
        return document_written

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
