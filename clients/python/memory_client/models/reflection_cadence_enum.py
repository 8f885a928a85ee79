from typing import Literal

ReflectionCadenceEnum = Literal["daily", "off", "per_n_trades"]

REFLECTION_CADENCE_ENUM_VALUES: set[ReflectionCadenceEnum] = {
    "daily",
    "off",
    "per_n_trades",
}


def check_reflection_cadence_enum(value: str) -> ReflectionCadenceEnum:
    if value in REFLECTION_CADENCE_ENUM_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {REFLECTION_CADENCE_ENUM_VALUES!r}")
