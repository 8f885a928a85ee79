from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define

from ..models.deployment_mode_enum import DeploymentModeEnum, check_deployment_mode_enum
from ..types import UNSET, Unset

T = TypeVar("T", bound="DeploymentCreateInputRequest")


@_attrs_define
class DeploymentCreateInputRequest:
    """
    Attributes:
        skill_id (int): One of your skills (`id` from `create_skill` or `list_skills`).
        mode (DeploymentModeEnum): * `sim` - sim
            * `paper` - paper
            * `live` - live
        version (int | None | Unset): The skill version to run; omitted or null: the latest.
    """

    skill_id: int
    mode: DeploymentModeEnum
    version: int | None | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        skill_id = self.skill_id

        mode: str = self.mode

        version: int | None | Unset
        if isinstance(self.version, Unset):
            version = UNSET
        else:
            version = self.version

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "skill_id": skill_id,
                "mode": mode,
            }
        )
        if version is not UNSET:
            field_dict["version"] = version

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        skill_id = d.pop("skill_id")

        mode = check_deployment_mode_enum(d.pop("mode"))

        def _parse_version(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        version = _parse_version(d.pop("version", UNSET))

        deployment_create_input_request = cls(
            skill_id=skill_id,
            mode=mode,
            version=version,
        )

        return deployment_create_input_request
