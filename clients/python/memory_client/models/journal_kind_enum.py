from typing import Literal

JournalKindEnum = Literal["journal", "learning", "note"]

JOURNAL_KIND_ENUM_VALUES: set[JournalKindEnum] = {
    "journal",
    "learning",
    "note",
}


def check_journal_kind_enum(value: str) -> JournalKindEnum:
    if value in JOURNAL_KIND_ENUM_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {JOURNAL_KIND_ENUM_VALUES!r}")
