from typing import Literal

AvgPnlVerdictEnum = Literal["higher", "lower", "no_clear_difference", "too_few_trades"]

AVG_PNL_VERDICT_ENUM_VALUES: set[AvgPnlVerdictEnum] = {
    "higher",
    "lower",
    "no_clear_difference",
    "too_few_trades",
}


def check_avg_pnl_verdict_enum(value: str) -> AvgPnlVerdictEnum:
    if value in AVG_PNL_VERDICT_ENUM_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {AVG_PNL_VERDICT_ENUM_VALUES!r}")
