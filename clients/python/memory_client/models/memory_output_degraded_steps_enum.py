from typing import Literal

MemoryOutputDegradedStepsEnum = Literal["formatting", "market", "signals"]

MEMORY_OUTPUT_DEGRADED_STEPS_ENUM_VALUES: set[MemoryOutputDegradedStepsEnum] = {
    "formatting",
    "market",
    "signals",
}


def check_memory_output_degraded_steps_enum(value: str) -> MemoryOutputDegradedStepsEnum:
    if value in MEMORY_OUTPUT_DEGRADED_STEPS_ENUM_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {MEMORY_OUTPUT_DEGRADED_STEPS_ENUM_VALUES!r}")
