from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define

from ..models.role_enum import RoleEnum, check_role_enum

T = TypeVar("T", bound="ChatMessageRequest")


@_attrs_define
class ChatMessageRequest:
    """
    Attributes:
        role (RoleEnum): * `user` - user
            * `assistant` - assistant
        content (str): The message's text (at most 20,000 characters).
    """

    role: RoleEnum
    content: str

    def to_dict(self) -> dict[str, Any]:
        role: str = self.role

        content = self.content

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "role": role,
                "content": content,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        role = check_role_enum(d.pop("role"))

        content = d.pop("content")

        chat_message_request = cls(
            role=role,
            content=content,
        )

        return chat_message_request
