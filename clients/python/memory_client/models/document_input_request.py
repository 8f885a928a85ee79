from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define

from ..models.recall_document_source_enum import RecallDocumentSourceEnum, check_recall_document_source_enum
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.document_input_request_metadata import DocumentInputRequestMetadata


T = TypeVar("T", bound="DocumentInputRequest")


@_attrs_define
class DocumentInputRequest:
    """
    Attributes:
        path (str): The document's path in your workspace, e.g. `TRADING_MANUAL.md` or `notes/btc.md` (relative, at most
            500 characters): the same path again is a new version of the same document.
        content (str): The whole text (markdown; at most 500,000 characters): it replaces the previous version.
        source (RecallDocumentSourceEnum | Unset): * `workspace` - agent workspace file
            * `transcript` - run transcript / decision trace
            * `backtest` - backtest report
            * `journal` - agent journal
            * `playbook` - playbook
            * `runbook` - incident runbook Default: 'workspace'.
        deployment_id (int | None | Unset): Scope the document to one of your deployments (its searches and context);
            null: all of them.
        metadata (DocumentInputRequestMetadata | Unset): Free-form JSON (at most 50 keys), returned as sent;
            `"evergreen": true` spares it from recency decay in searches.
    """

    path: str
    content: str
    source: RecallDocumentSourceEnum | Unset = "workspace"
    deployment_id: int | None | Unset = UNSET
    metadata: DocumentInputRequestMetadata | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        path = self.path

        content = self.content

        source: str | Unset = UNSET
        if not isinstance(self.source, Unset):
            source = self.source

        deployment_id: int | None | Unset
        if isinstance(self.deployment_id, Unset):
            deployment_id = UNSET
        else:
            deployment_id = self.deployment_id

        metadata: dict[str, Any] | Unset = UNSET
        if not isinstance(self.metadata, Unset):
            metadata = self.metadata.to_dict()

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "path": path,
                "content": content,
            }
        )
        if source is not UNSET:
            field_dict["source"] = source
        if deployment_id is not UNSET:
            field_dict["deployment_id"] = deployment_id
        if metadata is not UNSET:
            field_dict["metadata"] = metadata

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.document_input_request_metadata import DocumentInputRequestMetadata  # noqa: PLC0415

        d = dict(src_dict)
        path = d.pop("path")

        content = d.pop("content")

        _source = d.pop("source", UNSET)
        source: RecallDocumentSourceEnum | Unset
        if isinstance(_source, Unset):
            source = UNSET
        else:
            source = check_recall_document_source_enum(_source)

        def _parse_deployment_id(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        deployment_id = _parse_deployment_id(d.pop("deployment_id", UNSET))

        _metadata = d.pop("metadata", UNSET)
        metadata: DocumentInputRequestMetadata | Unset
        if isinstance(_metadata, Unset):
            metadata = UNSET
        else:
            metadata = DocumentInputRequestMetadata.from_dict(_metadata)

        document_input_request = cls(
            path=path,
            content=content,
            source=source,
            deployment_id=deployment_id,
            metadata=metadata,
        )

        return document_input_request
