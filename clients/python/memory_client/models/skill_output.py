from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.skill_version_output import SkillVersionOutput


T = TypeVar("T", bound="SkillOutput")


@_attrs_define
class SkillOutput:
    """
    Attributes:
        id (int): The skill's id (`skill_id` elsewhere).
        name (str): The skill's name, unique among your skills.
        created_at (datetime.datetime): When the skill was created (UTC, ISO 8601).
        latest_version (SkillVersionOutput):
        versions (list[int]): Every version number of the skill, oldest first.
    """

    id: int
    name: str
    created_at: datetime.datetime
    latest_version: SkillVersionOutput
    versions: list[int]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        id = self.id

        name = self.name

        created_at = self.created_at.isoformat()

        latest_version = self.latest_version.to_dict()

        versions = self.versions

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "name": name,
                "created_at": created_at,
                "latest_version": latest_version,
                "versions": versions,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.skill_version_output import SkillVersionOutput  # noqa: PLC0415

        d = dict(src_dict)
        id = d.pop("id")

        name = d.pop("name")

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        latest_version = SkillVersionOutput.from_dict(d.pop("latest_version"))

        versions = cast(list[int], d.pop("versions"))

        skill_output = cls(
            id=id,
            name=name,
            created_at=created_at,
            latest_version=latest_version,
            versions=versions,
        )

        skill_output.additional_properties = d
        return skill_output

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
