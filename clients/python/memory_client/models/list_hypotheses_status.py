from typing import Literal

ListHypothesesStatus = Literal["inconclusive", "refuted", "testing", "untested", "validated"]

LIST_HYPOTHESES_STATUS_VALUES: set[ListHypothesesStatus] = {
    "inconclusive",
    "refuted",
    "testing",
    "untested",
    "validated",
}


def check_list_hypotheses_status(value: str) -> ListHypothesesStatus:
    if value in LIST_HYPOTHESES_STATUS_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {LIST_HYPOTHESES_STATUS_VALUES!r}")
