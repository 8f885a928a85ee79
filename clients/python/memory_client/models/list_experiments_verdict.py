from typing import Literal

ListExperimentsVerdict = Literal["no_signal", "overfit", "strong_signal", "weak_signal"]

LIST_EXPERIMENTS_VERDICT_VALUES: set[ListExperimentsVerdict] = {
    "no_signal",
    "overfit",
    "strong_signal",
    "weak_signal",
}


def check_list_experiments_verdict(value: str) -> ListExperimentsVerdict:
    if value in LIST_EXPERIMENTS_VERDICT_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {LIST_EXPERIMENTS_VERDICT_VALUES!r}")
