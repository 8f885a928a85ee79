"""Input schemas and descriptions of the MCP tools that share a REST operation: taken from the OpenAPI document.

The REST surface is documented by drf-spectacular from its serializers; a tool that shares an
operation takes that operation's request body (POST) or its path and query parameters as one
object (GET), with every `$ref` inlined (each property keeps its field's help_text as its description),
and the operation's summary and description as its own, so the two cannot drift apart.
"""

from __future__ import annotations

import copy
import functools

from drf_spectacular.generators import SchemaGenerator


@functools.cache
def openapi() -> dict:
    return SchemaGenerator().get_schema(request=None, public=True)


def inline_refs(node, components: dict):
    """`node` with every `{"$ref": "#/components/schemas/X"}` replaced by X (recursively)."""
    if isinstance(node, dict):
        if set(node) == {"$ref"}:
            return inline_refs(components[node["$ref"].rsplit("/", 1)[-1]], components)
        return {key: inline_refs(value, components) for key, value in node.items()}
    if isinstance(node, list):
        return [inline_refs(item, components) for item in node]
    return copy.deepcopy(node)


def operation(path: str, method: str) -> dict:
    return openapi()["paths"][path][method]


@functools.cache
def operation_input_schema(path: str, method: str) -> dict:
    """The JSON schema of the operation's input as one object: its JSON body, else its parameters
    (computed once; callers must not change it)."""
    document = openapi()
    components = document["components"]["schemas"]
    op = document["paths"][path][method]
    if "requestBody" in op:
        return inline_refs(op["requestBody"]["content"]["application/json"]["schema"], components)
    properties, required = {}, []
    for parameter in op.get("parameters", []):
        if parameter["in"] not in ("path", "query"):
            continue
        schema = inline_refs(parameter["schema"], components)
        if parameter.get("description"):
            schema["description"] = parameter["description"]
        properties[parameter["name"]] = schema
        if parameter.get("required"):
            required.append(parameter["name"])
    return {"type": "object", "properties": properties, "required": required, "additionalProperties": False}


def operation_description(path: str, method: str) -> str:
    """The tool's description: the operation's summary, then its description as a paragraph of its own (the
    API docs' text, so an MCP client's tool list reads like them)."""
    op = operation(path, method)
    return "\n\n".join(part for part in (op.get("summary", ""), op.get("description", "")) if part)
