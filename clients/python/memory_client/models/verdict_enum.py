from typing import Literal

VerdictEnum = Literal["no_signal", "overfit", "strong_signal", "weak_signal"]

VERDICT_ENUM_VALUES: set[VerdictEnum] = {
    "no_signal",
    "overfit",
    "strong_signal",
    "weak_signal",
}


def check_verdict_enum(value: str) -> VerdictEnum:
    if value in VERDICT_ENUM_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {VERDICT_ENUM_VALUES!r}")
