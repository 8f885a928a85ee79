from typing import Literal

ArchivedReasonEnum = Literal["agent_forget", "user_corrected", "user_deleted"]

ARCHIVED_REASON_ENUM_VALUES: set[ArchivedReasonEnum] = {
    "agent_forget",
    "user_corrected",
    "user_deleted",
}


def check_archived_reason_enum(value: str) -> ArchivedReasonEnum:
    if value in ARCHIVED_REASON_ENUM_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {ARCHIVED_REASON_ENUM_VALUES!r}")
