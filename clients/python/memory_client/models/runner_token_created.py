from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="RunnerTokenCreated")


@_attrs_define
class RunnerTokenCreated:
    """
    Attributes:
        id (int): The token's id (to revoke it).
        name (str): What the token is for, as named at its creation.
        key_prefix (str): The key's first characters, to tell tokens apart (the key itself is never shown again).
        created_at (datetime.datetime): When the token was created (UTC, ISO 8601).
        key (str): The whole key, shown this once: only its hash is stored.
    """

    id: int
    name: str
    key_prefix: str
    created_at: datetime.datetime
    key: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        id = self.id

        name = self.name

        key_prefix = self.key_prefix

        created_at = self.created_at.isoformat()

        key = self.key

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "name": name,
                "key_prefix": key_prefix,
                "created_at": created_at,
                "key": key,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        id = d.pop("id")

        name = d.pop("name")

        key_prefix = d.pop("key_prefix")

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        key = d.pop("key")

        runner_token_created = cls(
            id=id,
            name=name,
            key_prefix=key_prefix,
            created_at=created_at,
            key=key,
        )

        runner_token_created.additional_properties = d
        return runner_token_created

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
