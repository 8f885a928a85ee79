from typing import Literal

DeploymentOutputStatusEnum = Literal["running", "stopped"]

DEPLOYMENT_OUTPUT_STATUS_ENUM_VALUES: set[DeploymentOutputStatusEnum] = {
    "running",
    "stopped",
}


def check_deployment_output_status_enum(value: str) -> DeploymentOutputStatusEnum:
    if value in DEPLOYMENT_OUTPUT_STATUS_ENUM_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {DEPLOYMENT_OUTPUT_STATUS_ENUM_VALUES!r}")
