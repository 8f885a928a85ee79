from typing import Literal

TradeOutputStatusEnum = Literal["closed", "open"]

TRADE_OUTPUT_STATUS_ENUM_VALUES: set[TradeOutputStatusEnum] = {
    "closed",
    "open",
}


def check_trade_output_status_enum(value: str) -> TradeOutputStatusEnum:
    if value in TRADE_OUTPUT_STATUS_ENUM_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {TRADE_OUTPUT_STATUS_ENUM_VALUES!r}")
