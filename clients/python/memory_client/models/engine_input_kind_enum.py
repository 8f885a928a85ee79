from typing import Literal

EngineInputKindEnum = Literal["executed", "rejected", "skipped"]

ENGINE_INPUT_KIND_ENUM_VALUES: set[EngineInputKindEnum] = {
    "executed",
    "rejected",
    "skipped",
}


def check_engine_input_kind_enum(value: str) -> EngineInputKindEnum:
    if value in ENGINE_INPUT_KIND_ENUM_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {ENGINE_INPUT_KIND_ENUM_VALUES!r}")
