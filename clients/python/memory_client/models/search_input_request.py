from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast
from uuid import UUID

from attrs import define as _attrs_define

from ..models.recall_document_source_enum import RecallDocumentSourceEnum, check_recall_document_source_enum
from ..types import UNSET, Unset

T = TypeVar("T", bound="SearchInputRequest")


@_attrs_define
class SearchInputRequest:
    """
    Attributes:
        query (str): What to look for, in words (at most 1,000 characters; not blank).
        k (int | Unset): At most this many results (1-50, default 10). Default: 10.
        sources (list[RecallDocumentSourceEnum] | Unset): Only documents of these sources; omitted: all.
        deployment_id (int | None | Unset): Also search the documents scoped to this deployment (besides yours for all
            and the global ones).
        min_score (float | Unset): Drop results scoring below this. Scores are 0..1 and mean the same across queries
            (0.3 x how much of the query's indexed words a chunk holds, BM25-weighted and saturating, + 0.7 x its cosine to
            the query); unset: the relevance floor, 0.2, so a query about nothing indexed returns no results; 0 returns the
            k best whatever they score.
        per_source_cap (int | None | Unset): At most this many results from one source; null: no cap.
        mmr_lambda (float | Unset): Diversity (MMR, off by default): each next result maximises λ·score −
            (1−λ)·similarity to those already taken; 1 = plain ranking, 0.7 is OpenClaw's choice.
        half_life_days (float | Unset): Recency (off by default): scores halve every this many days since a chunk
            changed; documents whose metadata has "evergreen": true are spared.
        snapshot_id (None | Unset | UUID): Attach the citations to this decision snapshot (the run record).
    """

    query: str
    k: int | Unset = 10
    sources: list[RecallDocumentSourceEnum] | Unset = UNSET
    deployment_id: int | None | Unset = UNSET
    min_score: float | Unset = UNSET
    per_source_cap: int | None | Unset = UNSET
    mmr_lambda: float | Unset = UNSET
    half_life_days: float | Unset = UNSET
    snapshot_id: None | Unset | UUID = UNSET

    def to_dict(self) -> dict[str, Any]:
        query = self.query

        k = self.k

        sources: list[str] | Unset = UNSET
        if not isinstance(self.sources, Unset):
            sources = []
            for sources_item_data in self.sources:
                sources_item: str = sources_item_data
                sources.append(sources_item)

        deployment_id: int | None | Unset
        if isinstance(self.deployment_id, Unset):
            deployment_id = UNSET
        else:
            deployment_id = self.deployment_id

        min_score = self.min_score

        per_source_cap: int | None | Unset
        if isinstance(self.per_source_cap, Unset):
            per_source_cap = UNSET
        else:
            per_source_cap = self.per_source_cap

        mmr_lambda = self.mmr_lambda

        half_life_days = self.half_life_days

        snapshot_id: None | str | Unset
        if isinstance(self.snapshot_id, Unset):
            snapshot_id = UNSET
        elif isinstance(self.snapshot_id, UUID):
            snapshot_id = str(self.snapshot_id)
        else:
            snapshot_id = self.snapshot_id

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "query": query,
            }
        )
        if k is not UNSET:
            field_dict["k"] = k
        if sources is not UNSET:
            field_dict["sources"] = sources
        if deployment_id is not UNSET:
            field_dict["deployment_id"] = deployment_id
        if min_score is not UNSET:
            field_dict["min_score"] = min_score
        if per_source_cap is not UNSET:
            field_dict["per_source_cap"] = per_source_cap
        if mmr_lambda is not UNSET:
            field_dict["mmr_lambda"] = mmr_lambda
        if half_life_days is not UNSET:
            field_dict["half_life_days"] = half_life_days
        if snapshot_id is not UNSET:
            field_dict["snapshot_id"] = snapshot_id

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        query = d.pop("query")

        k = d.pop("k", UNSET)

        _sources = d.pop("sources", UNSET)
        sources: list[RecallDocumentSourceEnum] | Unset = UNSET
        if _sources is not UNSET:
            sources = []
            for sources_item_data in _sources:
                sources_item = check_recall_document_source_enum(sources_item_data)

                sources.append(sources_item)

        def _parse_deployment_id(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        deployment_id = _parse_deployment_id(d.pop("deployment_id", UNSET))

        min_score = d.pop("min_score", UNSET)

        def _parse_per_source_cap(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        per_source_cap = _parse_per_source_cap(d.pop("per_source_cap", UNSET))

        mmr_lambda = d.pop("mmr_lambda", UNSET)

        half_life_days = d.pop("half_life_days", UNSET)

        def _parse_snapshot_id(data: object) -> None | Unset | UUID:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                snapshot_id_type_0 = UUID(data)

                return snapshot_id_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | Unset | UUID, data)

        snapshot_id = _parse_snapshot_id(d.pop("snapshot_id", UNSET))

        search_input_request = cls(
            query=query,
            k=k,
            sources=sources,
            deployment_id=deployment_id,
            min_score=min_score,
            per_source_cap=per_source_cap,
            mmr_lambda=mmr_lambda,
            half_life_days=half_life_days,
            snapshot_id=snapshot_id,
        )

        return search_input_request
