from typing import Literal

OwnerEnum = Literal["staff", "yours"]

OWNER_ENUM_VALUES: set[OwnerEnum] = {
    "staff",
    "yours",
}


def check_owner_enum(value: str) -> OwnerEnum:
    if value in OWNER_ENUM_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {OWNER_ENUM_VALUES!r}")
