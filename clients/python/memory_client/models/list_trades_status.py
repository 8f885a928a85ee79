from typing import Literal

ListTradesStatus = Literal["closed", "open"]

LIST_TRADES_STATUS_VALUES: set[ListTradesStatus] = {
    "closed",
    "open",
}


def check_list_trades_status(value: str) -> ListTradesStatus:
    if value in LIST_TRADES_STATUS_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {LIST_TRADES_STATUS_VALUES!r}")
