from typing import Literal

TypeEnum = Literal["confidence_change", "direction_change", "probability_shift", "reasoning_evolution"]

TYPE_ENUM_VALUES: set[TypeEnum] = {
    "confidence_change",
    "direction_change",
    "probability_shift",
    "reasoning_evolution",
}


def check_type_enum(value: str) -> TypeEnum:
    if value in TYPE_ENUM_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {TYPE_ENUM_VALUES!r}")
