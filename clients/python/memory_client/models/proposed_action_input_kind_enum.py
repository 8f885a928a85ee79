from typing import Literal

ProposedActionInputKindEnum = Literal["adjust_position", "close_position", "flatten", "hold", "propose_order"]

PROPOSED_ACTION_INPUT_KIND_ENUM_VALUES: set[ProposedActionInputKindEnum] = {
    "adjust_position",
    "close_position",
    "flatten",
    "hold",
    "propose_order",
}


def check_proposed_action_input_kind_enum(value: str) -> ProposedActionInputKindEnum:
    if value in PROPOSED_ACTION_INPUT_KIND_ENUM_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {PROPOSED_ACTION_INPUT_KIND_ENUM_VALUES!r}")
