from typing import Literal

RoleEnum = Literal["assistant", "user"]

ROLE_ENUM_VALUES: set[RoleEnum] = {
    "assistant",
    "user",
}


def check_role_enum(value: str) -> RoleEnum:
    if value in ROLE_ENUM_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {ROLE_ENUM_VALUES!r}")
