from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define

from ..models.chat_mode_enum import ChatModeEnum, check_chat_mode_enum
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.chat_focus_request import ChatFocusRequest
    from ..models.chat_message_request import ChatMessageRequest


T = TypeVar("T", bound="ChatInputRequest")


@_attrs_define
class ChatInputRequest:
    """
    Attributes:
        messages (list[ChatMessageRequest]): The conversation so far, oldest first (1-100 messages); the last one is the
            trader's.
        mode (ChatModeEnum | Unset): * `authoring` - authoring
            * `coach` - coach
            * `ops` - ops Default: 'coach'.
        focus (ChatFocusRequest | Unset):
    """

    messages: list[ChatMessageRequest]
    mode: ChatModeEnum | Unset = "coach"
    focus: ChatFocusRequest | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        messages = []
        for messages_item_data in self.messages:
            messages_item = messages_item_data.to_dict()
            messages.append(messages_item)

        mode: str | Unset = UNSET
        if not isinstance(self.mode, Unset):
            mode = self.mode

        focus: dict[str, Any] | Unset = UNSET
        if not isinstance(self.focus, Unset):
            focus = self.focus.to_dict()

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "messages": messages,
            }
        )
        if mode is not UNSET:
            field_dict["mode"] = mode
        if focus is not UNSET:
            field_dict["focus"] = focus

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.chat_focus_request import ChatFocusRequest  # noqa: PLC0415
        from ..models.chat_message_request import ChatMessageRequest  # noqa: PLC0415

        d = dict(src_dict)
        messages = []
        _messages = d.pop("messages")
        for messages_item_data in _messages:
            messages_item = ChatMessageRequest.from_dict(messages_item_data)

            messages.append(messages_item)

        _mode = d.pop("mode", UNSET)
        mode: ChatModeEnum | Unset
        if isinstance(_mode, Unset):
            mode = UNSET
        else:
            mode = check_chat_mode_enum(_mode)

        _focus = d.pop("focus", UNSET)
        focus: ChatFocusRequest | Unset
        if isinstance(_focus, Unset):
            focus = UNSET
        else:
            focus = ChatFocusRequest.from_dict(_focus)

        chat_input_request = cls(
            messages=messages,
            mode=mode,
            focus=focus,
        )

        return chat_input_request
