from typing import Literal

ReasonEnum = Literal["user_corrected", "user_deleted"]

REASON_ENUM_VALUES: set[ReasonEnum] = {
    "user_corrected",
    "user_deleted",
}


def check_reason_enum(value: str) -> ReasonEnum:
    if value in REASON_ENUM_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {REASON_ENUM_VALUES!r}")
