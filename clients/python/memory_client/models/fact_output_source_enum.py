from typing import Literal

FactOutputSourceEnum = Literal["chat", "inferred", "profile"]

FACT_OUTPUT_SOURCE_ENUM_VALUES: set[FactOutputSourceEnum] = {
    "chat",
    "inferred",
    "profile",
}


def check_fact_output_source_enum(value: str) -> FactOutputSourceEnum:
    if value in FACT_OUTPUT_SOURCE_ENUM_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {FACT_OUTPUT_SOURCE_ENUM_VALUES!r}")
