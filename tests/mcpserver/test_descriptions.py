"""An MCP client's tool list reads like the API docs (issue 23): every tool and every input property carries a
description, and it is the API's own text: the served OpenAPI document for the tools sharing a REST operation,
the served chat-tool registry (GET /api/v1/chat/tools/, whose texts are its input serializers' help_text) for
the chat tools."""

from __future__ import annotations

import pytest

from chatmemory import tools as chat_tools
from mcpserver import tools
from tests.mcpserver.test_schemas import listed_tools, rest_input_schema


def descriptions(schema: dict, at: str = "") -> dict[str, str | None]:
    """Every property of a JSON schema, nested ones and array items' included, by its dotted path: its description."""
    found: dict[str, str | None] = {}
    for name, prop in (schema.get("properties") or {}).items():
        found[f"{at}{name}"] = prop.get("description")
        found.update(nested(prop, f"{at}{name}"))
    return found


def nested(prop: dict, at: str) -> dict[str, str | None]:
    found: dict[str, str | None] = {}
    if isinstance(prop.get("items"), dict):
        found.update(descriptions(prop["items"], f"{at}[]."))
    for key in ("allOf", "anyOf", "oneOf"):
        for index, option in enumerate(prop.get(key) or []):
            found.update(descriptions(option, f"{at}<{key}{index}>."))
    found.update(descriptions({"properties": prop.get("properties") or {}}, f"{at}."))
    return found


@pytest.fixture
def listed(owner):
    """The tool list as an MCP client session receives it (the official SDK's client, in memory)."""
    return listed_tools(tools.Principal(user=owner))


def test_every_tool_and_every_input_property_has_a_description(listed):
    assert set(listed) == set(tools.TOOLS)
    for name, tool in listed.items():
        assert tool.description and len(tool.description) > 40, name
        undescribed = [path for path, text in descriptions(tool.inputSchema).items() if not text]
        assert not undescribed, f"{name}: {undescribed}"
        assert descriptions(tool.inputSchema), f"{name} lists no input property"


def test_the_rest_tools_read_as_the_served_openapi_document(listed, owner_api):
    document = owner_api.get("/api/schema/", {"format": "json"}).json()
    for name, (path, method) in tools.REST_OPERATIONS.items():
        operation = document["paths"][path][method]
        assert listed[name].description == f"{operation['summary']}\n\n{operation['description']}", name
        served = descriptions(rest_input_schema(document, path, method))
        assert descriptions(listed[name].inputSchema) == served, name


def test_the_chat_tools_read_as_the_served_registry_and_its_serializers(listed, owner_api):
    served = {tool["name"]: tool for tool in owner_api.get("/api/v1/chat/tools/").json()["tools"]}
    for name, tool in chat_tools.TOOLS.items():
        assert listed[name].description == served[name]["description"] == tool.description
        listed_texts = descriptions(listed[name].inputSchema)
        assert listed_texts == descriptions(served[name]["input_schema"]), name
        fields = tool.serializer().fields
        assert listed_texts == {field: str(fields[field].help_text) for field in listed_texts}, name


def test_the_record_experiment_tool_describes_its_nested_fields(listed, owner_api):
    """Nested objects too: what an agent fills in an experiment's assessment is described field by field."""
    texts = descriptions(listed["record_experiment"].inputSchema)
    nested_paths = [path for path in texts if "." in path]
    assert nested_paths and all(texts[path] for path in nested_paths)
