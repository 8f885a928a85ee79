from typing import Literal

CitationSourceEnum = Literal["fts", "hybrid", "vector"]

CITATION_SOURCE_ENUM_VALUES: set[CitationSourceEnum] = {
    "fts",
    "hybrid",
    "vector",
}


def check_citation_source_enum(value: str) -> CitationSourceEnum:
    if value in CITATION_SOURCE_ENUM_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {CITATION_SOURCE_ENUM_VALUES!r}")
