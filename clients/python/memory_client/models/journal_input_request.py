from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast
from uuid import UUID

from attrs import define as _attrs_define

from ..models.journal_kind_enum import JournalKindEnum, check_journal_kind_enum
from ..types import UNSET, Unset

T = TypeVar("T", bound="JournalInputRequest")


@_attrs_define
class JournalInputRequest:
    """
    Attributes:
        deployment_id (int): The deployment whose agent writes.
        content (str): The entry (markdown; at most 20,000 characters).
        run_id (str): Your runner's id for this run (at most 100 characters).
        kind (JournalKindEnum | Unset): * `journal` - journal entry
            * `learning` - learning
            * `note` - note Default: 'journal'.
        snapshot_id (None | Unset | UUID): The tick it is about (`snapshot_id` from `post_tick`), if any.
    """

    deployment_id: int
    content: str
    run_id: str
    kind: JournalKindEnum | Unset = "journal"
    snapshot_id: None | Unset | UUID = UNSET

    def to_dict(self) -> dict[str, Any]:
        deployment_id = self.deployment_id

        content = self.content

        run_id = self.run_id

        kind: str | Unset = UNSET
        if not isinstance(self.kind, Unset):
            kind = self.kind

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
                "deployment_id": deployment_id,
                "content": content,
                "run_id": run_id,
            }
        )
        if kind is not UNSET:
            field_dict["kind"] = kind
        if snapshot_id is not UNSET:
            field_dict["snapshot_id"] = snapshot_id

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        deployment_id = d.pop("deployment_id")

        content = d.pop("content")

        run_id = d.pop("run_id")

        _kind = d.pop("kind", UNSET)
        kind: JournalKindEnum | Unset
        if isinstance(_kind, Unset):
            kind = UNSET
        else:
            kind = check_journal_kind_enum(_kind)

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

        journal_input_request = cls(
            deployment_id=deployment_id,
            content=content,
            run_id=run_id,
            kind=kind,
            snapshot_id=snapshot_id,
        )

        return journal_input_request
