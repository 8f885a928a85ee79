from typing import Literal

ReflectionNoteOutputSourceEnum = Literal["promotion", "reflection", "staff_edit", "trader"]

REFLECTION_NOTE_OUTPUT_SOURCE_ENUM_VALUES: set[ReflectionNoteOutputSourceEnum] = {
    "promotion",
    "reflection",
    "staff_edit",
    "trader",
}


def check_reflection_note_output_source_enum(value: str) -> ReflectionNoteOutputSourceEnum:
    if value in REFLECTION_NOTE_OUTPUT_SOURCE_ENUM_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {REFLECTION_NOTE_OUTPUT_SOURCE_ENUM_VALUES!r}")
