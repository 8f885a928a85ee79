from typing import Literal

DegradedEnum = Literal[
    "last_decision", "lessons", "manual", "open_positions", "recent_activity", "recent_trades", "similar_situations"
]

DEGRADED_ENUM_VALUES: set[DegradedEnum] = {
    "last_decision",
    "lessons",
    "manual",
    "open_positions",
    "recent_activity",
    "recent_trades",
    "similar_situations",
}


def check_degraded_enum(value: str) -> DegradedEnum:
    if value in DEGRADED_ENUM_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {DEGRADED_ENUM_VALUES!r}")
