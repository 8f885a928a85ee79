from typing import Literal

GetMarketMemoryDateFormat = Literal["human", "iso", "relative"]

GET_MARKET_MEMORY_DATE_FORMAT_VALUES: set[GetMarketMemoryDateFormat] = {
    "human",
    "iso",
    "relative",
}


def check_get_market_memory_date_format(value: str) -> GetMarketMemoryDateFormat:
    if value in GET_MARKET_MEMORY_DATE_FORMAT_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {GET_MARKET_MEMORY_DATE_FORMAT_VALUES!r}")
