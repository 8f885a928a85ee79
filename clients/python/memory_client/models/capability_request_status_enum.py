from typing import Literal

CapabilityRequestStatusEnum = Literal["approved", "implemented", "pending", "rejected"]

CAPABILITY_REQUEST_STATUS_ENUM_VALUES: set[CapabilityRequestStatusEnum] = {
    "approved",
    "implemented",
    "pending",
    "rejected",
}


def check_capability_request_status_enum(value: str) -> CapabilityRequestStatusEnum:
    if value in CAPABILITY_REQUEST_STATUS_ENUM_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {CAPABILITY_REQUEST_STATUS_ENUM_VALUES!r}")
