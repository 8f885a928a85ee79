from typing import Literal

SignalCreatedDegradedStepsEnum = Literal["evolution"]

SIGNAL_CREATED_DEGRADED_STEPS_ENUM_VALUES: set[SignalCreatedDegradedStepsEnum] = {
    "evolution",
}


def check_signal_created_degraded_steps_enum(value: str) -> SignalCreatedDegradedStepsEnum:
    if value in SIGNAL_CREATED_DEGRADED_STEPS_ENUM_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {SIGNAL_CREATED_DEGRADED_STEPS_ENUM_VALUES!r}")
