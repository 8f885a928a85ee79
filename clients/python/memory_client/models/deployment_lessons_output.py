from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.reflection_note_output import ReflectionNoteOutput


T = TypeVar("T", bound="DeploymentLessonsOutput")


@_attrs_define
class DeploymentLessonsOutput:
    """
    Attributes:
        active (None | ReflectionNoteOutput): The lessons the agent sees now, or null.
        history (list[ReflectionNoteOutput]): Every note of the deployment and its skill scope.
    """

    active: None | ReflectionNoteOutput
    history: list[ReflectionNoteOutput]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.reflection_note_output import ReflectionNoteOutput  # noqa: PLC0415

        active: dict[str, Any] | None
        if isinstance(self.active, ReflectionNoteOutput):
            active = self.active.to_dict()
        else:
            active = self.active

        history = []
        for history_item_data in self.history:
            history_item = history_item_data.to_dict()
            history.append(history_item)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "active": active,
                "history": history,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.reflection_note_output import ReflectionNoteOutput  # noqa: PLC0415

        d = dict(src_dict)

        def _parse_active(data: object) -> None | ReflectionNoteOutput:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                active_type_0 = ReflectionNoteOutput.from_dict(data)

                return active_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | ReflectionNoteOutput, data)

        active = _parse_active(d.pop("active"))

        history = []
        _history = d.pop("history")
        for history_item_data in _history:
            history_item = ReflectionNoteOutput.from_dict(history_item_data)

            history.append(history_item)

        deployment_lessons_output = cls(
            active=active,
            history=history,
        )

        deployment_lessons_output.additional_properties = d
        return deployment_lessons_output

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
