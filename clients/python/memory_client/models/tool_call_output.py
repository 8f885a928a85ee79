from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.tool_call_output_input import ToolCallOutputInput
    from ..models.tool_call_output_result_type_0 import ToolCallOutputResultType0


T = TypeVar("T", bound="ToolCallOutput")


@_attrs_define
class ToolCallOutput:
    """
    Attributes:
        name (str): The tool the coach called (see `list_chat_tools`).
        input_ (ToolCallOutputInput): The tool input the model sent.
        result (None | ToolCallOutputResultType0): The tool's result; null when it failed.
        error (None | str): Why the tool failed; null when it succeeded.
    """

    name: str
    input_: ToolCallOutputInput
    result: None | ToolCallOutputResultType0
    error: None | str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.tool_call_output_result_type_0 import ToolCallOutputResultType0  # noqa: PLC0415

        name = self.name

        input_ = self.input_.to_dict()

        result: dict[str, Any] | None
        if isinstance(self.result, ToolCallOutputResultType0):
            result = self.result.to_dict()
        else:
            result = self.result

        error: None | str
        error = self.error

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "name": name,
                "input": input_,
                "result": result,
                "error": error,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.tool_call_output_input import ToolCallOutputInput  # noqa: PLC0415
        from ..models.tool_call_output_result_type_0 import ToolCallOutputResultType0  # noqa: PLC0415

        d = dict(src_dict)
        name = d.pop("name")

        input_ = ToolCallOutputInput.from_dict(d.pop("input"))

        def _parse_result(data: object) -> None | ToolCallOutputResultType0:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                result_type_0 = ToolCallOutputResultType0.from_dict(data)

                return result_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | ToolCallOutputResultType0, data)

        result = _parse_result(d.pop("result"))

        def _parse_error(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        error = _parse_error(d.pop("error"))

        tool_call_output = cls(
            name=name,
            input_=input_,
            result=result,
            error=error,
        )

        tool_call_output.additional_properties = d
        return tool_call_output

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
