from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.degraded_enum import DegradedEnum, check_degraded_enum
from ..models.deployment_output_status_enum import DeploymentOutputStatusEnum, check_deployment_output_status_enum

if TYPE_CHECKING:
    from ..models.context_sections import ContextSections
    from ..models.system_prompt_output import SystemPromptOutput
    from ..models.token_estimate import TokenEstimate


T = TypeVar("T", bound="ContextOutput")


@_attrs_define
class ContextOutput:
    """
    Attributes:
        deployment_status (DeploymentOutputStatusEnum): * `running` - running
            * `stopped` - stopped
        text (str): The memory block to put in the agent's user message this tick: the non-null sections in order,
            separated by blank lines (empty when every section is null).
        sections (ContextSections):
        token_estimate (TokenEstimate):
        system_prompt (SystemPromptOutput):
        degraded (list[DegradedEnum]): The sections whose read failed this time (a database error, or a statement past
            the per-section timeout): each is null (for `lessons`, the system prompt's lessons segment) and left out of
            `text`, and the rest is served. In this order, each at most once: last_decision, recent_activity, recent_trades,
            open_positions, similar_situations, manual, lessons. A section that needs a failed read is listed with it (when
            the latest tick cannot be read, every memory section but recent_trades). Empty when the context is complete. A
            degraded answer is not cached (Cache-Control: no-store): the next request reads every section afresh.
    """

    deployment_status: DeploymentOutputStatusEnum
    text: str
    sections: ContextSections
    token_estimate: TokenEstimate
    system_prompt: SystemPromptOutput
    degraded: list[DegradedEnum]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        deployment_status: str = self.deployment_status

        text = self.text

        sections = self.sections.to_dict()

        token_estimate = self.token_estimate.to_dict()

        system_prompt = self.system_prompt.to_dict()

        degraded = []
        for degraded_item_data in self.degraded:
            degraded_item: str = degraded_item_data
            degraded.append(degraded_item)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "deployment_status": deployment_status,
                "text": text,
                "sections": sections,
                "token_estimate": token_estimate,
                "system_prompt": system_prompt,
                "degraded": degraded,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.context_sections import ContextSections  # noqa: PLC0415
        from ..models.system_prompt_output import SystemPromptOutput  # noqa: PLC0415
        from ..models.token_estimate import TokenEstimate  # noqa: PLC0415

        d = dict(src_dict)
        deployment_status = check_deployment_output_status_enum(d.pop("deployment_status"))

        text = d.pop("text")

        sections = ContextSections.from_dict(d.pop("sections"))

        token_estimate = TokenEstimate.from_dict(d.pop("token_estimate"))

        system_prompt = SystemPromptOutput.from_dict(d.pop("system_prompt"))

        degraded = []
        _degraded = d.pop("degraded")
        for degraded_item_data in _degraded:
            degraded_item = check_degraded_enum(degraded_item_data)

            degraded.append(degraded_item)

        context_output = cls(
            deployment_status=deployment_status,
            text=text,
            sections=sections,
            token_estimate=token_estimate,
            system_prompt=system_prompt,
            degraded=degraded,
        )

        context_output.additional_properties = d
        return context_output

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
