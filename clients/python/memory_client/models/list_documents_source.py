from typing import Literal

ListDocumentsSource = Literal["backtest", "journal", "playbook", "runbook", "transcript", "workspace"]

LIST_DOCUMENTS_SOURCE_VALUES: set[ListDocumentsSource] = {
    "backtest",
    "journal",
    "playbook",
    "runbook",
    "transcript",
    "workspace",
}


def check_list_documents_source(value: str) -> ListDocumentsSource:
    if value in LIST_DOCUMENTS_SOURCE_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {LIST_DOCUMENTS_SOURCE_VALUES!r}")
