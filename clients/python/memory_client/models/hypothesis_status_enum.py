from typing import Literal

HypothesisStatusEnum = Literal["inconclusive", "refuted", "testing", "untested", "validated"]

HYPOTHESIS_STATUS_ENUM_VALUES: set[HypothesisStatusEnum] = {
    "inconclusive",
    "refuted",
    "testing",
    "untested",
    "validated",
}


def check_hypothesis_status_enum(value: str) -> HypothesisStatusEnum:
    if value in HYPOTHESIS_STATUS_ENUM_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {HYPOTHESIS_STATUS_ENUM_VALUES!r}")
