from typing import Literal

ListFactsArchived = Literal["all", "false", "true"]

LIST_FACTS_ARCHIVED_VALUES: set[ListFactsArchived] = {
    "all",
    "false",
    "true",
}


def check_list_facts_archived(value: str) -> ListFactsArchived:
    if value in LIST_FACTS_ARCHIVED_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {LIST_FACTS_ARCHIVED_VALUES!r}")
