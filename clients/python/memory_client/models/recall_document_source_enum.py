from typing import Literal

RecallDocumentSourceEnum = Literal["backtest", "journal", "playbook", "runbook", "transcript", "workspace"]

RECALL_DOCUMENT_SOURCE_ENUM_VALUES: set[RecallDocumentSourceEnum] = {
    "backtest",
    "journal",
    "playbook",
    "runbook",
    "transcript",
    "workspace",
}


def check_recall_document_source_enum(value: str) -> RecallDocumentSourceEnum:
    if value in RECALL_DOCUMENT_SOURCE_ENUM_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {RECALL_DOCUMENT_SOURCE_ENUM_VALUES!r}")
