from typing import Literal

ReflectionNoteOutputStatusEnum = Literal["active", "retired", "superseded"]

REFLECTION_NOTE_OUTPUT_STATUS_ENUM_VALUES: set[ReflectionNoteOutputStatusEnum] = {
    "active",
    "retired",
    "superseded",
}


def check_reflection_note_output_status_enum(value: str) -> ReflectionNoteOutputStatusEnum:
    if value in REFLECTION_NOTE_OUTPUT_STATUS_ENUM_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {REFLECTION_NOTE_OUTPUT_STATUS_ENUM_VALUES!r}")
