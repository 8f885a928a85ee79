from typing import Literal

BackendEnum = Literal["fts", "hybrid"]

BACKEND_ENUM_VALUES: set[BackendEnum] = {
    "fts",
    "hybrid",
}


def check_backend_enum(value: str) -> BackendEnum:
    if value in BACKEND_ENUM_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {BACKEND_ENUM_VALUES!r}")
