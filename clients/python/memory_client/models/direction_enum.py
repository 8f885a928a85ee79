from typing import Literal

DirectionEnum = Literal["NEUTRAL", "NO", "YES"]

DIRECTION_ENUM_VALUES: set[DirectionEnum] = {
    "NEUTRAL",
    "NO",
    "YES",
}


def check_direction_enum(value: str) -> DirectionEnum:
    if value in DIRECTION_ENUM_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {DIRECTION_ENUM_VALUES!r}")
