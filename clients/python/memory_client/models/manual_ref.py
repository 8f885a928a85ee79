from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="ManualRef")


@_attrs_define
class ManualRef:
    """
    Attributes:
        id (int): The manual's document id.
        path (str): Its path.
        deployment_id (int | None): null: the manual of all your deployments
    """

    id: int
    path: str
    deployment_id: int | None
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        id = self.id

        path = self.path

        deployment_id: int | None
        deployment_id = self.deployment_id

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "path": path,
                "deployment_id": deployment_id,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        id = d.pop("id")

        path = d.pop("path")

        def _parse_deployment_id(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        deployment_id = _parse_deployment_id(d.pop("deployment_id"))

        manual_ref = cls(
            id=id,
            path=path,
            deployment_id=deployment_id,
        )

        manual_ref.additional_properties = d
        return manual_ref

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
