from typing import Literal

ChatModeEnum = Literal["authoring", "coach", "ops"]

CHAT_MODE_ENUM_VALUES: set[ChatModeEnum] = {
    "authoring",
    "coach",
    "ops",
}


def check_chat_mode_enum(value: str) -> ChatModeEnum:
    if value in CHAT_MODE_ENUM_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {CHAT_MODE_ENUM_VALUES!r}")
