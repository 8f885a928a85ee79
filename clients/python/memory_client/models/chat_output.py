from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.chat_usage import ChatUsage
    from ..models.tool_call_output import ToolCallOutput


T = TypeVar("T", bound="ChatOutput")


@_attrs_define
class ChatOutput:
    """
    Attributes:
        reply (str): The coach's answer (markdown).
        tool_calls (list[ToolCallOutput]): The tools the coach called this turn, in order.
        model (str): The id of the model that answered.
        stop_reason (None | str): Why the model stopped, as the Messages API says (`end_turn`, `max_tokens`, …).
        usage (ChatUsage):
    """

    reply: str
    tool_calls: list[ToolCallOutput]
    model: str
    stop_reason: None | str
    usage: ChatUsage
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        reply = self.reply

        tool_calls = []
        for tool_calls_item_data in self.tool_calls:
            tool_calls_item = tool_calls_item_data.to_dict()
            tool_calls.append(tool_calls_item)

        model = self.model

        stop_reason: None | str
        stop_reason = self.stop_reason

        usage = self.usage.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "reply": reply,
                "tool_calls": tool_calls,
                "model": model,
                "stop_reason": stop_reason,
                "usage": usage,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.chat_usage import ChatUsage  # noqa: PLC0415
        from ..models.tool_call_output import ToolCallOutput  # noqa: PLC0415

        d = dict(src_dict)
        reply = d.pop("reply")

        tool_calls = []
        _tool_calls = d.pop("tool_calls")
        for tool_calls_item_data in _tool_calls:
            tool_calls_item = ToolCallOutput.from_dict(tool_calls_item_data)

            tool_calls.append(tool_calls_item)

        model = d.pop("model")

        def _parse_stop_reason(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        stop_reason = _parse_stop_reason(d.pop("stop_reason"))

        usage = ChatUsage.from_dict(d.pop("usage"))

        chat_output = cls(
            reply=reply,
            tool_calls=tool_calls,
            model=model,
            stop_reason=stop_reason,
            usage=usage,
        )

        chat_output.additional_properties = d
        return chat_output

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
