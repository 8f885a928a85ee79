from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define

from ..models.verdict_enum import VerdictEnum, check_verdict_enum
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.hypothesis_input_request import HypothesisInputRequest


T = TypeVar("T", bound="AssessmentInputRequest")


@_attrs_define
class AssessmentInputRequest:
    """
    Attributes:
        verdict (VerdictEnum): * `strong_signal` - strong_signal
            * `weak_signal` - weak_signal
            * `no_signal` - no_signal
            * `overfit` - overfit
        observations (list[str] | Unset): What was seen, one a line (at most 50).
        hypotheses (list[HypothesisInputRequest] | Unset): New hypotheses to register (ids H_001, H_002, … are given to
            them).
        limitations (list[str] | Unset): What the experiment could not show.
        capability_requests (list[str] | Unset): Data or tools the research agent needs (registered as requests for
            staff to review).
    """

    verdict: VerdictEnum
    observations: list[str] | Unset = UNSET
    hypotheses: list[HypothesisInputRequest] | Unset = UNSET
    limitations: list[str] | Unset = UNSET
    capability_requests: list[str] | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        verdict: str = self.verdict

        observations: list[str] | Unset = UNSET
        if not isinstance(self.observations, Unset):
            observations = self.observations

        hypotheses: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.hypotheses, Unset):
            hypotheses = []
            for hypotheses_item_data in self.hypotheses:
                hypotheses_item = hypotheses_item_data.to_dict()
                hypotheses.append(hypotheses_item)

        limitations: list[str] | Unset = UNSET
        if not isinstance(self.limitations, Unset):
            limitations = self.limitations

        capability_requests: list[str] | Unset = UNSET
        if not isinstance(self.capability_requests, Unset):
            capability_requests = self.capability_requests

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "verdict": verdict,
            }
        )
        if observations is not UNSET:
            field_dict["observations"] = observations
        if hypotheses is not UNSET:
            field_dict["hypotheses"] = hypotheses
        if limitations is not UNSET:
            field_dict["limitations"] = limitations
        if capability_requests is not UNSET:
            field_dict["capability_requests"] = capability_requests

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.hypothesis_input_request import HypothesisInputRequest  # noqa: PLC0415

        d = dict(src_dict)
        verdict = check_verdict_enum(d.pop("verdict"))

        observations = cast(list[str], d.pop("observations", UNSET))

        _hypotheses = d.pop("hypotheses", UNSET)
        hypotheses: list[HypothesisInputRequest] | Unset = UNSET
        if _hypotheses is not UNSET:
            hypotheses = []
            for hypotheses_item_data in _hypotheses:
                hypotheses_item = HypothesisInputRequest.from_dict(hypotheses_item_data)

                hypotheses.append(hypotheses_item)

        limitations = cast(list[str], d.pop("limitations", UNSET))

        capability_requests = cast(list[str], d.pop("capability_requests", UNSET))

        assessment_input_request = cls(
            verdict=verdict,
            observations=observations,
            hypotheses=hypotheses,
            limitations=limitations,
            capability_requests=capability_requests,
        )

        return assessment_input_request
