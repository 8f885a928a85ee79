"""Check a test response against the service's own OpenAPI 3.1 schema (the runner's contract)."""

from __future__ import annotations

import json
import re
from functools import cache

from drf_spectacular.generators import SchemaGenerator
from drf_spectacular.renderers import OpenApiJsonRenderer
from jsonschema import Draft202012Validator


@cache
def openapi_schema() -> dict:
    schema = SchemaGenerator().get_schema(request=None, public=True)
    return json.loads(OpenApiJsonRenderer().render(schema))


def _schema_path(response) -> str:
    route = response.wsgi_request.resolver_match.route
    return "/" + re.sub(r"<(?:\w+:)?(\w+)>", r"{\1}", route)


def assert_matches_schema(response) -> None:
    """The response's status and body are what the schema documents for this operation."""
    schema = openapi_schema()
    path = _schema_path(response)
    method = response.wsgi_request.method.lower()
    operation = schema["paths"][path][method]
    documented = operation["responses"]
    assert str(response.status_code) in documented, (
        f"{method.upper()} {path} answered {response.status_code}; documented: {sorted(documented)}"
    )
    content = documented[str(response.status_code)].get("content")
    if content is None:
        return
    body_schema = {**content["application/json"]["schema"], "components": schema["components"]}
    errors = sorted(Draft202012Validator(body_schema).iter_errors(response.json()), key=str)
    assert not errors, f"{method.upper()} {path} {response.status_code}: " + "; ".join(e.message for e in errors)
