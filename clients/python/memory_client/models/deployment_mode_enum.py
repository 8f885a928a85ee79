from typing import Literal

DeploymentModeEnum = Literal["live", "paper", "sim"]

DEPLOYMENT_MODE_ENUM_VALUES: set[DeploymentModeEnum] = {
    "live",
    "paper",
    "sim",
}


def check_deployment_mode_enum(value: str) -> DeploymentModeEnum:
    if value in DEPLOYMENT_MODE_ENUM_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {DEPLOYMENT_MODE_ENUM_VALUES!r}")
