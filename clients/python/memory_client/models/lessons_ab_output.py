from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.lessons_revision_output import LessonsRevisionOutput
    from ..models.trade_figures_output import TradeFiguresOutput


T = TypeVar("T", bound="LessonsABOutput")


@_attrs_define
class LessonsABOutput:
    """
    Attributes:
        skill_id (int): The skill.
        skill_version (int | None): The version asked for; null: all versions.
        confidence (float): The intervals' confidence level (0.95).
        min_trades_to_tell (int): Closed trades a group needs (both groups, for a difference) before an interval is
            given.
        revisions (list[LessonsRevisionOutput]): One per lessons text (content_hash), oldest first.
        no_lessons (TradeFiguresOutput):
    """

    skill_id: int
    skill_version: int | None
    confidence: float
    min_trades_to_tell: int
    revisions: list[LessonsRevisionOutput]
    no_lessons: TradeFiguresOutput
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        skill_id = self.skill_id

        skill_version: int | None
        skill_version = self.skill_version

        confidence = self.confidence

        min_trades_to_tell = self.min_trades_to_tell

        revisions = []
        for revisions_item_data in self.revisions:
            revisions_item = revisions_item_data.to_dict()
            revisions.append(revisions_item)

        no_lessons = self.no_lessons.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "skill_id": skill_id,
                "skill_version": skill_version,
                "confidence": confidence,
                "min_trades_to_tell": min_trades_to_tell,
                "revisions": revisions,
                "no_lessons": no_lessons,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.lessons_revision_output import LessonsRevisionOutput  # noqa: PLC0415
        from ..models.trade_figures_output import TradeFiguresOutput  # noqa: PLC0415

        d = dict(src_dict)
        skill_id = d.pop("skill_id")

        def _parse_skill_version(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        skill_version = _parse_skill_version(d.pop("skill_version"))

        confidence = d.pop("confidence")

        min_trades_to_tell = d.pop("min_trades_to_tell")

        revisions = []
        _revisions = d.pop("revisions")
        for revisions_item_data in _revisions:
            revisions_item = LessonsRevisionOutput.from_dict(revisions_item_data)

            revisions.append(revisions_item)

        no_lessons = TradeFiguresOutput.from_dict(d.pop("no_lessons"))

        lessons_ab_output = cls(
            skill_id=skill_id,
            skill_version=skill_version,
            confidence=confidence,
            min_trades_to_tell=min_trades_to_tell,
            revisions=revisions,
            no_lessons=no_lessons,
        )

        lessons_ab_output.additional_properties = d
        return lessons_ab_output

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
