from typing import Literal

SideEnum = Literal["long", "short"]

SIDE_ENUM_VALUES: set[SideEnum] = {
    "long",
    "short",
}


def check_side_enum(value: str) -> SideEnum:
    if value in SIDE_ENUM_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {SIDE_ENUM_VALUES!r}")
