from typing import Literal

ProposalOutputStatusEnum = Literal["approved", "pending", "rejected"]

PROPOSAL_OUTPUT_STATUS_ENUM_VALUES: set[ProposalOutputStatusEnum] = {
    "approved",
    "pending",
    "rejected",
}


def check_proposal_output_status_enum(value: str) -> ProposalOutputStatusEnum:
    if value in PROPOSAL_OUTPUT_STATUS_ENUM_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {PROPOSAL_OUTPUT_STATUS_ENUM_VALUES!r}")
