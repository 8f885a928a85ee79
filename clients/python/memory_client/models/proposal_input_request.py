from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast
from uuid import UUID

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="ProposalInputRequest")


@_attrs_define
class ProposalInputRequest:
    """
    Attributes:
        document_id (int): The document to change (one of yours).
        proposed_content (str): The whole new text, as it should read.
        reason (str): Why, for the trader deciding (at most 2,000 characters).
        run_id (str): Your runner's id for this run (at most 100 characters).
        snapshot_id (None | Unset | UUID): The tick that prompted it (`snapshot_id` from `post_tick`), if any.
    """

    document_id: int
    proposed_content: str
    reason: str
    run_id: str
    snapshot_id: None | Unset | UUID = UNSET

    def to_dict(self) -> dict[str, Any]:
        document_id = self.document_id

        proposed_content = self.proposed_content

        reason = self.reason

        run_id = self.run_id

        snapshot_id: None | str | Unset
        if isinstance(self.snapshot_id, Unset):
            snapshot_id = UNSET
        elif isinstance(self.snapshot_id, UUID):
            snapshot_id = str(self.snapshot_id)
        else:
            snapshot_id = self.snapshot_id

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "document_id": document_id,
                "proposed_content": proposed_content,
                "reason": reason,
                "run_id": run_id,
            }
        )
        if snapshot_id is not UNSET:
            field_dict["snapshot_id"] = snapshot_id

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        document_id = d.pop("document_id")

        proposed_content = d.pop("proposed_content")

        reason = d.pop("reason")

        run_id = d.pop("run_id")

        def _parse_snapshot_id(data: object) -> None | Unset | UUID:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                snapshot_id_type_0 = UUID(data)

                return snapshot_id_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | Unset | UUID, data)

        snapshot_id = _parse_snapshot_id(d.pop("snapshot_id", UNSET))

        proposal_input_request = cls(
            document_id=document_id,
            proposed_content=proposed_content,
            reason=reason,
            run_id=run_id,
            snapshot_id=snapshot_id,
        )

        return proposal_input_request
