from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.deployment_mode_enum import DeploymentModeEnum, check_deployment_mode_enum
from ..models.deployment_output_status_enum import DeploymentOutputStatusEnum, check_deployment_output_status_enum
from ..types import UNSET, Unset

T = TypeVar("T", bound="DeploymentOutput")


@_attrs_define
class DeploymentOutput:
    """
    Attributes:
        id (int): The deployment's id: the `deployment_id` of every runner call.
        skill_id (int): The skill the deployment runs.
        skill_name (str): That skill's name.
        version (int): The skill version the deployment runs.
        mode (DeploymentModeEnum): * `sim` - sim
            * `paper` - paper
            * `live` - live
        created_at (datetime.datetime): When the deployment was created (UTC, ISO 8601).
        status (DeploymentOutputStatusEnum | Unset): * `running` - running
            * `stopped` - stopped
        day_start_equity_usd (None | str | Unset): Equity in USD (a decimal string) at the first tick after the latest
            UTC midnight; null before the first tick.
    """

    id: int
    skill_id: int
    skill_name: str
    version: int
    mode: DeploymentModeEnum
    created_at: datetime.datetime
    status: DeploymentOutputStatusEnum | Unset = UNSET
    day_start_equity_usd: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        id = self.id

        skill_id = self.skill_id

        skill_name = self.skill_name

        version = self.version

        mode: str = self.mode

        created_at = self.created_at.isoformat()

        status: str | Unset = UNSET
        if not isinstance(self.status, Unset):
            status = self.status

        day_start_equity_usd: None | str | Unset
        if isinstance(self.day_start_equity_usd, Unset):
            day_start_equity_usd = UNSET
        else:
            day_start_equity_usd = self.day_start_equity_usd

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "skill_id": skill_id,
                "skill_name": skill_name,
                "version": version,
                "mode": mode,
                "created_at": created_at,
            }
        )
        if status is not UNSET:
            field_dict["status"] = status
        if day_start_equity_usd is not UNSET:
            field_dict["day_start_equity_usd"] = day_start_equity_usd

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        id = d.pop("id")

        skill_id = d.pop("skill_id")

        skill_name = d.pop("skill_name")

        version = d.pop("version")

        mode = check_deployment_mode_enum(d.pop("mode"))

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        _status = d.pop("status", UNSET)
        status: DeploymentOutputStatusEnum | Unset
        if isinstance(_status, Unset):
            status = UNSET
        else:
            status = check_deployment_output_status_enum(_status)

        def _parse_day_start_equity_usd(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        day_start_equity_usd = _parse_day_start_equity_usd(d.pop("day_start_equity_usd", UNSET))

        deployment_output = cls(
            id=id,
            skill_id=skill_id,
            skill_name=skill_name,
            version=version,
            mode=mode,
            created_at=created_at,
            status=status,
            day_start_equity_usd=day_start_equity_usd,
        )

        deployment_output.additional_properties = d
        return deployment_output

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
