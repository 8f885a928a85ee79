from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.backend_enum import BackendEnum, check_backend_enum

if TYPE_CHECKING:
    from ..models.citation_output import CitationOutput


T = TypeVar("T", bound="SearchOutput")


@_attrs_define
class SearchOutput:
    """
    Attributes:
        backend (BackendEnum): * `hybrid` - hybrid
            * `fts` - fts
        results (list[CitationOutput]): The citations, best first.
    """

    backend: BackendEnum
    results: list[CitationOutput]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        backend: str = self.backend

        results = []
        for results_item_data in self.results:
            results_item = results_item_data.to_dict()
            results.append(results_item)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "backend": backend,
                "results": results,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.citation_output import CitationOutput  # noqa: PLC0415

        d = dict(src_dict)
        backend = check_backend_enum(d.pop("backend"))

        results = []
        _results = d.pop("results")
        for results_item_data in _results:
            results_item = CitationOutput.from_dict(results_item_data)

            results.append(results_item)

        search_output = cls(
            backend=backend,
            results=results,
        )

        search_output.additional_properties = d
        return search_output

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
