from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define

if TYPE_CHECKING:
    from ..models.context_check_input_request_context import ContextCheckInputRequestContext


T = TypeVar("T", bound="ContextCheckInputRequest")


@_attrs_define
class ContextCheckInputRequest:
    """
    Attributes:
        context (ContextCheckInputRequestContext): The context you would record (as `record_experiment`'s `context`).
    """

    context: ContextCheckInputRequestContext

    def to_dict(self) -> dict[str, Any]:
        context = self.context.to_dict()

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "context": context,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.context_check_input_request_context import ContextCheckInputRequestContext  # noqa: PLC0415

        d = dict(src_dict)
        context = ContextCheckInputRequestContext.from_dict(d.pop("context"))

        context_check_input_request = cls(
            context=context,
        )

        return context_check_input_request
