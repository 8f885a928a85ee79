from typing import Literal

ListCapabilityRequestsStatus = Literal["approved", "implemented", "pending", "rejected"]

LIST_CAPABILITY_REQUESTS_STATUS_VALUES: set[ListCapabilityRequestsStatus] = {
    "approved",
    "implemented",
    "pending",
    "rejected",
}


def check_list_capability_requests_status(value: str) -> ListCapabilityRequestsStatus:
    if value in LIST_CAPABILITY_REQUESTS_STATUS_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {LIST_CAPABILITY_REQUESTS_STATUS_VALUES!r}")
