from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="ChatFocusRequest")


@_attrs_define
class ChatFocusRequest:
    """
    Attributes:
        deployment_id (int | Unset): The deployment the trader has open, if any.
        skill_id (int | Unset): The skill the trader has open, if any.
    """

    deployment_id: int | Unset = UNSET
    skill_id: int | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        deployment_id = self.deployment_id

        skill_id = self.skill_id

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if deployment_id is not UNSET:
            field_dict["deployment_id"] = deployment_id
        if skill_id is not UNSET:
            field_dict["skill_id"] = skill_id

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        deployment_id = d.pop("deployment_id", UNSET)

        skill_id = d.pop("skill_id", UNSET)

        chat_focus_request = cls(
            deployment_id=deployment_id,
            skill_id=skill_id,
        )

        return chat_focus_request
