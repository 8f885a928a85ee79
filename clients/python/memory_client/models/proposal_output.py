from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, TypeVar, cast
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.proposal_output_status_enum import ProposalOutputStatusEnum, check_proposal_output_status_enum
from ..types import UNSET, Unset

T = TypeVar("T", bound="ProposalOutput")


@_attrs_define
class ProposalOutput:
    """
    Attributes:
        id (int): The proposal's id.
        document_id (int): The document it would change.
        path (str): That document's path.
        base_hash (str): The document's content hash when proposed: approval applies only on that.
        proposed_content (str): The whole new text.
        reason (str): Why, as the agent put it.
        run_id (str): The runner's id for the run that proposed it.
        snapshot_id (None | UUID): The tick that prompted it; null: none.
        created_at (datetime.datetime): When it was proposed (UTC).
        status (ProposalOutputStatusEnum | Unset): * `pending` - pending
            * `approved` - approved
            * `rejected` - rejected
        decided_at (datetime.datetime | None | Unset): When the trader decided (UTC); null while pending.
    """

    id: int
    document_id: int
    path: str
    base_hash: str
    proposed_content: str
    reason: str
    run_id: str
    snapshot_id: None | UUID
    created_at: datetime.datetime
    status: ProposalOutputStatusEnum | Unset = UNSET
    decided_at: datetime.datetime | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        id = self.id

        document_id = self.document_id

        path = self.path

        base_hash = self.base_hash

        proposed_content = self.proposed_content

        reason = self.reason

        run_id = self.run_id

        snapshot_id: None | str
        if isinstance(self.snapshot_id, UUID):
            snapshot_id = str(self.snapshot_id)
        else:
            snapshot_id = self.snapshot_id

        created_at = self.created_at.isoformat()

        status: str | Unset = UNSET
        if not isinstance(self.status, Unset):
            status = self.status

        decided_at: None | str | Unset
        if isinstance(self.decided_at, Unset):
            decided_at = UNSET
        elif isinstance(self.decided_at, datetime.datetime):
            decided_at = self.decided_at.isoformat()
        else:
            decided_at = self.decided_at

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "document_id": document_id,
                "path": path,
                "base_hash": base_hash,
                "proposed_content": proposed_content,
                "reason": reason,
                "run_id": run_id,
                "snapshot_id": snapshot_id,
                "created_at": created_at,
            }
        )
        if status is not UNSET:
            field_dict["status"] = status
        if decided_at is not UNSET:
            field_dict["decided_at"] = decided_at

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        id = d.pop("id")

        document_id = d.pop("document_id")

        path = d.pop("path")

        base_hash = d.pop("base_hash")

        proposed_content = d.pop("proposed_content")

        reason = d.pop("reason")

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

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        _status = d.pop("status", UNSET)
        status: ProposalOutputStatusEnum | Unset
        if isinstance(_status, Unset):
            status = UNSET
        else:
            status = check_proposal_output_status_enum(_status)

        def _parse_decided_at(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                decided_at_type_0 = datetime.datetime.fromisoformat(data)

                return decided_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        decided_at = _parse_decided_at(d.pop("decided_at", UNSET))

        proposal_output = cls(
            id=id,
            document_id=document_id,
            path=path,
            base_hash=base_hash,
            proposed_content=proposed_content,
            reason=reason,
            run_id=run_id,
            snapshot_id=snapshot_id,
            created_at=created_at,
            status=status,
            decided_at=decided_at,
        )

        proposal_output.additional_properties = d
        return proposal_output

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
