from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.hypothesis_status_enum import HypothesisStatusEnum, check_hypothesis_status_enum
from ..types import UNSET, Unset

T = TypeVar("T", bound="HypothesisOutput")


@_attrs_define
class HypothesisOutput:
    """
    Attributes:
        id (str): The hypothesis's id, e.g. `H_003`.
        text (str): The hypothesis.
        source_experiment (None | str): The experiment whose assessment raised it; null: none left.
        tested_by (list[str]): The experiments that tested it.
        created (datetime.date): The UTC date it was registered.
        rationale (str | Unset): Why it was raised (may be empty).
        status (HypothesisStatusEnum | Unset): * `untested` - untested
            * `testing` - testing
            * `validated` - validated
            * `refuted` - refuted
            * `inconclusive` - inconclusive
    """

    id: str
    text: str
    source_experiment: None | str
    tested_by: list[str]
    created: datetime.date
    rationale: str | Unset = UNSET
    status: HypothesisStatusEnum | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        id = self.id

        text = self.text

        source_experiment: None | str
        source_experiment = self.source_experiment

        tested_by = self.tested_by

        created = self.created.isoformat()

        rationale = self.rationale

        status: str | Unset = UNSET
        if not isinstance(self.status, Unset):
            status = self.status

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "text": text,
                "source_experiment": source_experiment,
                "tested_by": tested_by,
                "created": created,
            }
        )
        if rationale is not UNSET:
            field_dict["rationale"] = rationale
        if status is not UNSET:
            field_dict["status"] = status

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        id = d.pop("id")

        text = d.pop("text")

        def _parse_source_experiment(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        source_experiment = _parse_source_experiment(d.pop("source_experiment"))

        tested_by = cast(list[str], d.pop("tested_by"))

        created = datetime.date.fromisoformat(d.pop("created"))

        rationale = d.pop("rationale", UNSET)

        _status = d.pop("status", UNSET)
        status: HypothesisStatusEnum | Unset
        if isinstance(_status, Unset):
            status = UNSET
        else:
            status = check_hypothesis_status_enum(_status)

        hypothesis_output = cls(
            id=id,
            text=text,
            source_experiment=source_experiment,
            tested_by=tested_by,
            created=created,
            rationale=rationale,
            status=status,
        )

        hypothesis_output.additional_properties = d
        return hypothesis_output

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
