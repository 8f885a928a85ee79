from typing import Literal

ConfidenceEnum = Literal["asserted", "inferred"]

CONFIDENCE_ENUM_VALUES: set[ConfidenceEnum] = {
    "asserted",
    "inferred",
}


def check_confidence_enum(value: str) -> ConfidenceEnum:
    if value in CONFIDENCE_ENUM_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {CONFIDENCE_ENUM_VALUES!r}")
