from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.citation_source_enum import CitationSourceEnum, check_citation_source_enum
from ..models.owner_enum import OwnerEnum, check_owner_enum

T = TypeVar("T", bound="CitationOutput")


@_attrs_define
class CitationOutput:
    """
    Attributes:
        path (str): The document's path.
        start_line (int): The chunk's first line in the document (1-based).
        end_line (int): Its last line (inclusive).
        score (float): Relevance, 0..1 (comparable across queries; see `min_score`).
        snippet (str): The chunk's text, shortened.
        source (CitationSourceEnum): * `fts` - fts
            * `vector` - vector
            * `hybrid` - hybrid
        owner (OwnerEnum): * `yours` - yours
            * `staff` - staff
    """

    path: str
    start_line: int
    end_line: int
    score: float
    snippet: str
    source: CitationSourceEnum
    owner: OwnerEnum
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        path = self.path

        start_line = self.start_line

        end_line = self.end_line

        score = self.score

        snippet = self.snippet

        source: str = self.source

        owner: str = self.owner

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "path": path,
                "startLine": start_line,
                "endLine": end_line,
                "score": score,
                "snippet": snippet,
                "source": source,
                "owner": owner,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        path = d.pop("path")

        start_line = d.pop("startLine")

        end_line = d.pop("endLine")

        score = d.pop("score")

        snippet = d.pop("snippet")

        source = check_citation_source_enum(d.pop("source"))

        owner = check_owner_enum(d.pop("owner"))

        citation_output = cls(
            path=path,
            start_line=start_line,
            end_line=end_line,
            score=score,
            snippet=snippet,
            source=source,
            owner=owner,
        )

        citation_output.additional_properties = d
        return citation_output

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
